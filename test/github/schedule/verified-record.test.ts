import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub, type FakeIssue } from '../../helpers/github-repo.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';

/**
 * Which plans are done is decided from what only harness and writers can produce, never from
 * labels and issue state, which the triage role can set (issue 24, 1): a triager who closes a
 * plan's issue as completed and labels it `status:verified` satisfies nothing, and the App
 * puts the issue back as it was; a merged plan PR is on record on the marker line
 * (`verified=<PR>`), which only the App and writers can edit.
 */

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const SPEC = 'SPC-001';
const BASE = 'ba5e000000000000000000000000000000000001';

function planBody(plan: string, needs: string[], records = ''): string {
  const text = [
    '---',
    `plan_id: "${plan}"`,
    `title: Plan ${plan}`,
    `depends_on: [${needs.map((d) => `"${d}"`).join(', ')}]`,
    `files_modified: ["src/${plan}.ts"]`,
    'must_pass:',
    `  - { id: exists, type: file_exists, path: "src/${plan}.ts" }`,
    '---',
    '',
    'Do the work.',
  ].join('\n');
  return [
    `<!-- harness:plan ${SPEC}/${plan} hash=0123456789abcdef${records} -->`,
    `**Spec** ${SPEC}`,
    '',
    '<details><summary>The plan</summary>',
    '',
    '````markdown',
    text,
    '````',
    '',
    '</details>',
  ].join('\n');
}

function planIssue(number: number, plan: string, needs: string[], labels: string[]): FakeIssue {
  return {
    id: 9000 + number,
    number,
    title: `[${plan}] Plan ${plan}`,
    body: planBody(plan, needs),
    labels: ['harness:plan', `spec:${SPEC}`, 'phase:01', ...needs.map((d) => `needs:${d}`), ...labels],
    state: 'open',
    state_reason: null,
  };
}

/** 01-02 needs 01-01; neither has run. */
function repository(): FakeGitHub {
  const github = new FakeGitHub();
  github.config = 'slots: 2\n';
  github.commit(BASE, { 'README.md': '# Hello\n' });
  github.branches.set('master', BASE);
  github.roles.set('Codertocat', 'write');
  github.roles.set('triager', 'triage');
  github.issues.push(planIssue(11, '01-01', [], []), planIssue(12, '01-02', ['01-01'], []));
  github.install();
  return github;
}

/** What a person with the triage role can do on GitHub: close an issue as completed, add a label. */
function forgeVerified(github: FakeGitHub, number: number): void {
  const issue = github.issue(number);
  issue.state = 'closed';
  issue.state_reason = 'completed';
  issue.labels = [...issue.labels.filter((l) => !l.startsWith('status:')), 'status:verified'];
}

type CommentPayload = {
  comment: { id: number; body: string; user: { login: string; type: string } };
  issue: Record<string, unknown>;
  sender: { login: string; type: string };
};

/** A writer's `/harness …` on plan 01-02's issue (the real issue_comment payload). */
function written(body: string) {
  const payload = webhookExample<CommentPayload>('issue_comment', (p) => p.action === 'created');
  payload.comment.body = body;
  payload.comment.id = 7001;
  Object.assign(payload.comment.user, { login: 'Codertocat', type: 'User' });
  Object.assign(payload.sender, { login: 'Codertocat', type: 'User' });
  Object.assign(payload.issue, {
    user: { login: 'harness[bot]', type: 'Bot' },
    number: 12,
    title: '[01-02] Plan 01-02',
    body: planBody('01-02', ['01-01']),
    labels: [{ name: 'harness:plan' }, { name: `spec:${SPEC}` }],
    state: 'open',
    comments: 0,
  });
  return { id: 'execute-all', name: 'issue_comment', payload } as never;
}

/** A harness check run of another plan completing: any event that runs a round. */
function round(id: string) {
  const payload = webhookExample<Record<string, Record<string, unknown>>>('check_run', (p) => p.action === 'completed');
  payload.check_run!.name = 'harness / plan 01-09';
  payload.check_run!.external_id = `${SPEC}/01-09`;
  return { id, name: 'check_run', payload } as never;
}

