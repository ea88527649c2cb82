import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { specCheckReport } from '../../../app/engine/forge/spec-check-report.js';
import { statusComment } from '../../../app/engine/forge/status-comment.js';
import { loadSpec } from '../../../app/engine/core/spec/load.js';
import { readSpecFiles } from '../../../app/machine/spec-files.js';
import { problem } from '../../../app/engine/core/spec/problem.js';
import { CHECK_RUN_TEXT_MAX } from '../../../app/gateway/limits.js';
import { ANNOTATION_MESSAGE_MAX_BYTES, ANNOTATION_TITLE_MAX } from '../../../app/gateway/check-runs.js';
import { FakeGitHub, specAt } from '../../helpers/github-repo.js';
import { githubApi, testProbot, webhookExample } from '../../helpers/probot.js';
import { SPEC_MD, specFiles, specOf, type PlanOptions } from '../../helpers/spec.js';
import { EXAMPLE_SPEC } from '../../helpers/paths.js';

/**
 * Step 1 of docs/github-flow.md, driven through Probot with real `pull_request` payloads
 * from @octokit/webhooks-examples (Codertocat/Hello-World, PR #2, branch `changes` into
 * `master`), adapted only where a test needs another head commit. GitHub is a fake at the
 * HTTP level (test/helpers/github-repo.ts) that records every request, so each test states
 * exactly which requests a delivery makes, in order, and that it makes no other.
 */

interface PullRequestPayload {
  action: string;
  number: number;
  before?: string;
  after?: string;
  pull_request: {
    number: number;
    head: { sha: string; ref: string; repo: { full_name: string } | null };
    base: { sha: string; ref: string; repo: { full_name: string } };
  };
}

function pullRequest(action: 'opened' | 'synchronize' | 'reopened', head?: string): PullRequestPayload {
  const payload = webhookExample<PullRequestPayload>('pull_request', (p) => p.action === action);
  if (head) {
    // A later push: the one field of the payload a new commit changes.
    payload.before = payload.pull_request.head.sha;
    payload.after = head;
    payload.pull_request.head.sha = head;
  }
  return payload;
}

const OPENED = pullRequest('opened');
const HEAD = OPENED.pull_request.head.sha;
const BASE = OPENED.pull_request.base.sha;
const PUSHED = 'c0ffee0000000000000000000000000000000001';
const R = '/repos/Codertocat/Hello-World';
const DIR = 'docs/specs/SPC-042-password-reset';
const BLOB = expect.stringMatching(new RegExp(`^GET ${R}/git/blobs/[0-9a-f]{40}$`));

const PLANS: PlanOptions[] = [
  { id: '01-01', title: 'Reset tokens' },
  { id: '01-02', title: 'Reset endpoint', dependsOn: ['01-01'] },
  { id: '02-01', title: 'Reset email', dependsOn: ['01-02'] },
];

/** A repository whose base has no spec and whose head (and any later commit given) has one. */
function repository(plans: PlanOptions[] = PLANS): FakeGitHub {
  const github = new FakeGitHub();
  github.config = 'specs_root: docs/specs\n';
  github.commit(BASE, { 'README.md': '# Hello\n', 'docs/specs/README.md': 'Specs live here.\n' });
  github.commit(HEAD, { 'README.md': '# Hello\n', 'docs/specs/README.md': 'Specs live here.\n', ...specAt(DIR, specOf(plans)) });
  github.install();
  return github;
}

function push(github: FakeGitHub, sha: string, plans: PlanOptions[]): void {
  github.commit(sha, { 'README.md': '# Hello\n', 'docs/specs/README.md': 'Specs live here.\n', ...specAt(DIR, specOf(plans)) });
}

async function deliver(payload: PullRequestPayload, id = 'delivery-1'): Promise<void> {
  await testProbot().receive({ id, name: 'pull_request', payload } as never);
}

/** The reads every spec PR delivery on a new commit makes before any write. */
function discovery(head: string, tree: string, blobs: number): unknown[] {
  return [
    `GET ${R}/commits/${head}/check-runs?check_name=harness / spec`,
    `GET ${R}/contents/.github/harness.yml`,
    `GET ${R}/contents/docs/specs?ref=${head}`,
    `GET ${R}/contents/docs/specs?ref=${BASE}`,
    `GET ${R}/compare/${BASE}...${head}?per_page=1`,
    `GET ${R}/git/trees/${tree}?recursive=1`,
    // The files' blobs: a few by REST, three or more in one GraphQL query (gateway/blobs.ts, getBlobs).
    ...(blobs >= 3 ? ['POST /graphql'] : Array.from({ length: blobs }, () => BLOB)),
  ];
}

const SPEC_ISSUES = `GET ${R}/issues?labels=harness:plan,spec:SPC-042&state=all&direction=asc&per_page=100`;
/** The one read that says whether any of a spec's issues changed since the sync's check run completed. */
const changedSince = (spec: string) =>
  expect.stringMatching(new RegExp(`^GET ${R}/issues\\?labels=harness:plan,spec:${spec}&state=all&since=\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z&per_page=1$`));
const LABELS = [
  'harness:plan',
  'status:ready',
  'status:running',
  'status:blocked',
  'status:checkpoint',
  'status:verified',
  'status:failed',
  'harness:phase-failed',
];

const SPEC_TRACKING = `GET ${R}/issues?labels=harness:spec,spec:SPC-042&state=all&direction=asc&per_page=100`;

/**
 * A plan issue's marker line; `pr` is the spec PR it records (its status comment is the one
 * rounds refresh), `parent` the spec's tracking issue it is a sub-issue of (none: '').
 */
