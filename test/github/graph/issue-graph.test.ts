import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub, specAt, type FakeIssue } from '../../helpers/github-repo.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';
import { specOf, type PlanOptions } from '../../helpers/spec.js';

/**
 * The issue graph read both ways (docs/github-flow.md, 12), on the stateful fake GitHub: the
 * spec's plan issues are made by a real spec PR sync (the `pull_request.opened` payload of
 * @octokit/webhooks-examples), then people change the links between them. The
 * `issue_dependencies` and `sub_issues` payloads are not in @octokit/webhooks-examples: they are
 * built here from GitHub's documented schema (@octokit/openapi-webhooks-types,
 * webhook-issue-dependencies-blocked-by-added and the others: `action`, `blocked_issue_id`,
 * `blocked_issue`, `blocking_issue_id`, `blocking_issue`, `blocking_issue_repo` or
 * `blocked_issue_repo`, `repository`, `sender`), with the repository and sender of the real
 * `issues` example.
 */

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const R = '/repos/Codertocat/Hello-World';
const DIR = 'docs/specs/SPC-042-password-reset';
const PLAN_02 = `${DIR}/planning/plans/01-phase/01-02-PLAN.md`;
const PLAN_03 = `${DIR}/planning/plans/01-phase/01-03-PLAN.md`;

/** 01-01 and 01-02 stand alone; 01-03 needs 01-02. */
const PLANS: PlanOptions[] = [
  { id: '01-01', title: 'Reset tokens' },
  { id: '01-02', title: 'Reset endpoint' },
  { id: '01-03', title: 'Reset email', dependsOn: ['01-02'] },
];

interface PullRequestPayload {
  pull_request: { number: number; head: { sha: string; ref: string }; base: { sha: string; ref: string } };
}

const OPENED = webhookExample<PullRequestPayload>('pull_request', (p) => p.action === 'opened');
const HEAD = OPENED.pull_request.head.sha;
const BASE = OPENED.pull_request.base.sha;
const SPEC_PR = OPENED.pull_request.number;
const SPEC_ISSUES = `GET ${R}/issues?labels=harness:plan,spec:SPC-042&state=all&direction=asc&per_page=100`;

const WRITER = { login: 'octo-writer', type: 'User' };
const READER = { login: 'octo-reader', type: 'User' };
const APP_BOT = { login: 'harness[bot]', type: 'Bot' };
const OTHER_BOT = { login: 'renovate[bot]', type: 'Bot' };

/**
 * A repository whose spec PR (#2, `changes` into `master`) was synced: plan issues #101 (01-01),
 * #102 (01-02), #103 (01-03, blocked by #102) under the tracking issue #100. `merged`: the spec
 * PR was merged, and master holds the spec.
 */
async function synced(merged: boolean): Promise<FakeGitHub> {
  const github = new FakeGitHub();
  github.config = 'specs_root: docs/specs\nslots: 3\n';
  const files = { 'README.md': '# Hello\n', 'docs/specs/README.md': 'Specs live here.\n' };
  github.commit(BASE, files);
  github.commit(HEAD, { ...files, ...specAt(DIR, specOf(PLANS)) });
  github.branches.set('master', BASE);
  github.branches.set('changes', HEAD);
  github.roles.set(WRITER.login, 'write');
  github.roles.set(READER.login, 'triage');
  github.install();
  await testProbot().receive({ id: 'spec-pr', name: 'pull_request', payload: OPENED } as never);
  expect(github.issues.map((i) => [i.number, i.title])).toEqual([
    [100, '[SPC-042] Password reset'],
    [101, '[01-01] Reset tokens'],
    [102, '[01-02] Reset endpoint'],
    [103, '[01-03] Reset email'],
  ]);
  const side = (ref: string) => ({ ref, full_name: 'Codertocat/Hello-World' });
  if (merged) {
    github.branches.set('master', HEAD);
    github.pulls.set(SPEC_PR, { base: side('master'), head: side('changes'), state: 'closed', merged: true });
  } else github.pulls.set(SPEC_PR, { base: side('master'), head: side('changes'), state: 'open', merged: false });
  return github;
}

const example = webhookExample<{ repository: Record<string, unknown>; sender: Record<string, unknown> }>('issues', (p) => p.action === 'opened');