function planMerged(plan: string, number: number) {
  const payload = webhookExample<Record<string, Record<string, Record<string, unknown>>>>('pull_request', (p) => p.action === 'closed');
  Object.assign(payload.pull_request!, { merged: true, number });
  payload.pull_request!.head!.ref = `harness/${SPEC}/${plan}`;
  return { id: `merged-${plan}`, name: 'pull_request', payload } as never;
}

const dispatched = (github: FakeGitHub) => github.dispatches.map((d) => (d.body as { inputs: { plan: string } }).inputs.plan);

describe('a plan closed as verified by someone with the triage role', () => {
  it('satisfies nothing: `/harness execute all` starts the forged plan, not the one that needs it, and puts its issue back', async () => {
    const github = repository();
    forgeVerified(github, 11);

    await testProbot().receive(written('/harness execute all'));

    expect(dispatched(github)).toEqual(['01-01']);
    expect(github.issue(11)).toMatchObject({ state: 'open', state_reason: 'reopened' });
    expect(github.issue(11).labels).not.toContain('status:verified');
    expect(github.issue(11).labels).toContain('status:running');
    expect(github.issue(12).labels).toContain('status:blocked');
    // The evidence was looked for: a merged PR from the plan's branch, of which there is none.
    expect(github.log()).toContain(`GET /repos/Codertocat/Hello-World/pulls?head=Codertocat:harness/${SPEC}/01-01&state=closed&per_page=100`);
  });

  it('satisfies nothing in a round either: the queued plan that needs it stays blocked, and nothing starts', async () => {
    const github = repository();
    github.planStatus(12, 'blocked');
    forgeVerified(github, 11);

    await testProbot().receive(round('check-done'));

    expect(dispatched(github)).toEqual([]);
    expect(github.issue(12).labels).toContain('status:blocked');
    expect(github.issue(11).state).toBe('open');
    expect(github.issue(11).labels).not.toContain('status:verified');
  });
});

describe('a plan done by what only harness and writers produce', () => {
  it('is on record when its plan PR merges (`verified=<PR>` on the marker line), and then satisfies its dependants, with no more reads in later rounds', async () => {
    const github = repository();
    github.planStatus(11, 'verified');
    github.planStatus(12, 'blocked');

    await testProbot().receive(planMerged('01-01', 42));

    expect(github.issue(11)).toMatchObject({ state: 'closed', state_reason: 'completed' });
    expect(github.issue(11).body).toContain(`<!-- harness:plan ${SPEC}/01-01 hash=0123456789abcdef verified=42 status=verified -->`);
    expect(dispatched(github)).toEqual(['01-02']);
    const before = github.requests.length;
    await testProbot().receive(round('later'));
    expect(github.log(before).filter((l) => l.includes('/pulls'))).toEqual([]);
  });

  it('closed by GitHub before the App saw the merge (or before the record existed): the merged PR is found once, recorded, and counts', async () => {
    const github = repository();
    forgeVerified(github, 11);
    github.planStatus(12, 'blocked');
    github.branches.set(`harness/${SPEC}/01-01`, BASE);
    github.pullRequests.push({
      number: 42,
      title: 'Plan 01-01',
      body: '',
      head: `harness/${SPEC}/01-01`,
      base: 'master',
      state: 'closed',
      merged: true,
      labels: [],
      created_at: '2026-01-01T00:00:00Z',
    });

    await testProbot().receive(round('check-done'));

    expect(github.issue(11).body).toContain('verified=42 -->');
    expect(github.issue(11).state).toBe('closed');
    expect(dispatched(github)).toEqual(['01-02']);
  });

  it('work the spec marks `completed:` counts from the plan text the App wrote, and is recorded as `verified=spec`', async () => {
    const github = repository();
    forgeVerified(github, 11);
    github.issue(11).body = github.issue(11).body!.replace('must_pass:', 'completed: "2026-01-01"\nmust_pass:');
    github.planStatus(12, 'blocked');

    await testProbot().receive(round('check-done'));

    expect(github.issue(11).body).toContain('verified=spec -->');
    expect(dispatched(github)).toEqual(['01-02']);
  });
});