function marker(plan: string, blockedBy = '', pr = '\\d+', parent = '100', verified = '', after = ''): RegExp {
  return new RegExp(
    `^<!-- harness:plan SPC-042/${plan} hash=[0-9a-f]{16}${blockedBy ? ` blocked_by=${blockedBy}` : ''} pr=${pr}${parent ? ` parent=${parent}` : ''}${verified ? ` verified=${verified}` : ''}${after} -->\n`,
  );
}

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('a spec pull request, first sync', () => {
  it('validates the spec, creates one issue per plan in dependency order, mirrors each need, comments the status and passes the check', async () => {
    const github = repository();
    const tree = github.treeAt(HEAD, DIR)!;
    await deliver(OPENED);

    expect(github.log()).toEqual([
      ...discovery(HEAD, tree, 4),
      `POST ${R}/check-runs`,
      // Who the App is (one question, remembered): its plan issues are those its bot opened.
      `POST /graphql`,
      SPEC_ISSUES,
      // Plans about to get issues: any issue of theirs that lost its labels is found by the App's login first.
      `GET ${R}/issues?creator=harness[bot]&state=all&direction=asc&per_page=100`,
      `GET ${R}/labels?per_page=100`,
      ...LABELS.map(() => `POST ${R}/labels`),
      // The spec's tracking issue first (#100), so each plan issue records it as it is created.
      SPEC_TRACKING,
      `POST ${R}/issues`,
      `POST ${R}/issues`,
      `POST ${R}/issues/100/sub_issues`,
      `POST ${R}/issues`,
      `POST ${R}/issues/100/sub_issues`,
      `POST ${R}/issues/102/dependencies/blocked_by`,
      `POST ${R}/issues`,
      `POST ${R}/issues/100/sub_issues`,
      `POST ${R}/issues/103/dependencies/blocked_by`,
      // GitHub has no conditional create: what the sync created is read again, in case another delivery created it too.
      SPEC_ISSUES,
      SPEC_TRACKING,
      `GET ${R}/issues/2/comments?per_page=100`,
      `POST ${R}/issues/2/comments`,
      // The same for the status comment: the oldest of the App's stays.
      `GET ${R}/issues/2/comments?per_page=100`,
      `PATCH ${R}/check-runs/1`,
    ]);

    const writes = github.writes();
    expect(writes[0]!.body).toEqual({
      name: 'harness / spec',
      head_sha: HEAD,
      status: 'in_progress',
      external_id: `SPC-042@${tree}`,
      output: { title: 'Syncing plan issues', summary: 'harness has validated SPC-042 and is bringing the plan issues in step with it (3 plans).' },
    });
    expect(writes.slice(1, 9).map((w) => w.body)).toEqual([
      { name: 'harness:plan', color: '5319e7', description: 'A plan of a harness spec' },
      { name: 'status:ready', color: '0e8a16', description: 'harness: dependencies verified; may start' },
      { name: 'status:running', color: 'fbca04', description: 'harness: a worker is on it' },
      { name: 'status:blocked', color: 'bfd4f2', description: 'harness: waiting for the plans it needs' },
      { name: 'status:checkpoint', color: 'd876e3', description: 'harness: waiting for a person' },
      { name: 'status:verified', color: '1d76db', description: 'harness: passed plan-level verification' },
      { name: 'status:failed', color: 'b60205', description: 'harness: failed; /harness retry to try again' },
      { name: 'harness:phase-failed', color: 'd93f0b', description: 'harness: its phase failed phase-level verification' },
    ]);
    expect(writes[9]).toEqual({
      method: 'POST',
      url: `${R}/issues`,
      body: {
        title: '[SPC-042] Password reset',
        body: [
          '<!-- harness:spec SPC-042 -->',
          `**Spec** [SPC-042 Password reset](https://github.com/Codertocat/Hello-World/blob/master/${DIR}/SPEC.md)`,
          '',
          "Each plan of this spec is one of this issue's sub-issues; a plan's issue closes when its work is verified and merged, so the sub-issue progress bar is the spec's progress. harness keeps this list in step with the spec: edit the spec, not the list.",
        ].join('\n'),
        labels: ['harness:spec', 'spec:SPC-042'],
      },
    });
    // Created with no status label (planned, not queued); each knows its dependencies' numbers
    // and its parent, and becomes a sub-issue by its id (not its number) before its edges.
    expect(writes.slice(10, 18)).toEqual([
      {
        method: 'POST',
        url: `${R}/issues`,
        body: { title: '[01-01] Reset tokens', body: expect.stringMatching(marker('01-01')), labels: ['harness:plan', 'phase:01', 'spec:SPC-042'] },
      },
      { method: 'POST', url: `${R}/issues/100/sub_issues`, body: { sub_issue_id: github.issue(101).id } },
      {
        method: 'POST',
        url: `${R}/issues`,
        body: {
          title: '[01-02] Reset endpoint',
          body: expect.stringMatching(marker('01-02', '01-01')),
          labels: ['harness:plan', 'needs:01-01', 'phase:01', 'spec:SPC-042'],
        },
      },
      { method: 'POST', url: `${R}/issues/100/sub_issues`, body: { sub_issue_id: github.issue(102).id } },
      { method: 'POST', url: `${R}/issues/102/dependencies/blocked_by`, body: { issue_id: github.issue(101).id } },
      {
        method: 'POST',
        url: `${R}/issues`,
        body: {
          title: '[02-01] Reset email',
          body: expect.stringMatching(marker('02-01', '01-02')),
          labels: ['harness:plan', 'needs:01-02', 'phase:02', 'spec:SPC-042'],
        },
      },
      { method: 'POST', url: `${R}/issues/100/sub_issues`, body: { sub_issue_id: github.issue(103).id } },
      { method: 'POST', url: `${R}/issues/103/dependencies/blocked_by`, body: { issue_id: github.issue(102).id } },
    ]);
    expect(github.subIssueNumbers(100)).toEqual([101, 102, 103]);
    expect(github.subIssuesSummary(100)).toEqual({ total: 3, completed: 0, percent_completed: 0 });
    expect(github.issue(103).body).toContain('**Depends on:** #102 (01-02)');
    expect(github.issue(102).body).toMatchSnapshot('issue body of 01-02');
    expect(github.comments).toHaveLength(1);
    expect(github.comments[0]!.body).toMatchSnapshot('status comment');

    expect(writes.at(-1)!.body).toEqual({
      status: 'completed',
      conclusion: 'success',
      output: {
        title: 'SPC-042: 3 plans valid',
        summary: [
          `### SPC-042 Password reset · \`${DIR}\``,
          '',
          '✅ Valid: 3 plans in 2 phases, 2 dependencies.',
          '',
          'Plan issues: 3 created (#101, #102, #103).',
          'Native issue dependencies (blocked by): 2 added.',
          'Spec tracking issue #100: created; sub-issues 3 added.',
        ].join('\n'),
      },
    });
    expect(github.blockedBy).toEqual(
      new Map([
        [102, new Set([github.issue(101).id])],
        [103, new Set([github.issue(102).id])],
      ]),
    );
  });

  it("says in the check run when GitHub's issue dependencies are not available, relies on the labels, and is not green: the next delivery tries again", async () => {
    const github = repository();
    github.dependencies = 404;
    await deliver(OPENED);

    const issueWrites = github.writes().filter((w) => w.url.startsWith(`${R}/issues`) && !w.url.endsWith('/comments'));
    expect(issueWrites.map((w) => `${w.method} ${w.url}`)).toEqual([
      `POST ${R}/issues`,
      `POST ${R}/issues`,
      `POST ${R}/issues/100/sub_issues`,
      `POST ${R}/issues`,
      `POST ${R}/issues/100/sub_issues`,
      // The one try: the answer is 404, so the record on #102 is put right and nothing more is tried.
      `POST ${R}/issues/102/dependencies/blocked_by`,
      `PATCH ${R}/issues/102`,
      `POST ${R}/issues`,
      `POST ${R}/issues/100/sub_issues`,
      // The sync created issues, so it reads them again (another delivery may have been creating them too) and tries once more.
      `POST ${R}/issues/102/dependencies/blocked_by`,
    ]);
    expect(issueWrites[6]!.body).toEqual({ body: expect.stringMatching(marker('01-02')) });
    expect(github.issue(103).body).toMatch(marker('02-01'));
    expect(github.issue(103).labels).toContain('needs:01-02');
    const run = github.checkRuns[0]!;
    // Not every write GitHub holds was made: neutral, and no external_id, so that no later delivery takes it for done.
    expect(run).toMatchObject({ conclusion: 'neutral', external_id: '' });
    expect(run.output.summary).toContain("GitHub's issue dependencies are not available to harness here");
    expect(run.output.summary).toContain('GitHub did not take every write this sync made');
  });
  it("says in the check run when GitHub's sub-issues are not available, and is not green: the next delivery tries again", async () => {
    const github = repository();
    github.subIssuesAnswer = 404;
    await deliver(OPENED);

    const issueWrites = github.writes().filter((w) => w.url.startsWith(`${R}/issues`) && !w.url.endsWith('/comments'));
    expect(issueWrites.map((w) => `${w.method} ${w.url}`)).toEqual([
      `POST ${R}/issues`,
      `POST ${R}/issues`,
      // The one try: 404, so the record on #101 is put right and no sub-issue is tried again.
      `POST ${R}/issues/100/sub_issues`,
      `PATCH ${R}/issues/101`,
      `POST ${R}/issues`,
      `POST ${R}/issues/102/dependencies/blocked_by`,
      `POST ${R}/issues`,
      `POST ${R}/issues/103/dependencies/blocked_by`,
      // Read again after creating (another delivery may have been creating them too), and tried once more.
      `POST ${R}/issues/100/sub_issues`,
    ]);
    expect(issueWrites[3]!.body).toEqual({ body: expect.stringMatching(marker('01-01', '', '\\d+', '')) });
    expect(github.issue(103).body).toMatch(marker('02-01', '01-02', '\\d+', ''));
    const run = github.checkRuns[0]!;
    expect(run).toMatchObject({ conclusion: 'neutral', external_id: '' });
    expect(run.output.summary).toContain(
      "Spec tracking issue #100: created.\nGitHub's sub-issues are not available to harness here, so the plan issues are not listed under the spec's tracking issue #100",
    );
  });

  it('adds no more sub-issues than GitHub holds under one issue (100): a phase of 103 plans holds 100, spends no request on the rest, and says so; a push that adds a plan tries none', async () => {
    const plans: PlanOptions[] = Array.from({ length: 103 }, (_, i) => ({ id: `01-${String(i + 1).padStart(3, '0')}`, title: `Plan ${i + 1}` }));
    const github = repository(plans);
    // A window of 200: all 103 plans have issues at once.
    github.config = 'specs_root: docs/specs\nissue_window: 200\n';
    await deliver(OPENED);

    // More plans than one issue holds: the tracking issue (#100) holds the phase's issue (#101), which holds the plans.
    expect(github.subIssueNumbers(100)).toEqual([101]);
    expect(github.subIssueNumbers(101)).toHaveLength(100);
    // The phase's issue put under the tracking issue by REST; each of the 100 plan issues created under the phase's issue in one GraphQL request (createIssue, parentIssueId).
    expect(github.writes().filter((w) => w.url.endsWith('/sub_issues'))).toHaveLength(1);
    const createdUnder = github
      .writes()
      .filter((w) => w.url === '/graphql' && (w.body as { variables?: { input?: { parentIssueId?: string } } }).variables?.input?.parentIssueId === 'I_900101');
    expect(createdUnder).toHaveLength(100);
    expect(github.writes().filter((w) => w.method === 'POST' && w.url === `${R}/issues`)).toHaveLength(1 + 1 + 3);
    // No parent recorded for the three left out, and no write to correct a plan issue's record.
    expect(github.writes().filter((w) => w.method === 'PATCH' && /\/issues\/\d+$/.test(w.url) && w.url !== `${R}/issues/101`)).toEqual([]);
    expect(github.issues.filter((i) => i.labels.includes('harness:plan') && !/ parent=101 /.test(i.body ?? ''))).toHaveLength(3);
    expect(github.issue(101).body).toContain('GitHub holds at most 100 sub-issues per issue: the other 3 plan issues of this phase are not listed under it');
    expect(github.checkRuns[0]!.output.summary).toContain(
      "GitHub holds at most 100 sub-issues per issue: 3 more plan issues are not listed under their phase's issue, and the labels `spec:` and `phase:` find every one.",
    );

    push(github, PUSHED, [...plans, { id: '01-104', title: 'Plan 104' }]);
    const before = github.requests.length;
    await deliver(pullRequest('synchronize', PUSHED), 'delivery-2');
    expect(github.writes(before).filter((w) => w.url.endsWith('/sub_issues'))).toEqual([]);
    expect(github.writes(before).filter((w) => w.method === 'POST' && w.url === `${R}/issues`)).toHaveLength(1);
  });
});