/** An issue as GitHub's webhook `issue` schema has it (the fields of components["schemas"]["issue"]). */
function issueJson(github: FakeGitHub, i: FakeIssue): Record<string, unknown> {
  const api = `https://api.github.com${R}/issues/${i.number}`;
  return {
    id: i.id,
    node_id: `I_${i.id}`,
    url: api,
    repository_url: `https://api.github.com${R}`,
    labels_url: `${api}/labels{/name}`,
    comments_url: `${api}/comments`,
    events_url: `${api}/events`,
    html_url: `https://github.com/Codertocat/Hello-World/issues/${i.number}`,
    number: i.number,
    state: i.state,
    state_reason: i.state_reason,
    title: i.title,
    body: i.body,
    user: { login: 'harness[bot]', type: 'Bot' },
    labels: i.labels.map((name) => ({ name })),
    assignee: null,
    assignees: [],
    milestone: null,
    locked: false,
    comments: github.comments.filter((c) => c.issue === i.number).length,
    closed_at: null,
    created_at: '2026-11-27T10:00:00Z',
    updated_at: '2026-11-27T10:00:00Z',
    author_association: 'NONE',
    sub_issues_summary: github.subIssuesSummary(i.number),
  };
}

type DependencyAction = 'blocked_by_added' | 'blocked_by_removed' | 'blocking_added' | 'blocking_removed';

/** GitHub's `issue_dependencies` delivery for #blocked and #blocking, after the change is made on the fake. */
function dependencyEvent(
  github: FakeGitHub,
  action: DependencyAction,
  blocked: number,
  blocking: number,
  sender: { login: string; type: string },
  id = `${action}-${blocked}-${blocking}-${sender.login}`,
) {
  const b = github.issue(blocked);
  const g = github.issue(blocking);
  const repo = structuredClone(example.repository);
  const payload = {
    action,
    blocked_issue_id: b.id,
    blocked_issue: issueJson(github, b),
    blocking_issue_id: g.id,
    blocking_issue: issueJson(github, g),
    // The other issue's repository: blocking_issue_repo on the blocked issue's events, blocked_issue_repo on the blocking one's.
    ...(action.startsWith('blocked_by') ? { blocking_issue_repo: repo } : { blocked_issue_repo: repo }),
    repository: structuredClone(example.repository),
    sender: { ...structuredClone(example.sender), ...sender },
  };
  return { id, name: 'issue_dependencies', payload } as never;
}

type SubIssueAction = 'sub_issue_added' | 'sub_issue_removed' | 'parent_issue_added' | 'parent_issue_removed';

/** GitHub's `sub_issues` delivery for #sub under #parent. */
function subIssueEvent(github: FakeGitHub, action: SubIssueAction, sub: number, parent: number, sender: { login: string; type: string }) {
  const s = github.issue(sub);
  const p = github.issue(parent);
  const repo = structuredClone(example.repository);
  const payload = {
    action,
    sub_issue_id: s.id,
    sub_issue: issueJson(github, s),
    parent_issue_id: p.id,
    parent_issue: issueJson(github, p),
    ...(action.startsWith('sub_issue') ? { sub_issue_repo: repo } : { parent_issue_repo: repo }),
    repository: structuredClone(example.repository),
    sender: { ...structuredClone(example.sender), ...sender },
  };
  return { id: `${action}-${sub}-${parent}-${sender.login}`, name: 'sub_issues', payload } as never;
}

/** What a person does on GitHub: make #blocked blocked by #blocking, or take that away. */
function link(github: FakeGitHub, blocked: number, blocking: number, present: boolean): void {
  const set = github.blockedBy.get(blocked) ?? new Set<number>();
  if (present) set.add(github.issue(blocking).id);
  else set.delete(github.issue(blocking).id);
  github.blockedBy.set(blocked, set);
}

const blockers = (github: FakeGitHub, n: number) => [...(github.blockedBy.get(n) ?? [])].map((id) => github.issues.find((i) => i.id === id)!.number);
const graphComments = (github: FakeGitHub, n: number) => github.comments.filter((c) => c.issue === n && c.body.startsWith('<!-- harness:graph'));
const dispatched = (github: FakeGitHub) => github.dispatches.map((d) => (d.body as { inputs: { plan: string } }).inputs.plan).sort();

