import nock from 'nock';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { workerForge } from '../../app/worker-action/worker-run.js';
import { FakeGitHub, specAt, spoken } from '../helpers/github-repo.js';
import { testOctokit } from '../helpers/octokit.js';
import { testProbot, webhookExample } from '../helpers/probot.js';
import { specOf, type PlanOptions } from '../helpers/spec.js';

/**
 * Which issue is a plan's, asked everywhere it is asked. Plan 01-01 of SPC-042 has issue #10,
 * open and failed, and #12, a copy two racing syncs once made, since closed as its duplicate
 * (`state_reason: duplicate`), its labels as they were. The spec PR sync, a scheduling round,
 * `/harness retry 01-01` on the spec PR and the worker's forge must all take #10, as
 * matchPlanIssues says: the lowest-numbered issue, whatever its state. (Before the
 * gateway, the retry took #12: the list comes newest first, and the command took the first
 * issue naming the plan.) GitHub is the stateful fake of test/helpers/github-repo.ts, and
 * each test states every request made.
 */

interface PullRequestPayload {
  action: string;
  before?: string;
  after?: string;
  pull_request: { number: number; head: { sha: string; ref: string }; base: { sha: string; ref: string } };
}

const R = '/repos/Codertocat/Hello-World';
const OPENED = webhookExample<PullRequestPayload>('pull_request', (p) => p.action === 'opened');
const HEAD = OPENED.pull_request.head.sha;
const BASE = OPENED.pull_request.base.sha;
const PUSHED = 'c0ffee0000000000000000000000000000000001';
const DIR = 'docs/specs/SPC-042-password-reset';
const SPEC_PR = OPENED.pull_request.number;
const PLANS: PlanOptions[] = [
  { id: '01-01', title: 'Reset tokens' },
  { id: '01-02', title: 'Reset endpoint', dependsOn: ['01-01'] },
];
const SPEC_ISSUES = `GET ${R}/issues?labels=harness:plan,spec:SPC-042&state=all&direction=asc&per_page=100`;

function files(plans: PlanOptions[]): Record<string, string | Uint8Array> {
  return { 'README.md': '# Hello\n', ...specAt(DIR, specOf(plans)) };
}

/** The duplicate case: the spec synced (#9 its tracking issue, #10 for 01-01, #11 for 01-02), 01-01 failed, and #12 its duplicate, closed. */
async function duplicateCase(): Promise<FakeGitHub> {
  const github = new FakeGitHub();
  github.config = 'specs_root: docs/specs\n';
  github.commit(BASE, { 'README.md': '# Hello\n' });
  github.commit(HEAD, files(PLANS));
  github.branches.set(OPENED.pull_request.base.ref, BASE);
  github.pulls.set(SPEC_PR, {
    base: { ref: OPENED.pull_request.base.ref, full_name: 'Codertocat/Hello-World' },
    head: { ref: OPENED.pull_request.head.ref, full_name: 'Codertocat/Hello-World' },
  });
  github.roles.set('Codertocat', 'write');
  // #9 is the spec's tracking issue, made first; the plan issues follow.
  github.nextIssue = 9;
  github.install();
  await testProbot().receive({ id: 'sync', name: 'pull_request', payload: OPENED } as never);

  // The App recorded 01-01 failed: the record on #10's marker line, the label its view.
  const original = github.planStatus(10, 'failed');
  github.issues.push({ ...original, id: 900_012, number: 12, labels: [...original.labels], state: 'closed', state_reason: 'duplicate' });
  github.nextIssue = 13;
  // The failed attempt's claim.
  github.branches.set('harness/SPC-042/01-01', BASE);
  return github;
}

let github: FakeGitHub;
let before: number;

beforeAll(() => nock.disableNetConnect());
beforeEach(async () => {
  github = await duplicateCase();
  before = github.requests.length;
});
afterEach(() => nock.cleanAll());