describe('a spec pull request, synced again', () => {
  it('a redelivered webhook (same X-GitHub-Delivery) reads the check run and whether any issue changed since, and writes nothing', async () => {
    const github = repository();
    await deliver(OPENED, 'delivery-1');
    const before = github.requests.length;
    const state = JSON.stringify([github.issues, github.comments, github.checkRuns, [...github.blockedBy]]);

    await deliver(OPENED, 'delivery-1');

    expect(github.log(before)).toEqual([`GET ${R}/commits/${HEAD}/check-runs?check_name=harness / spec`, changedSince('SPC-042')]);
    expect(JSON.stringify([github.issues, github.comments, github.checkRuns, [...github.blockedBy]])).toBe(state);
  });

  it('a reopened PR on the same commit is the same: two reads, no write, and no request beyond them', async () => {
    const github = repository();
    await deliver(OPENED);
    const check = github.checkRuns.map((r) => ({
      id: r.id,
      name: r.name,
      head_sha: r.head_sha,
      external_id: r.external_id,
      status: r.status,
      conclusion: r.conclusion,
      output: { ...r.output, annotations_count: 0 },
    }));
    // What GitHub lists under harness:plan,spec:SPC-042: the plan issues, not the tracking issue.
    const issues = [...github.issues]
      .filter((i) => i.labels.includes('harness:plan'))
      .reverse()
      .map((i) => ({ ...i, user: { login: 'harness[bot]', type: 'Bot' }, labels: i.labels.map((name) => ({ name })) }));
    nock.cleanAll();

    // Only these two interceptors: with the network blocked, any other request fails the delivery.
    const scope = githubApi()
      .get(`${R}/commits/${HEAD}/check-runs`)
      .query({ check_name: 'harness / spec' })
      .reply(200, { total_count: 1, check_runs: check })
      .get(`${R}/issues`)
      .query({ labels: 'harness:plan,spec:SPC-042', state: 'all', direction: 'asc', per_page: '100' })
      .reply(200, issues)
      // Who the App is, asked once per installation (the example payloads come from two): its plan issues are its bot's.
      .post('/graphql', { query: 'query { viewer { login } }' })
      .optionally()
      .reply(200, { data: { viewer: { login: 'harness[bot]' } } });
    await deliver(pullRequest('reopened'), 'delivery-2');
    expect(scope.pendingMocks()).toEqual([]);
  });

  it("a push that leaves the spec as it was carries the previous commit's result over: one write, and the spec is not read again", async () => {
    const github = repository();
    await deliver(OPENED);
    push(github, PUSHED, PLANS);
    const before = github.requests.length;

    await deliver(pullRequest('synchronize', PUSHED), 'delivery-2');

    expect(github.log(before)).toEqual([
      `GET ${R}/commits/${PUSHED}/check-runs?check_name=harness / spec`,
      `GET ${R}/contents/.github/harness.yml`,
      `GET ${R}/contents/docs/specs?ref=${PUSHED}`,
      `GET ${R}/contents/docs/specs?ref=${BASE}`,
      `GET ${R}/compare/${BASE}...${PUSHED}?per_page=1`,
      `GET ${R}/commits/${HEAD}/check-runs?check_name=harness / spec`,
      // Who the App is, for its plan issues (the example payloads come from two installations, each asked once).
      `POST /graphql`,
      SPEC_ISSUES,
      `POST ${R}/check-runs`,
    ]);
    expect(github.writes(before)[0]!.body).toEqual({
      name: 'harness / spec',
      head_sha: PUSHED,
      status: 'completed',
      conclusion: 'success',
      external_id: `SPC-042@${github.treeAt(HEAD, DIR)}`,
      output: {
        title: 'SPC-042: 3 plans valid',
        summary: expect.stringMatching(/^The specs are as they were at ec26c3e, which harness validated and synced: nothing new to write\.\n\n### SPC-042/),
      },
    });
  });

  it('a push that leaves the spec as it was, after a result with warnings, validates again to annotate the new commit', async () => {
    const github = repository([...PLANS, { id: '02-02', dependsOn: ['01-01', '01-01'] }]);
    await deliver(OPENED);
    expect(github.checkRuns[0]!.annotations).toHaveLength(1);
    push(github, PUSHED, [...PLANS, { id: '02-02', dependsOn: ['01-01', '01-01'] }]);
    const before = github.requests.length;

    await deliver(pullRequest('synchronize', PUSHED), 'delivery-2');

    expect(github.writes(before).map((w) => `${w.method} ${w.url}`)).toEqual([`POST ${R}/check-runs`, `PATCH ${R}/check-runs/${github.checkRuns[1]!.id}`]);
    expect(github.checkRuns[1]!.annotations).toEqual([
      expect.objectContaining({ annotation_level: 'warning', message: 'depends_on lists "01-01" twice; list it once' }),
    ]);
  });

  it('a changed spec updates only what changed: one PATCH for an edited plan, one create for a new one, a note and a close for a removed one', async () => {
    const github = repository();
    await deliver(OPENED);
    // 01-02 renamed, 02-01 removed, 02-02 added (needing 01-01).
    push(github, PUSHED, [PLANS[0]!, { ...PLANS[1]!, title: 'Reset endpoint with rate limit' }, { id: '02-02', title: 'Audit log', dependsOn: ['01-01'] }]);
    const before = github.requests.length;

    await deliver(pullRequest('synchronize', PUSHED), 'delivery-2');

    const writes = github.writes(before);
    expect(writes.map((w) => `${w.method} ${w.url}`)).toEqual([
      `POST ${R}/check-runs`,
      `PATCH ${R}/issues/102`,
      `POST ${R}/issues`,
      `POST ${R}/issues/100/sub_issues`,
      `POST ${R}/issues/104/dependencies/blocked_by`,
      `POST ${R}/issues/103/comments`,
      // A removed plan's issue leaves the tracking issue: closed, it would count as progress.
      `DELETE ${R}/issues/100/sub_issue`,
      `PATCH ${R}/issues/103`,
      `PATCH ${R}/issues/comments/${github.comments[0]!.id}`,
      `PATCH ${R}/check-runs/${github.checkRuns[1]!.id}`,
    ]);
    expect(writes[1]!.body).toEqual({ title: '[01-02] Reset endpoint with rate limit', body: expect.stringMatching(marker('01-02', '01-01')) });
    expect(writes[2]!.body).toEqual({
      title: '[02-02] Audit log',
      body: expect.stringMatching(marker('02-02', '01-01')),
      labels: ['harness:plan', 'needs:01-01', 'phase:02', 'spec:SPC-042'],
    });
    expect(writes[3]!.body).toEqual({ sub_issue_id: github.issue(104).id });
    expect(writes[4]!.body).toEqual({ issue_id: github.issue(101).id });
    expect(writes[5]!.body).toEqual({
      body: [
        '<!-- harness:removed SPC-042/02-01 -->',
        'Plan 02-01 is no longer in spec SPC-042 (changed in #2), so harness closes this issue as not planned.',
        'It is closed, not deleted: its history stays here, and if the plan comes back to the spec, the next sync reopens this issue.',
      ].join('\n'),
    });
    expect(writes[6]!.body).toEqual({ sub_issue_id: github.issue(103).id });
    // The App's record that the plan left the spec (`removed=` the spec PR) goes with the close: a round reads it, never the state.
    expect(writes[7]!.body).toEqual({
      state: 'closed',
      state_reason: 'not_planned',
      body: expect.stringMatching(marker('02-01', '01-02', '\\d+', '', '', ' removed=\\d+')),
    });
    expect(github.issues.map((i) => [i.number, i.state, i.state_reason])).toEqual([
      [100, 'open', null],
      [101, 'open', null],
      [102, 'open', null],
      [103, 'closed', 'not_planned'],
      [104, 'open', null],
    ]);
    expect(github.subIssueNumbers(100)).toEqual([101, 102, 104]);
    expect(github.checkRuns[1]!.output.summary).toContain('Plan issues: 1 created (#104); 1 updated (#102); 1 closed as no longer planned (#103).');
    expect(github.checkRuns[1]!.output.summary).toContain('Spec tracking issue #100: sub-issues 1 added, 1 taken out (closed plans).');

    // The plan comes back as it was: its issue is reopened, not created again.
    push(github, 'c0ffee0000000000000000000000000000000002', [...PLANS, { id: '02-02', title: 'Audit log', dependsOn: ['01-01'] }]);
    const again = github.requests.length;
    await deliver(pullRequest('synchronize', 'c0ffee0000000000000000000000000000000002'), 'delivery-3');
    expect(
      github
        .writes(again)
        .filter((w) => w.url.startsWith(`${R}/issues/10`))
        .map((w) => [`${w.method} ${w.url}`, w.body]),
    ).toEqual([
      [`PATCH ${R}/issues/102`, { title: '[01-02] Reset endpoint', body: expect.stringMatching(marker('01-02', '01-01')) }],
      // Back in the spec, back under its tracking issue, in the order it was added.
      [`POST ${R}/issues/100/sub_issues`, { sub_issue_id: github.issue(103).id }],
      [`PATCH ${R}/issues/103`, { body: expect.stringMatching(marker('02-01', '01-02')), state: 'open' }],
    ]);
    expect(github.subIssueNumbers(100)).toEqual([101, 102, 104, 103]);
  });

  it('files work done before harness (a plan marked completed, as GSD imports have it) as verified and closed, never to be dispatched', async () => {
    const done = { ...PLANS[0]!, extra: 'completed: "2026-03-01"' };
    const github = repository([done, PLANS[1]!, PLANS[2]!]);
    await deliver(OPENED);

    const writes = github.writes().filter((w) => w.url.startsWith(`${R}/issues/101`) || w.url === `${R}/issues`);
    expect(writes.slice(1, 3).map((w) => [`${w.method} ${w.url}`, w.body])).toEqual([
      // On record as done by the spec (`verified=spec`): the only issues a round counts as done carry such a record.
      [
        `POST ${R}/issues`,
        {
          title: '[01-01] Reset tokens',
          body: expect.stringMatching(marker('01-01', '', '\\d+', '100', 'spec', ' status=verified')),
          labels: ['harness:plan', 'phase:01', 'spec:SPC-042', 'status:verified'],
        },
      ],
      [`PATCH ${R}/issues/101`, { state: 'closed', state_reason: 'completed' }],
    ]);
    expect(github.issues.map((i) => [i.number, i.state, i.state_reason])).toEqual([
      [100, 'open', null],
      [101, 'closed', 'completed'],
      [102, 'open', null],
      [103, 'open', null],
    ]);
    // Done before harness is progress too: the tracking issue's bar starts at one of three.
    expect(github.subIssuesSummary(100)).toEqual({ total: 3, completed: 1, percent_completed: 33 });

    // Marked done later (the plan's issue open, no worker on it): verified and closed the same way.
    push(github, PUSHED, [done, { ...PLANS[1]!, extra: 'completed: true' }, PLANS[2]!]);
    const before = github.requests.length;
    await deliver(pullRequest('synchronize', PUSHED), 'delivery-2');
    expect(
      github
        .writes(before)
        .filter((w) => w.url.startsWith(`${R}/issues/102`))
        .map((w) => [`${w.method} ${w.url}`, w.body]),
    ).toEqual([
      [`PATCH ${R}/issues/102`, { body: expect.stringMatching(marker('01-02', '01-01', '\\d+', '100', 'spec')) }],
      [`PATCH ${R}/issues/102`, { state: 'closed', state_reason: 'completed' }],
    ]);
    // Between them, the status record and its label in one GraphQL request: the record first.
    expect(github.labelMutations(before)).toEqual(['#102 +status:verified']);
    expect(github.issue(102).body).toMatch(new RegExp(marker('01-02', '01-01', '\\d+', '100', 'spec', ' status=verified')));
    expect(github.issue(102)).toMatchObject({ state: 'closed', state_reason: 'completed', labels: expect.arrayContaining(['status:verified']) });
  });

  it("keeps people's labels and the status label, and moves native dependencies with the needs", async () => {
    const github = repository();
    await deliver(OPENED);
    github.issue(103).labels.push('status:running', 'good first issue');
    push(github, PUSHED, [PLANS[0]!, PLANS[1]!, { ...PLANS[2]!, dependsOn: ['01-01'] }]);
    const before = github.requests.length;

    await deliver(pullRequest('synchronize', PUSHED), 'delivery-2');

    expect(github.writes(before).filter((w) => w.url.startsWith(`${R}/issues/103`))).toEqual([
      { method: 'DELETE', url: `${R}/issues/103/dependencies/blocked_by/${github.issue(102).id}` },
      { method: 'POST', url: `${R}/issues/103/dependencies/blocked_by`, body: { issue_id: github.issue(101).id } },
      { method: 'PATCH', url: `${R}/issues/103`, body: { body: expect.stringMatching(marker('02-01', '01-01')) } },
      // harness's own labels change one at a time: the status and people's labels are never sent, so none set meanwhile is undone.
      { method: 'POST', url: `${R}/issues/103/labels`, body: { labels: ['needs:01-01'] } },
      { method: 'DELETE', url: `${R}/issues/103/labels/needs:01-02` },
    ]);
    expect(github.issue(103).labels).toEqual(['harness:plan', 'phase:02', 'spec:SPC-042', 'status:running', 'good first issue', 'needs:01-01']);
    expect(github.blockedBy.get(103)).toEqual(new Set([github.issue(101).id]));
  });

  it("keeps each worker run's account (runs=) when the plan is rewritten: the status comment's timeline and spend are not lost", async () => {
    const github = repository();
    await deliver(OPENED);
    const runs = ' runs=42.1:1796461200:600:45:30-480:480-590:v:claude:0.42:3:1200:80';
    github.issue(103).body = github.issue(103).body!.replace(' -->', ` status=running${runs} -->`);
    push(github, PUSHED, [PLANS[0]!, PLANS[1]!, { ...PLANS[2]!, dependsOn: ['01-01'] }]);
    const before = github.requests.length;

    await deliver(pullRequest('synchronize', PUSHED), 'delivery-2');

    const rewrite = github.writes(before).find((w) => w.method === 'PATCH' && w.url === `${R}/issues/103`)!;
    expect((rewrite.body as { body: string }).body.split('\n')[0]).toMatch(new RegExp(` status=running${runs.replace(/[.]/g, '\\.')} -->$`));
    expect(github.issue(103).body!.split('\n')[0]).toContain(runs);
  });

  it('puts back what someone edited by hand, and closes a duplicate left by two racing deliveries', async () => {
    const github = repository();
    await deliver(OPENED);
    // Edits through GitHub, a person's and the racing delivery's, update the issues' updated_at.
    const later = new Date(Date.now() + 60_000).toISOString();
    github.issue(101).title = 'Reset tokens (edited)';
    github.issue(101).updated_at = later;
    // The racing delivery's copy of 01-02, made a sub-issue of the same tracking issue.
    const copy = { ...github.issue(102), id: 900_104, number: 104, labels: [...github.issue(102).labels], updated_at: later };
    github.issues.push(copy);
    github.subIssues.get(100)!.push(copy.id);
    github.nextIssue = 105;
    const before = github.requests.length;

    // Same commit: the check run says done, but the issues are not as harness left them.
    await deliver(OPENED, 'delivery-2');

    expect(github.writes(before).filter((w) => w.url.startsWith(`${R}/issues/10`))).toEqual([
      { method: 'PATCH', url: `${R}/issues/101`, body: { title: '[01-01] Reset tokens' } },
      { method: 'DELETE', url: `${R}/issues/100/sub_issue`, body: { sub_issue_id: copy.id } },
      {
        method: 'PATCH',
        url: `${R}/issues/104`,
        body: { state: 'closed', state_reason: 'duplicate', body: expect.stringMatching(marker('01-02', '01-01', '\\d+', '')) },
      },
    ]);
    expect(github.subIssueNumbers(100)).toEqual([101, 102, 103]);
  });
  it("finds a plan issue someone with the triage role took the plan's labels off by the App's login: the next sync puts the labels back and opens no second issue", async () => {
    const github = repository();
    await deliver(OPENED);
    // 01-01 verified, as its record says; then its labels taken off, so that a listing by labels no longer finds it.
    github.issue(101).body = github.issue(101).body!.replace(/ -->/, ' verified=7 status=verified -->');
    github.issue(101).labels = ['status:verified'];
    push(github, PUSHED, [PLANS[0]!, { ...PLANS[1]!, title: 'Reset endpoint v2' }, PLANS[2]!]);
    const before = github.requests.length;

    await deliver(pullRequest('synchronize', PUSHED), 'delivery-2');

    expect(github.log(before)).toContain(`GET ${R}/issues?creator=harness[bot]&state=all&direction=asc&per_page=100`);
    expect(github.writes(before).filter((w) => w.method === 'POST' && w.url === `${R}/issues`)).toEqual([]);
    expect(github.writes(before).filter((w) => w.url.startsWith(`${R}/issues/101`))).toEqual([
      { method: 'POST', url: `${R}/issues/101/labels`, body: { labels: ['harness:plan', 'phase:01', 'spec:SPC-042'] } },
    ]);
    expect(github.issues.filter((i) => i.labels.includes('harness:plan')).map((i) => i.number)).toEqual([101, 102, 103]);
    expect(github.issue(101).body).toContain('verified=7');
  });

  it("takes no issue another App or a person opened with the spec's labels and marker for its tracking issue", async () => {
    const github = repository();
    // Opened before the first sync, labelled as a spec's tracking issue, its marker naming a tree of someone's choosing.
    github.issues.push({
      id: 900_050,
      number: 50,
      title: 'SPC-042 tracking',
      body: `<!-- harness:spec SPC-042 tree=${'e'.repeat(40)} -->`,
      labels: ['harness:spec', 'spec:SPC-042'],
      state: 'open',
      state_reason: null,
      user: { login: 'renovate[bot]', type: 'Bot' },
    });

    await deliver(OPENED);

    // The App's own tracking issue is made, and the plans are its sub-issues; the other one is left as it was.
    expect(github.issue(100).labels).toEqual(expect.arrayContaining(['harness:spec', 'spec:SPC-042']));
    expect(github.subIssueNumbers(100)).toEqual([101, 102, 103]);
    expect(github.subIssueNumbers(50)).toEqual([]);
    expect(github.issue(50).state).toBe('open');
    expect(github.writes().filter((w) => w.url.startsWith(`${R}/issues/50`))).toEqual([]);
  });

  it('two racing first syncs leave two tracking issues: the next sync that writes keeps the lowest, closes the other and moves its plan issues over', async () => {
    const github = repository();
    await deliver(OPENED);
    // The racing delivery's tracking issue, which 02-01's issue was added to.
    const racing = { ...github.issue(100), id: 900_104, number: 104, labels: [...github.issue(100).labels] };
    github.issues.push(racing);
    github.nextIssue = 105;
    github.subIssues.set(100, [github.issue(101).id, github.issue(102).id]);
    github.subIssues.set(104, [github.issue(103).id]);
    github.issue(103).body = github.issue(103).body!.replace(' parent=100 ', ' parent=104 ');
    push(github, PUSHED, [PLANS[0]!, { ...PLANS[1]!, title: 'Reset endpoint v2' }, PLANS[2]!]);
    const before = github.requests.length;

    await deliver(pullRequest('synchronize', PUSHED), 'delivery-2');

    expect(github.log(before)).toContain(SPEC_TRACKING);
    expect(
      github
        .writes(before)
        .filter((w) => w.url.startsWith(`${R}/issues/10`))
        .map((w) => [`${w.method} ${w.url}`, w.body]),
    ).toEqual([
      [`PATCH ${R}/issues/104`, { state: 'closed', state_reason: 'duplicate' }],
      [`PATCH ${R}/issues/102`, { title: '[01-02] Reset endpoint v2', body: expect.stringMatching(marker('01-02', '01-01')) }],
      // Its record names the duplicate: moved, not refused for having a parent already.
      [`POST ${R}/issues/100/sub_issues`, { sub_issue_id: github.issue(103).id, replace_parent: true }],
      [`PATCH ${R}/issues/103`, { body: expect.stringMatching(marker('02-01', '01-02')) }],
    ]);
    expect(github.subIssueNumbers(100)).toEqual([101, 102, 103]);
    expect(github.subIssueNumbers(104)).toEqual([]);
    expect(github.checkRuns.at(-1)!.output.summary).toContain('Spec tracking issue #100: 1 duplicate closed (#104); sub-issues 1 added.');
  });
});

describe('failures and several specs', () => {
  it('a delivery that fails halfway leaves a failed check run the next delivery does not trust, and that delivery finishes the sync', async () => {
    const github = repository();
    let creates = 0;
    // The tracking issue and two plan issues are made; the third plan's fails twice, each time without GitHub making it (create-once.ts looks, finds none, tries once more).
    github.fail = (method, url) => (method === 'POST' && url === `${R}/issues` && [4, 5].includes(++creates) ? 500 : undefined);
    await expect(deliver(OPENED, 'delivery-1')).rejects.toThrow();
    expect(github.issues.map((i) => i.number)).toEqual([100, 101, 102]);
    expect(github.checkRuns[0]).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      external_id: '',
      output: { title: 'harness could not finish the sync' },
    });

    github.fail = () => undefined;
    const before = github.requests.length;
    await deliver(OPENED, 'delivery-1');

    expect(
      github
        .writes(before)
        .filter((w) => w.url.startsWith(`${R}/issues`))
        .map((w) => `${w.method} ${w.url}`),
    ).toEqual([`POST ${R}/issues`, `POST ${R}/issues/100/sub_issues`, `POST ${R}/issues/103/dependencies/blocked_by`, `POST ${R}/issues/2/comments`]);
    expect(github.issues.map((i) => i.title)).toEqual(['[SPC-042] Password reset', '[01-01] Reset tokens', '[01-02] Reset endpoint', '[02-01] Reset email']);
    expect(github.subIssueNumbers(100)).toEqual([101, 102, 103]);
    expect(github.checkRuns.at(-1)).toMatchObject({ conclusion: 'success', external_id: `SPC-042@${github.treeAt(HEAD, DIR)}` });
  });

  it('a PR changing two specs syncs the valid one, annotates the other, and fails the one check run that covers both', async () => {
    const github = repository();
    const other = 'docs/specs/SPC-050-invoices';
    const broken = specOf([{ id: '01-01', dependsOn: ['01-07'] }]).map((f) =>
      f.path === 'SPEC.md' ? { ...f, bytes: new TextEncoder().encode('---\nid: SPC-050\ntitle: Invoices\n---\n') } : f,
    );
    github.commit(HEAD, { 'README.md': '# Hello\n', ...specAt(DIR, specOf(PLANS)), ...specAt(other, broken) });
    await deliver(OPENED);

    const run = github.checkRuns[0]!;
    expect(run).toMatchObject({
      conclusion: 'failure',
      external_id: `SPC-042@${github.treeAt(HEAD, DIR)} SPC-050@${github.treeAt(HEAD, other)}`,
      output: { title: '1 of 2 specs: 1 error' },
    });
    expect(run.annotations).toEqual([expect.objectContaining({ path: `${other}/planning/plans/01-phase/01-01-PLAN.md`, start_line: 4 })]);
    // SPC-042's tracking issue and plan issues; nothing for the broken SPC-050.
    expect(github.issues.map((i) => i.labels.find((l) => l.startsWith('spec:')))).toEqual(['spec:SPC-042', 'spec:SPC-042', 'spec:SPC-042', 'spec:SPC-042']);

    // Redelivered: the check run names both specs, so both specs' issues are read, and nothing is written.
    const before = github.requests.length;
    await deliver(OPENED);
    expect(github.log(before)).toEqual([`GET ${R}/commits/${HEAD}/check-runs?check_name=harness / spec`, changedSince('SPC-042'), changedSince('SPC-050')]);
  });
});