/**
 * The reads that find the spec a plan issue came from: the config, the spec PR and the spec
 * directory. Its tree and blobs are not read again: the App remembers them from the spec PR's
 * sync in this process (a git object never changes; app-memory.ts), as it does who it is.
 */
function specReads(ref: string): unknown[] {
  return [`GET ${R}/contents/.github/harness.yml`, `GET ${R}/pulls/${SPEC_PR}`, `GET ${R}/contents/docs/specs?ref=${ref}`];
}

describe('a writer marks one plan issue blocked by another while the spec PR is open', () => {
  it('commits the depends_on change on the spec PR branch, and says on the issue that it is pending', async () => {
    const github = await synced(false);
    const from = github.requests.length;
    link(github, 102, 101, true);

    await testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 101, WRITER));

    const head = github.branches.get('changes')!;
    expect(head).not.toBe(HEAD);
    expect(github.parents(head)).toEqual([HEAD]);
    expect(github.message(head)).toBe(
      "SPC-042: 01-02 depends on 01-01\n\nProposed by harness from @octo-writer's change to the plan issues' dependencies on GitHub.",
    );
    expect(github.fileAt(head, PLAN_02)).toBe(github.fileAt(HEAD, PLAN_02)!.replace('depends_on: []', 'depends_on: ["01-01"]'));
    expect(github.log(from)).toEqual([
      SPEC_ISSUES,
      `GET ${R}/issues/102/dependencies/blocked_by?per_page=100`,
      ...specReads('changes'),
      `GET ${R}/collaborators/octo-writer/permission`,
      `GET ${R}/git/ref/heads/changes`,
      `GET ${R}/contents/${PLAN_02}?ref=${HEAD}`,
      `GET ${R}/git/commits/${HEAD}`,
      `POST ${R}/git/trees`,
      `POST ${R}/git/commits`,
      `PATCH ${R}/git/refs/heads/changes`,
      `GET ${R}/issues/102/comments?per_page=100`,
      `POST ${R}/issues/102/comments`,
      `GET ${R}/issues/102/comments?per_page=100`,
    ]);
    expect(github.requests.slice(from).find((r) => r.method === 'PATCH')?.body).toEqual({ sha: head, force: false });
    const [comment] = graphComments(github, 102);
    expect(comment!.body).toBe(
      [
        '<!-- harness:graph SPC-042/01-02 01-01 -->',
        `**Pending:** @octo-writer made #102 (01-02) blocked by #101 (01-01) here. harness proposed it to the spec as a commit (${head.slice(0, 7)}) on the spec's pull request #${SPEC_PR}: \`depends_on\` of \`${PLAN_02}\` gains \`"01-01"\`.`,
        '',
        "Until a person merges that, the spec stays the truth: harness schedules 01-02 by the spec's `depends_on`, not by this link.",
      ].join('\n'),
    );
    // The writer's link stays: it is what the proposal says.
    expect(blockers(github, 102)).toEqual([101]);
  });

  it("the commit's push syncs the plan issues as any push to the spec PR: the writer's link becomes the mirror's", async () => {
    const github = await synced(false);
    link(github, 102, 101, true);
    await testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 101, WRITER));
    const head = github.branches.get('changes')!;
    const payload = webhookExample<PullRequestPayload & { before?: string; after?: string }>('pull_request', (p) => p.action === 'synchronize');
    Object.assign(payload, { before: HEAD, after: head });
    payload.pull_request.head.sha = head;
    const from = github.requests.length;

    await testProbot().receive({ id: 'the-commit-pushed', name: 'pull_request', payload } as never);

    expect(github.issue(102).labels).toContain('needs:01-01');
    expect(github.issue(102).body).toMatch(/^<!-- harness:plan SPC-042\/01-02 hash=[0-9a-f]{16} blocked_by=01-01 pr=2 parent=100 -->\n/);
    expect(github.writes(from).filter((w) => w.url.includes('/dependencies/'))).toEqual([]);
    expect(blockers(github, 102)).toEqual([101]);
    expect(github.checkRuns.find((r) => r.head_sha === head)?.conclusion).toBe('success');
  });

  it('does it once: the same change delivered again, and as its blocking_added twin, commits and comments nothing more', async () => {
    const github = await synced(false);
    link(github, 102, 101, true);
    await testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 101, WRITER));
    const head = github.branches.get('changes');
    const from = github.requests.length;

    await testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 101, WRITER, 'again'));
    await testProbot().receive(dependencyEvent(github, 'blocking_added', 102, 101, WRITER));

    expect(github.branches.get('changes')).toBe(head);
    expect(github.writes(from)).toEqual([]);
    expect(graphComments(github, 102)).toHaveLength(1);
  });

  it('refuses a dependency that would close a cycle, naming it, and takes the link away', async () => {
    const github = await synced(false);
    link(github, 102, 103, true);

    await testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 103, WRITER));

    expect(github.branches.get('changes')).toBe(HEAD);
    expect(blockers(github, 102)).toEqual([]);
    const [comment] = graphComments(github, 102);
    expect(comment!.body).toContain(
      '<!-- harness:graph SPC-042/01-02 01-03 -->\nharness removed the link that made #102 (01-02) blocked by #103 (01-03) (@octo-writer) and proposed nothing',
    );
    expect(comment!.body).toContain('dependency cycle: 01-02 → 01-03 → 01-02');
  });
});