describe('a plan with an issue closed as its duplicate: everyone takes the same issue', () => {
  it('the spec PR sync updates #10, and leaves #12 closed', async () => {
    github.commit(PUSHED, files([{ ...PLANS[0]!, title: 'Reset tokens, hashed' }, PLANS[1]!]));
    const payload = webhookExample<PullRequestPayload>('pull_request', (p) => p.action === 'synchronize');
    Object.assign(payload, { before: HEAD, after: PUSHED });
    payload.pull_request.head.sha = PUSHED;

    await testProbot().receive({ id: 'push', name: 'pull_request', payload } as never);

    expect(github.writes(before).map((w) => `${w.method} ${w.url}`)).toEqual([
      `POST ${R}/check-runs`,
      `PATCH ${R}/issues/10`,
      `PATCH ${R}/issues/comments/${github.comments[0]!.id}`,
      `PATCH ${R}/check-runs/${github.checkRuns.at(-1)!.id}`,
    ]);
    expect(github.writes(before)[1]!.body).toMatchObject({ title: '[01-01] Reset tokens, hashed' });
    expect(github.issue(12)).toMatchObject({ state: 'closed', state_reason: 'duplicate', title: '[01-01] Reset tokens' });
  });

  it("a scheduling round reads #10 as the plan's, failed, and the status comment says so", async () => {
    const payload = webhookExample<Record<string, Record<string, unknown>>>('check_run', (p) => p.action === 'completed');
    Object.assign(payload.check_run!, { name: 'harness / plan 01-01', external_id: 'SPC-042/01-01' });

    await testProbot().receive({ id: 'round', name: 'check_run', payload } as never);

    const comment = github.comments[0]!;
    expect(github.log(before)).toEqual([
      `GET ${R}/contents/.github/harness.yml`,
      SPEC_ISSUES,
      // Where the status comment is, and what it said, the App remembers from the sync (app-memory.ts): no read.
      `PATCH ${R}/issues/comments/${comment.id}`,
    ]);
    expect(comment.body).toMatch(/\| 01-01 Reset tokens \| #10 \| [^|]*failed[^|]* \|/);
    expect(comment.body).not.toContain('#12');
  });

  it('/harness retry 01-01 on the spec PR retries #10: its branch deleted, ready, then started by the round', async () => {
    const payload = webhookExample<Record<string, Record<string, unknown>>>('issue_comment', (p) => p.action === 'created');
    payload.comment!.body = '/harness retry 01-01';
    Object.assign(payload.issue!, { number: SPEC_PR, pull_request: { url: `https://api.github.com${R}/pulls/${SPEC_PR}` } });
    const commentId = payload.comment!.id as number;
    const head = github.branches.get('harness/SPC-042/01-01')!;

    await testProbot().receive({ id: 'retry', name: 'issue_comment', payload } as never);

    const status = github.comments.find((c) => c.body.startsWith('<!-- harness:status SPC-042 -->'))!;
    // Not written yet: the next round (a minute on) shows 01-01 running.
    expect(status.body).not.toMatch(/01-01[^\n]*running/);
    expect(github.log(before)).toEqual([
      `POST ${R}/issues/comments/${commentId}/reactions`,
      `GET ${R}/contents/.github/harness.yml`,
      `GET ${R}/collaborators/Codertocat/permission`,
      `GET ${R}/pulls/${SPEC_PR}`,
      // Who the App is was asked once already, when the sync made sure its status comment is the only one (status-comment.ts).
      `GET ${R}/issues/${SPEC_PR}/comments?per_page=100`,
      SPEC_ISSUES,
      // The branch's work kept before the branch goes.
      `GET ${R}/git/ref/heads/harness/SPC-042/01-01`,
      `POST ${R}/git/refs`,
      `DELETE ${R}/git/refs/heads/harness/SPC-042/01-01`,
      // The record queued again on #10's marker line, then ready added, failed removed: one GraphQL request, the issue's and
      // the labels' node ids read from the list.
      'POST /graphql',
      `GET ${R}/git/ref/heads/master`,
      `POST ${R}/git/refs`,
      `POST ${R}/actions/workflows/harness-worker.yml/dispatches`,
      `POST ${R}/check-runs`,
      'POST /graphql',
      // The status comment was edited a moment ago, and a plan now runs: the change waits for the next round (round.ts).
      `POST ${R}/issues/${SPEC_PR}/comments`,
    ]);
    expect(github.labelMutations(before)).toEqual(['#10 +status:ready', '#10 -status:failed', '#10 +status:running', '#10 -status:ready']);
    expect(github.issue(10).labels).toContain('status:running');
    expect(github.issue(12).labels).toContain('status:failed');
    expect(github.checkRuns.at(-1)).toMatchObject({ name: 'harness / plan 01-01', external_id: 'SPC-042/01-01', head_sha: BASE });
    expect(spoken(github.comments.at(-1)!.body)).toBe(
      `Retrying SPC-042 plan 01-01 (#10): its branch \`harness/SPC-042/01-01\` is deleted and the plan is ready again. A scheduling round starts it as soon as a slot is free. What the branch held is kept at \`refs/harness/kept/SPC-042/01-01/${head.slice(0, 12)}\` (\`git fetch origin refs/harness/kept/SPC-042/01-01/${head.slice(0, 12)}\` to look at it).`,
    );
    expect(github.refs.get(`refs/harness/kept/SPC-042/01-01/${head.slice(0, 12)}`)).toBe(head);
  });

  it("the worker's forge takes #10, and sets its status there", async () => {
    const forge = workerForge(testOctokit('worker-token').request, { owner: github.owner, repo: github.repo }, 'harness[bot]');

    const issue = (await forge.planIssues('SPC-042')).byPlan.get('01-01')!;
    Object.assign(issue, await forge.setStatus(issue, 'running'));

    expect(issue).toMatchObject({ number: 10, state: 'open', url: `https://github.com/Codertocat/Hello-World/issues/10` });
    expect(github.log(before)).toEqual([SPEC_ISSUES, `PATCH ${R}/issues/10`, `POST ${R}/issues/10/labels`, `DELETE ${R}/issues/10/labels/status:failed`]);
    expect(github.writes(before).map((w) => w.body)).toEqual([{ body: github.issue(10).body }, { labels: ['status:running'] }, undefined]);
    expect(github.issue(10).body).toMatch(/^<!-- harness:plan SPC-042\/01-01 [^\n]* status=running -->/);
  });
});