describe('an invalid spec', () => {
  it('fails the check with one annotation per problem, at its file and line, and writes no issue', async () => {
    const github = repository([
      { id: '01-01', extra: 'timeout_minutes: -5' },
      { id: '01-02', dependsOn: ['01-09'] },
    ]);
    await deliver(OPENED);

    const writes = github.writes();
    expect(writes).toHaveLength(1);
    expect(writes[0]).toEqual({
      method: 'POST',
      url: `${R}/check-runs`,
      body: {
        name: 'harness / spec',
        head_sha: HEAD,
        status: 'completed',
        conclusion: 'failure',
        external_id: `SPC-042@${github.treeAt(HEAD, DIR)}`,
        output: {
          title: 'SPC-042: 2 errors',
          summary: expect.stringContaining('❌ 2 errors: fix them and push; nothing was synced.'),
          annotations: [
            {
              path: `${DIR}/planning/plans/01-phase/01-01-PLAN.md`,
              start_line: 8,
              end_line: 8,
              annotation_level: 'failure',
              message: 'timeout_minutes is the number -5; it must be whole minutes from 1 to 360 (GitHub-hosted jobs stop after six hours)',
              title: 'harness: field-value',
            },
            {
              path: `${DIR}/planning/plans/01-phase/01-02-PLAN.md`,
              start_line: 4,
              end_line: 4,
              annotation_level: 'failure',
              message: 'depends_on "01-09" is not a plan in this spec; did you mean "01-01"?',
              title: 'harness: unknown-dependency',
            },
          ],
        },
      },
    });
    expect(github.issues).toEqual([]);
  });

  it("sends 120 problems as annotations in batches of 50, completing the run with the last, the summary within GitHub's limit", async () => {
    // Malformed ids, a problem each (unknown dependencies are reported twenty to a plan since issue 10).
    const deps = Array.from({ length: 120 }, (_, i) => `  - "09_${String(i + 1).padStart(2, '0')}"`);
    const plan = [
      '---',
      'plan_id: "01-01"',
      'title: Many unknowns',
      'depends_on:',
      ...deps,
      'files_modified: ["src/a.ts"]',
      'must_pass:',
      '  - { id: tests, type: tests_pass, command: "npm test" }',
      '---',
      '# Many unknowns',
      '',
    ].join('\n');
    const github = repository([]);
    github.commit(HEAD, specAt(DIR, specFiles({ 'SPEC.md': SPEC_MD, 'planning/plans/01-core/01-01-PLAN.md': plan })));
    await deliver(OPENED);

    const writes = github.writes() as {
      method: string;
      url: string;
      body: { status?: string; conclusion?: string; output: { summary: string; annotations: { start_line: number }[] } };
    }[];
    expect(writes.map((w) => [w.method, w.url, w.body.status, w.body.conclusion, w.body.output.annotations.length])).toEqual([
      ['POST', `${R}/check-runs`, 'in_progress', undefined, 50],
      ['PATCH', `${R}/check-runs/1`, undefined, undefined, 50],
      ['PATCH', `${R}/check-runs/1`, 'completed', 'failure', 20],
    ]);
    expect(writes.flatMap((w) => w.body.output.annotations.map((a) => a.start_line))).toEqual(Array.from({ length: 120 }, (_, i) => 5 + i));
    for (const w of writes) expect(w.body.output.summary.length).toBeLessThanOrEqual(CHECK_RUN_TEXT_MAX);
    expect(github.checkRuns[0]!.annotations).toHaveLength(120);
  });

  it('keeps the summary within 65,535 characters however many problems there are, and counts what it leaves out', () => {
    const problems = Array.from({ length: 5_000 }, (_, i) =>
      problem(`planning/plans/01-core/01-${i}-PLAN.md`, i + 1, 'field-value', `problem ${i}: ${'x'.repeat(200)}`),
    );
    const report = specCheckReport([{ path: DIR, name: 'SPC-042', problems, valid: false }], [], {
      summaryMax: CHECK_RUN_TEXT_MAX,
      messageMaxBytes: ANNOTATION_MESSAGE_MAX_BYTES,
      titleMax: ANNOTATION_TITLE_MAX,
    });
    expect(report.summary.length).toBeLessThanOrEqual(CHECK_RUN_TEXT_MAX);
    expect(report.summary).toMatch(/- …and \d+ more: every problem is an annotation on this check run\.$/);
    expect(report.annotations).toHaveLength(5_000);
  });
});