describe('a change to the links after the spec was merged', () => {
  it("a writer's added blocked_by: the spec's proposals PR (harness/graph/SPC-042) changes depends_on, once, and the issue says it is pending", async () => {
    const github = await synced(true);
    const from = github.requests.length;
    link(github, 102, 101, true);

    await testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 101, WRITER));

    const branch = 'harness/graph/SPC-042';
    expect(github.pullRequests).toMatchObject([
      { head: branch, base: 'master', state: 'open', title: 'SPC-042: dependency changes made on GitHub', labels: ['harness:graph'] },
    ]);
    const pr = github.pullRequests[0]!.number;
    expect(github.fileAt(branch, PLAN_02)).toContain('depends_on: ["01-01"]');
    expect(github.fileAt('master', PLAN_02)).toContain('depends_on: []');
    expect(github.log(from)).toEqual([
      SPEC_ISSUES,
      `GET ${R}/issues/102/dependencies/blocked_by?per_page=100`,
      ...specReads('master'),
      `GET ${R}/collaborators/octo-writer/permission`,
      // Any proposal pending with it, for the check (none yet).
      `GET ${R}/pulls?head=Codertocat:${branch}&state=open&per_page=100`,
      `GET ${R}/pulls?head=Codertocat:${branch}&state=all&per_page=100`,
      `GET ${R}/git/ref/heads/${branch}`,
      `GET ${R}/git/ref/heads/master`,
      `GET ${R}/contents/${PLAN_02}?ref=${HEAD}`,
      `GET ${R}/git/commits/${HEAD}`,
      `POST ${R}/git/trees`,
      `POST ${R}/git/commits`,
      `POST ${R}/git/refs`,
      `POST ${R}/pulls`,
      `POST ${R}/issues/${pr}/labels`,
      `GET ${R}/issues/102/comments?per_page=100`,
      `POST ${R}/issues/102/comments`,
      `GET ${R}/issues/102/comments?per_page=100`,
    ]);
    expect(graphComments(github, 102).map((c) => c.body.split('\n')[1])).toEqual([
      `**Pending:** @octo-writer made #102 (01-02) blocked by #101 (01-01) here. harness proposed it to the spec as pull request #${pr}, which proposes this spec's graph changes: \`depends_on\` of \`${PLAN_02}\` gains \`"01-01"\`.`,
    ]);

    // Delivered again (and a crash-free resend of its twin): no second commit, PR or comment.
    const again = github.requests.length;
    const tip = github.branches.get(branch);
    await testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 101, WRITER, 'redelivery'));
    await testProbot().receive(dependencyEvent(github, 'blocking_added', 102, 101, WRITER));
    expect(github.writes(again)).toEqual([]);
    expect(github.branches.get(branch)).toBe(tip);
    expect(github.pullRequests).toHaveLength(1);
  });

  it("a second writer's change goes to the same proposals PR, one commit more", async () => {
    const github = await synced(true);
    link(github, 102, 101, true);
    await testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 101, WRITER));
    link(github, 103, 102, false);

    await testProbot().receive(dependencyEvent(github, 'blocked_by_removed', 103, 102, WRITER));

    expect(github.pullRequests).toHaveLength(1);
    const branch = 'harness/graph/SPC-042';
    expect(github.fileAt(branch, PLAN_02)).toContain('depends_on: ["01-01"]');
    expect(github.fileAt(branch, PLAN_03)).toContain('depends_on: []');
    expect(github.message(github.branches.get(branch)!)).toMatch(/^SPC-042: 01-03 no longer depends on 01-02\n/);
    expect(graphComments(github, 103).map((c) => c.body.split('\n')[1])).toEqual([
      `**Pending:** @octo-writer made #103 (01-03) no longer blocked by #102 (01-02) here. harness proposed it to the spec as pull request #${github.pullRequests[0]!.number}, which proposes this spec's graph changes: \`depends_on\` of \`${PLAN_03}\` loses \`"01-02"\`.`,
    ]);
  });

  it('refuses a change that closes a cycle with a proposal still pending, naming it', async () => {
    const github = await synced(true);
    link(github, 102, 101, true);
    await testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 101, WRITER));
    const tip = github.branches.get('harness/graph/SPC-042');
    link(github, 101, 102, true);

    await testProbot().receive(dependencyEvent(github, 'blocked_by_added', 101, 102, WRITER));

    expect(github.branches.get('harness/graph/SPC-042')).toBe(tip);
    expect(blockers(github, 101)).toEqual([]);
    expect(blockers(github, 102)).toEqual([101]);
    expect(graphComments(github, 101)[0]!.body).toContain('dependency cycle: 01-01 → 01-02 → 01-01');
  });

  it("a reader's added blocked_by is taken away, with a comment that says why and how to propose it", async () => {
    const github = await synced(true);
    const from = github.requests.length;
    link(github, 102, 101, true);

    await testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 101, READER));

    expect(blockers(github, 102)).toEqual([]);
    expect(github.pullRequests).toEqual([]);
    expect(github.writes(from).map((w) => `${w.method} ${w.url}`)).toEqual([
      `DELETE ${R}/issues/102/dependencies/blocked_by/${github.issue(101).id}`,
      `POST ${R}/issues/102/comments`,
    ]);
    expect(graphComments(github, 102).map((c) => c.body)).toEqual([
      [
        '<!-- harness:graph SPC-042/01-02 01-01 -->',
        "harness removed the link that made #102 (01-02) blocked by #101 (01-01): @octo-reader has no write access to this repository, which a change to a plan's dependencies needs. The spec says what each plan depends on, and it does not have this dependency.",
        '',
        `To propose it, change \`depends_on\` in \`${PLAN_02}\` in a pull request, or ask someone with write access to add the link here: harness turns their change into a proposal to the spec.`,
      ].join('\n'),
    ]);

    // The App's own removal comes back as blocked_by_removed from its bot: not a person's change (its login is remembered: no request at all).
    const after = github.requests.length;
    await testProbot().receive(dependencyEvent(github, 'blocked_by_removed', 102, 101, APP_BOT));
    expect(github.log(after)).toEqual([]);
  });

  it("a reader's removed blocked_by is put back as the spec has it, with a comment", async () => {
    const github = await synced(true);
    const from = github.requests.length;
    link(github, 103, 102, false);

    await testProbot().receive(dependencyEvent(github, 'blocked_by_removed', 103, 102, READER));

    expect(blockers(github, 103)).toEqual([102]);
    expect(github.writes(from).map((w) => `${w.method} ${w.url}`)).toEqual([`POST ${R}/issues/103/dependencies/blocked_by`, `POST ${R}/issues/103/comments`]);
    expect(github.writes(from)[0]!.body).toEqual({ issue_id: github.issue(102).id });
    expect(graphComments(github, 103)[0]!.body).toContain(
      'harness restored the link that made #103 (01-03) no longer blocked by #102 (01-02): @octo-reader has no write access',
    );
  });

  it('a bot other than the App is put back like a reader, whatever its role', async () => {
    const github = await synced(true);
    github.roles.set(OTHER_BOT.login, 'admin');
    link(github, 102, 101, true);

    await testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 101, OTHER_BOT));

    expect(blockers(github, 102)).toEqual([]);
    expect(graphComments(github, 102)[0]!.body).toContain(
      "@renovate[bot] is a bot, and only the harness App and people with write access change a plan's dependencies",
    );
  });

  it("a delivery that comes after the link changed again does nothing: GitHub's links as they are decide", async () => {
    const github = await synced(true);
    const from = github.requests.length;

    // Added and taken away again before the delivery arrived.
    await testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 101, WRITER));

    expect(github.writes(from)).toEqual([]);
    expect(github.log(from)).toEqual([SPEC_ISSUES, `GET ${R}/issues/102/dependencies/blocked_by?per_page=100`]);
  });
});

describe('a crash between two writes, then the event again', () => {
  const branch = 'harness/graph/SPC-042';
  it.each([`POST ${R}/git/refs`, `POST ${R}/pulls`, `POST ${R}/issues/102/comments`])(
    'failing at %s, converges on one commit, one PR and one comment',
    async (crashAt) => {
      const github = await synced(true);
      link(github, 102, 101, true);
      // A comment is created once (create-once.ts): the delivery fails only when both tries fail, GitHub making nothing.
      const times = crashAt.endsWith('/comments') ? 2 : 1;
      let failures = 0;
      github.fail = (method, url) => {
        if (failures >= times || `${method} ${url}` !== crashAt) return undefined;
        failures++;
        return 500;
      };
      const failed = () => failures === times;

      await expect(testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 101, WRITER))).rejects.toThrow();
      await testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 101, WRITER, 'redelivered'));
      await testProbot().receive(dependencyEvent(github, 'blocking_added', 102, 101, WRITER));

      expect(failed()).toBe(true);
      expect(github.pullRequests.map((p) => [p.head, p.state])).toEqual([[branch, 'open']]);
      const tip = github.branches.get(branch)!;
      expect(github.parents(tip)).toEqual([HEAD]);
      expect(github.fileAt(tip, PLAN_02)).toContain('depends_on: ["01-01"]');
      expect(graphComments(github, 102)).toHaveLength(1);
      expect(graphComments(github, 102)[0]!.body).toContain('**Pending:**');
    },
  );

  it('failing at the push to the spec PR, commits once when the event comes again', async () => {
    const github = await synced(false);
    link(github, 102, 101, true);
    let failed = false;
    github.fail = (method, url) => (!failed && `${method} ${url}` === `PATCH ${R}/git/refs/heads/changes` ? ((failed = true), 500) : undefined);

    await expect(testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 101, WRITER))).rejects.toThrow();
    expect(github.branches.get('changes')).toBe(HEAD);
    await testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 101, WRITER, 'redelivered'));

    const tip = github.branches.get('changes')!;
    expect(github.parents(tip)).toEqual([HEAD]);
    expect(github.fileAt(tip, PLAN_02)).toContain('depends_on: ["01-01"]');
    expect(graphComments(github, 102)).toHaveLength(1);
  });
});