describe('configuration', () => {
  it('reports a .github/harness.yml with wrong values as warnings and syncs with the defaults', async () => {
    const github = repository();
    github.config = 'specs_root: 42\nslots: 0\n';
    await deliver(OPENED);

    const run = github.checkRuns[0]!;
    expect(run.conclusion).toBe('success');
    expect(run.annotations).toEqual([
      expect.objectContaining({ path: '.github/harness.yml', start_line: 1, annotation_level: 'warning', message: expect.stringContaining('specs_root') }),
      expect.objectContaining({ path: '.github/harness.yml', start_line: 1, annotation_level: 'warning', message: expect.stringContaining('slots') }),
    ]);
    expect(run.output.summary).toContain('The configuration has problems; the defaults were used where it is wrong.');
    expect(github.issues.filter((i) => i.labels.includes('harness:plan'))).toHaveLength(3);
  });

  it('reports a .github/harness.yml that is not YAML at all the same way', async () => {
    const github = repository();
    github.config = 'specs_root: [docs\n';
    await deliver(OPENED);

    const run = github.checkRuns[0]!;
    expect(run.conclusion).toBe('success');
    expect(run.annotations).toEqual([
      expect.objectContaining({ path: '.github/harness.yml', start_line: 1, annotation_level: 'warning', message: expect.stringContaining('invalid YAML') }),
    ]);
    expect(github.issues.filter((i) => i.labels.includes('harness:plan'))).toHaveLength(3);
  });

  it('looks for specs under specs_root', async () => {
    const github = repository([]);
    github.config = 'specs_root: plans\n';
    github.commit(HEAD, specAt('plans/SPC-042-password-reset', specOf(PLANS)));
    await deliver(OPENED);
    expect(github.log()).toContain(`GET ${R}/contents/plans?ref=${HEAD}`);
    expect(github.issues.filter((i) => i.labels.includes('harness:plan'))).toHaveLength(3);
  });
});