describe('a link added by hand that no event told the App about (an App run by Actions gets none)', () => {
  /** A push to the spec PR that changes the spec (01-01's title), as GitHub delivers `pull_request.synchronize`. */
  function pushToSpecPr(github: FakeGitHub, sha: string) {
    const files = { 'README.md': '# Hello\n', 'docs/specs/README.md': 'Specs live here.\n' };
    github.commit(sha, { ...files, ...specAt(DIR, specOf([{ ...PLANS[0]!, title: 'Reset tokens, signed' }, ...PLANS.slice(1)])) }, [HEAD]);
    github.branches.set('changes', sha);
    const payload = webhookExample<PullRequestPayload & { before?: string; after?: string }>('pull_request', (p) => p.action === 'synchronize');
    payload.before = HEAD;
    payload.after = sha;
    payload.pull_request.head.sha = sha;
    return { id: `push-${sha}`, name: 'pull_request', payload } as never;
  }

  it('is taken away at the next sync of the spec, which says so on the issue and how to propose it', async () => {
    const github = await synced(false);
    link(github, 102, 101, true);

    await testProbot().receive(pushToSpecPr(github, 'c0ffee0000000000000000000000000000000001'));

    expect(blockers(github, 102)).toEqual([]);
    expect(graphComments(github, 102).map((c) => c.body)).toEqual([
      [
        '<!-- harness:graph SPC-042/01-02 01-01 -->',
        `harness removed the link that made #102 (01-02) blocked by #101 (01-01) when it synced the spec from #${SPEC_PR}: the spec does not have this dependency, and harness saw no event saying who added the link, so it could not propose it.`,
        '',
        `To propose it, change \`depends_on\` in \`${PLAN_02}\` in a pull request.`,
      ].join('\n'),
    ]);
    // The spec's own link (01-03 on 01-02) is the mirror's: untouched, and nothing said about it.
    expect(blockers(github, 103)).toEqual([102]);
    expect(graphComments(github, 103)).toEqual([]);
  });

  it("leaves a writer's pending proposal as it is: the link goes with the sync, the proposal stays", async () => {
    const github = await synced(true);
    link(github, 102, 101, true);
    await testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 101, WRITER));
    const pending = graphComments(github, 102)[0]!.body;
    // A later spec PR of the same spec, from master, before the proposals PR is merged.
    github.pulls.set(SPEC_PR, {
      base: { ref: 'master', full_name: 'Codertocat/Hello-World' },
      head: { ref: 'changes', full_name: 'Codertocat/Hello-World' },
      state: 'open',
      merged: false,
    });

    await testProbot().receive(pushToSpecPr(github, 'c0ffee0000000000000000000000000000000002'));

    expect(blockers(github, 102)).toEqual([]);
    expect(graphComments(github, 102).map((c) => c.body)).toEqual([pending]);
    expect(github.pullRequests.map((p) => p.state)).toEqual(['open']);
  });
});

describe('the scheduler acts on the merged spec only', () => {
  /** `/harness execute all`, by the writer, on the spec's plan issue #101. */
  function executeAll(github: FakeGitHub) {
    const payload = webhookExample<{ comment: Record<string, unknown>; issue: Record<string, unknown>; sender: Record<string, unknown> }>(
      'issue_comment',
      (p) => p.action === 'created',
    );
    Object.assign(payload.comment, { id: 9001, body: '/harness execute all', user: { ...(payload.comment.user as object), ...WRITER } });
    Object.assign(payload.sender, WRITER);
    Object.assign(payload.issue, issueJson(github, github.issue(101)));
    return { id: 'execute-all', name: 'issue_comment', payload } as never;
  }

  function graphMerged(github: FakeGitHub, pr: number) {
    const payload = webhookExample<{ pull_request: Record<string, unknown> & { head: Record<string, unknown>; base: Record<string, unknown> } }>(
      'pull_request',
      (p) => p.action === 'closed',
    );
    Object.assign(payload.pull_request, { number: pr, merged: true, state: 'closed' });
    payload.pull_request.head.ref = 'harness/graph/SPC-042';
    payload.pull_request.base.ref = 'master';
    return { id: `merged-${pr}`, name: 'pull_request', payload } as never;
  }

  it('while the proposal is pending, 01-02 starts with 01-01: the link a writer added is not yet the spec', async () => {
    const github = await synced(true);
    link(github, 102, 101, true);
    await testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 101, WRITER));

    await testProbot().receive(executeAll(github));

    expect(dispatched(github)).toEqual(['01-01', '01-02']);
    expect(github.issue(103).labels).toContain('status:blocked');
  });

  it('merged, the proposal is the spec: the plan issues are synced from it, the comment says so, and 01-02 waits for 01-01', async () => {
    const github = await synced(true);
    link(github, 102, 101, true);
    await testProbot().receive(dependencyEvent(github, 'blocked_by_added', 102, 101, WRITER));
    const pr = github.pullRequests[0]!.number;
    github.merge(pr);
    const from = github.requests.length;

    await testProbot().receive(graphMerged(github, pr));

    expect(github.issue(102).labels).toContain('needs:01-01');
    expect(github.issue(102).body).toMatch(/^<!-- harness:plan SPC-042\/01-02 hash=[0-9a-f]{16} blocked_by=01-01 pr=2 parent=100 -->\n/);
    expect(github.issue(102).body).toContain('**Depends on:** #101 (01-01)');
    // The writer's link is the mirror's now: no second one written.
    expect(github.writes(from).filter((w) => w.url.includes('/dependencies/'))).toEqual([]);
    expect(blockers(github, 102)).toEqual([101]);
    expect(graphComments(github, 102).map((c) => c.body)).toEqual([
      '<!-- harness:graph SPC-042/01-02 01-01 -->\nNo change pending: the spec has 01-02 depending on 01-01, and the link between #102 and #101 says the same.',
    ]);

    await testProbot().receive(executeAll(github));

    expect(dispatched(github)).toEqual(['01-01']);
    expect(github.issue(102).labels).toContain('status:blocked');
  });
});