describe('what is not a spec change', () => {
  it('a PR that changes no spec gets no check run and no write', async () => {
    const github = repository();
    github.commit(HEAD, { 'README.md': '# Hello again\n', 'docs/specs/README.md': 'Specs live here.\n' });
    await deliver(OPENED);
    expect(github.log()).toEqual([
      `GET ${R}/commits/${HEAD}/check-runs?check_name=harness / spec`,
      `GET ${R}/contents/.github/harness.yml`,
      `GET ${R}/contents/docs/specs?ref=${HEAD}`,
      `GET ${R}/contents/docs/specs?ref=${BASE}`,
    ]);
  });

  it("harness's own plan branches are left alone, without a request", async () => {
    const github = repository();
    const payload = pullRequest('opened');
    payload.pull_request.head.ref = 'harness/SPC-042/01-01';
    await deliver(payload);
    expect(github.requests).toEqual([]);
  });

  it("a spec changed on the base branch after the PR branched off is not this PR's to sync", async () => {
    const github = repository();
    const other = 'docs/specs/SPC-050-invoices';
    const fork = 'f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0';
    const old = specAt(
      other,
      specOf([{ id: '01-01', title: 'Invoice model' }]).map((f) =>
        f.path === 'SPEC.md' ? { ...f, bytes: new TextEncoder().encode('---\nid: SPC-050\ntitle: Invoices\n---\n') } : f,
      ),
    );
    github.commit(fork, { 'README.md': '# Hello\n', ...old });
    // The base branch moved on: another PR changed SPC-050 there. The head still has the old copy.
    github.commit(BASE, { 'README.md': '# Hello\n', ...old, [`${other}/planning/plans/01-phase/01-02-PLAN.md`]: specOf([{ id: '01-02' }])[1]!.bytes });
    github.commit(HEAD, { 'README.md': '# Hello\n', ...old, ...specAt(DIR, specOf(PLANS)) });
    github.mergeBases.set(`${BASE}...${HEAD}`, fork);
    await deliver(OPENED);

    expect(github.log().slice(2, 7)).toEqual([
      `GET ${R}/contents/docs/specs?ref=${HEAD}`,
      `GET ${R}/contents/docs/specs?ref=${BASE}`,
      `GET ${R}/compare/${BASE}...${HEAD}?per_page=1`,
      `GET ${R}/contents/docs/specs?ref=${fork}`,
      `GET ${R}/git/trees/${github.treeAt(HEAD, DIR)}?recursive=1`,
    ]);
    expect(github.checkRuns[0]!.external_id).toBe(`SPC-042@${github.treeAt(HEAD, DIR)}`);
    expect(github.issues.every((i) => i.labels.includes('spec:SPC-042'))).toBe(true);
  });

  it('a PR from a fork is validated, and writes no issue', async () => {
    const github = repository();
    const payload = pullRequest('opened');
    payload.pull_request.head.repo = { full_name: 'someone/Hello-World' };
    await deliver(payload);

    expect(github.writes().map((w) => `${w.method} ${w.url}`)).toEqual([`POST ${R}/check-runs`]);
    expect(github.checkRuns[0]!.conclusion).toBe('success');
    expect(github.checkRuns[0]!.output.summary).toContain('comes from a fork');
  });
});