describe('a plan issue moved in the issue tree', () => {
  it("under another plan issue by a writer: that plan's depends_on gains it, proposed like a blocked-by link", async () => {
    const github = await synced(true);
    // #102 moved from the spec's issue #100 under #101: 01-01 is done when 01-02 is.
    github.subIssues.set(
      100,
      github.subIssues.get(100)!.filter((id) => id !== github.issue(102).id),
    );
    github.subIssues.set(101, [github.issue(102).id]);

    await testProbot().receive(subIssueEvent(github, 'parent_issue_added', 102, 101, WRITER));

    expect(github.fileAt('harness/graph/SPC-042', `${DIR}/planning/plans/01-phase/01-01-PLAN.md`)).toContain('depends_on: ["01-02"]');
    expect(graphComments(github, 101).map((c) => c.body.split('\n')[0])).toEqual(['<!-- harness:graph SPC-042/01-01 01-02 -->']);
  });

  it("under another plan issue by a reader: put back under the spec's issue, nothing proposed, a comment on the would-be dependent", async () => {
    const github = await synced(true);
    const from = github.requests.length;
    github.subIssues.set(
      100,
      github.subIssues.get(100)!.filter((id) => id !== github.issue(102).id),
    );
    github.subIssues.set(101, [github.issue(102).id]);

    await testProbot().receive(subIssueEvent(github, 'sub_issue_added', 102, 101, READER));

    expect(github.subIssueNumbers(100)).toContain(102);
    expect(github.subIssueNumbers(101)).toEqual([]);
    expect(github.pullRequests).toEqual([]);
    expect(github.writes(from).map((w) => `${w.method} ${w.url}`)).toEqual([`POST ${R}/issues/101/comments`, `POST ${R}/issues/100/sub_issues`]);
    expect(github.writes(from)[1]!.body).toEqual({ sub_issue_id: github.issue(102).id, replace_parent: true });
    expect(graphComments(github, 101)[0]!.body.split('\n')[1]).toBe(
      "harness put #102 (01-02) back where the spec has it, out from under #101 (01-01): @octo-reader has no write access to this repository, which a change to a plan's dependencies needs. The spec says what each plan depends on, and it does not have this dependency.",
    );
  });

  it("out of the spec's issue by a reader: put back, with a comment", async () => {
    const github = await synced(true);
    const from = github.requests.length;
    github.subIssues.set(
      100,
      github.subIssues.get(100)!.filter((id) => id !== github.issue(102).id),
    );

    await testProbot().receive(subIssueEvent(github, 'sub_issue_removed', 102, 100, READER));

    expect(github.subIssueNumbers(100)).toContain(102);
    expect(github.writes(from).map((w) => `${w.method} ${w.url}`)).toEqual([`POST ${R}/issues/100/sub_issues`, `POST ${R}/issues/102/comments`]);
    expect(github.comments.find((c) => c.issue === 102 && c.body.startsWith('<!-- harness:graph-parent SPC-042/01-02 -->'))?.body).toContain(
      'harness put this issue back under #100: @octo-reader has no write access',
    );
  });

  it("by the App itself (its own mirror) is no one's change", async () => {
    const github = await synced(true);
    const from = github.requests.length;

    await testProbot().receive(subIssueEvent(github, 'sub_issue_added', 102, 100, APP_BOT));
    await testProbot().receive(subIssueEvent(github, 'sub_issue_removed', 102, 101, APP_BOT));

    expect(github.writes(from)).toEqual([]);
  });
});