describe('reading a spec', () => {
  it('walks only the directories that hold inputs when GitHub truncates the recursive tree', async () => {
    const github = repository();
    github.truncateTrees = true;
    await deliver(OPENED);

    const trees = github.log().filter((l) => l.includes('/git/trees/'));
    expect(trees).toHaveLength(6); // recursive (truncated), the spec, planning/, planning/plans/, 01-phase/, 02-phase/
    expect(github.issues.map((i) => i.title)).toEqual(['[SPC-042] Password reset', '[01-01] Reset tokens', '[01-02] Reset endpoint', '[02-01] Reset email']);
  });
});

describe('the status comment', async () => {
  const spec = loadSpec(await readSpecFiles(EXAMPLE_SPEC)).spec!;
  const statuses: Record<string, string> = {
    '01-01': 'verified',
    '01-02': 'verified',
    '01-03': 'running',
    '02-01': 'checkpoint',
    '02-02': 'ready',
    '02-03': 'blocked',
    '02-04': 'failed',
  };
  // The App's records on each marker line (verified=, status=), the labels their view: ready and blocked are both `queued`.
  const record = (status: string | undefined) =>
    status === undefined
      ? ''
      : status === 'verified'
        ? ' verified=7 status=verified'
        : ` status=${status === 'ready' || status === 'blocked' ? 'queued' : status}`;
  const issues = new Map(
    spec.plans.map((p, i) => [
      p.id,
      {
        number: 10 + i,
        body: `<!-- harness:plan SPC-001/${p.id}${record(statuses[p.id])} -->`,
        labels: ['harness:plan', ...(statuses[p.id] ? [`status:${statuses[p.id]}`] : [])],
      },
    ]),
  );

  it("shows progress per phase, the graph coloured by each plan's recorded status, and plan → issue → status", () => {
    expect(statusComment(spec, issues, 65_536)).toMatchSnapshot();
  });

  it('counts a spec of one plan in the singular', () => {
    const one = loadSpec(specOf([{ id: '01-01' }])).spec!;
    expect(statusComment(one, new Map([['01-01', { number: 10, labels: ['harness:plan'], body: '<!-- harness:plan SPC-001/01-01 -->' }]]), 65_536)).toContain(
      '**0 of 1 plan verified**',
    );
  });

  it("leaves out the plan table, then the graph, rather than go over a comment's size", () => {
    const full = statusComment(spec, issues, 65_536);
    const noTable = statusComment(spec, issues, full.length - 1);
    expect(noTable.length).toBeLessThan(full.length);
    expect(noTable).toContain('```mermaid');
    expect(noTable).not.toContain('| Plan | Issue | Status | Needs |');
    const bare = statusComment(spec, issues, noTable.length - 1);
    expect(bare).not.toContain('```mermaid');
    expect(bare.startsWith('<!-- harness:status SPC-001 -->\n')).toBe(true);
  });
});
