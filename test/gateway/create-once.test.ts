import nock from 'nock';
import { Octokit } from '@octokit/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_PLUGINS, clientOptions } from '../../app/gateway/client.js';
import { gateway, type Gateway } from '../../app/gateway/gateway.js';
import { FakeGitHub } from '../helpers/github-repo.js';

/**
 * Writes that create something GitHub has no key for (an issue, a sub-issue, a comment) are never
 * retried blind (app/gateway/create-once.ts). The client is the one harness builds, its retries
 * on (no wait between them): a POST whose answer was lost after GitHub acted (a 502, a dropped
 * connection) is looked for among the App's own, and sent again only when it is not there.
 * GitHub is the stateful fake; each case states every request made.
 */

const R = '/repos/Codertocat/Hello-World';
const ISSUE = {
  title: '[01-01] Reset tokens',
  body: '<!-- harness:plan SPC-001/01-01 hash=0123456789abcdef -->\nMake reset tokens.',
  labels: ['harness:plan'],
};
const LOOK = `GET ${R}/issues?creator=harness[bot]&state=all&sort=created&direction=desc&per_page=30`;
let github: FakeGitHub;
let gw: Gateway;

beforeEach(() => {
  nock.disableNetConnect();
  github = new FakeGitHub();
  github.install();
  const Client = Octokit.plugin(...CLIENT_PLUGINS);
  const octokit = new Client(clientOptions({ token: 'ghs_test', userAgent: 'harness-test', warn: () => undefined, retryBase: 0, unthrottled: true }));
  gw = gateway(octokit.request as never, { owner: github.owner, repo: github.repo }, 'app');
});
afterEach(() => nock.cleanAll());

/** The first request matching `method` and `path` (from the repository) fails with `fault` after it was served; the rest are served. */
function loseAnswerOnce(method: string, path: string, fault: number | 'drop'): void {
  let done = false;
  github.failAfter = (m, url) => (!done && m === method && url === `${R}${path}` ? ((done = true), fault) : undefined);
}

describe('an issue whose creation went unanswered', () => {
  it.each([502, 'drop'] as const)("is found among the App's own when GitHub made it (%s after acting), and not made again", async (fault) => {
    loseAnswerOnce('POST', '/issues', fault);

    const created = await gw.createIssue(ISSUE);

    expect(github.issues.map((i) => [i.number, i.title])).toEqual([[100, ISSUE.title]]);
    expect(created).toMatchObject({ number: 100, title: ISSUE.title, body: ISSUE.body });
    expect(github.log()).toEqual([`POST ${R}/issues`, 'POST /graphql', LOOK]);
  });

  it('is made once more when GitHub answered 502 without making it', async () => {
    let refused = false;
    github.fail = (m, url) => (!refused && m === 'POST' && url === `${R}/issues` ? ((refused = true), 502) : undefined);

    const created = await gw.createIssue(ISSUE);

    expect(github.issues.map((i) => i.number)).toEqual([100]);
    expect(created.number).toBe(100);
    expect(github.log()).toEqual([`POST ${R}/issues`, 'POST /graphql', LOOK, `POST ${R}/issues`]);
  });

  it('is not taken to be an issue someone else opened with the same title and body', async () => {
    github.issues.push({ id: 900_050, number: 50, ...ISSUE, labels: [], state: 'open', state_reason: null, user: { login: 'mallory', type: 'User' } });
    let refused = false;
    github.fail = (m, url) => (!refused && m === 'POST' && url === `${R}/issues` ? ((refused = true), 502) : undefined);

    const created = await gw.createIssue(ISSUE);

    expect(created.number).toBe(100);
    expect(github.issues.map((i) => i.number)).toEqual([50, 100]);
  });

  it('is refused as GitHub refused it (422): nothing looked for, nothing sent again', async () => {
    github.fail = (m, url) => (m === 'POST' && url === `${R}/issues` ? 422 : undefined);

    await expect(gw.createIssue(ISSUE)).rejects.toMatchObject({ status: 422 });

    expect(github.log()).toEqual([`POST ${R}/issues`]);
  });

  it('twice unknown and not found: the error, with two tries and two looks, for the next delivery to reconcile', async () => {
    github.fail = (m, url) => (m === 'POST' && url === `${R}/issues` ? 502 : undefined);

    await expect(gw.createIssue(ISSUE)).rejects.toMatchObject({ status: 502 });

    expect(github.log()).toEqual([`POST ${R}/issues`, 'POST /graphql', LOOK, `POST ${R}/issues`, LOOK]);
    expect(github.issues).toEqual([]);
  });
});

describe('a sub-issue whose one GraphQL creation went unanswered', () => {
  it('is found, already under its parent, when GitHub made it', async () => {
    github.labels.push({ name: 'harness:plan', color: '5319e7', description: null });
    github.issues.push({ id: 900_010, number: 10, title: 'Phase 01', body: '', labels: ['harness:phase'], state: 'open', state_reason: null });
    await gw.issuesWithLabels(['harness:phase']);
    await gw.knowLabels(ISSUE.labels);
    const from = github.requests.length;
    // The creation's mutation is served, then answered 502.
    github.failAfter = (m, url) => (m === 'POST' && url === '/graphql' && github.log(from).length === 1 ? 502 : undefined);

    const created = await gw.createSubIssue(ISSUE, 10);

    expect(created).toMatchObject({ number: 100, title: ISSUE.title });
    expect(github.issues.map((i) => i.number)).toEqual([10, 100]);
    expect(github.subIssueNumbers(10)).toEqual([100]);
    expect(github.log(from)).toEqual(['POST /graphql', 'POST /graphql', LOOK]);
  });
});

describe('a comment whose creation went unanswered', () => {
  it("is found among the App's comments on the issue when GitHub made it, and not made again", async () => {
    github.issues.push({ id: 900_010, number: 10, title: 'Plan', body: '', labels: [], state: 'open', state_reason: null });
    loseAnswerOnce('POST', '/issues/10/comments', 502);

    const comment = await gw.comment(10, 'Verified.');

    expect(github.comments.map((c) => c.body)).toEqual(['Verified.']);
    expect(comment.body).toBe('Verified.');
    expect(github.log()).toEqual([`POST ${R}/issues/10/comments`, 'POST /graphql', `GET ${R}/issues/10/comments?per_page=100`]);
  });
});

describe('a check run whose creation went unanswered', () => {
  const SHA = 'ba5e000000000000000000000000000000000001';
  const RUN = { name: 'harness / plan 01-01', head_sha: SHA, status: 'in_progress' as const, external_id: 'SPC-001/01-01' };
  const LOOK_RUNS = `GET ${R}/commits/${SHA}/check-runs?check_name=harness / plan 01-01`;

  it.each([502, 'drop'] as const)('is found on its commit when GitHub made it (%s after acting), and not made again', async (fault) => {
    loseAnswerOnce('POST', '/check-runs', fault);

    const run = await gw.createCheckRun(RUN);

    expect(github.checkRuns.map((r) => [r.id, r.name, r.status])).toEqual([[run.id, RUN.name, 'in_progress']]);
    expect(github.log()).toEqual([`POST ${R}/check-runs`, LOOK_RUNS]);
  });

  it('is made once more when GitHub answered 502 without making it; a finished run of an earlier attempt is not taken for it', async () => {
    github.checkRuns.push({
      id: 5,
      name: RUN.name,
      head_sha: SHA,
      external_id: RUN.external_id,
      status: 'completed',
      conclusion: 'failure',
      output: { title: null, summary: null, text: null },
      annotations: [],
    });
    let refused = false;
    github.fail = (m, url) => (!refused && m === 'POST' && url === `${R}/check-runs` ? ((refused = true), 502) : undefined);

    const run = await gw.createCheckRun(RUN);

    expect(github.checkRuns.map((r) => [r.id, r.status])).toEqual([
      [5, 'completed'],
      [run.id, 'in_progress'],
    ]);
    expect(github.log()).toEqual([`POST ${R}/check-runs`, LOOK_RUNS, `POST ${R}/check-runs`]);
  });
});

describe('a worker dispatch whose answer was lost', () => {
  const INPUTS = { spec: 'SPC-001', plan: '01-01', resume: false };
  const DISPATCH = `POST ${R}/actions/workflows/harness-worker.yml/dispatches`;
  const LOOK_RUNS = [
    `GET ${R}/actions/workflows/harness-worker.yml/runs?status=queued&per_page=100`,
    `GET ${R}/actions/workflows/harness-worker.yml/runs?status=in_progress&per_page=100`,
  ];
  beforeEach(() => void (github.runsOnDispatch = true));

  it.each([502, 'drop'] as const)('is the run GitHub started (%s after acting), found by its title: one worker, never two', async (fault) => {
    loseAnswerOnce('POST', '/actions/workflows/harness-worker.yml/dispatches', fault);

    const run = await gw.dispatchWorker('master', INPUTS);

    expect(github.dispatches).toHaveLength(1);
    expect(run).toEqual({
      id: 7_000_001,
      url: `https://api.github.com${R}/actions/runs/7000001`,
      htmlUrl: `https://github.com${R.replace('/repos', '')}/actions/runs/7000001`,
    });
    expect(github.log()).toEqual([DISPATCH, ...LOOK_RUNS]);
  });

  it('is not sent again when no run is found: the error stands, for the claim to be taken over later', async () => {
    github.fail = (m, url) => (m === 'POST' && url === `${R}/actions/workflows/harness-worker.yml/dispatches` ? 502 : undefined);

    await expect(gw.dispatchWorker('master', INPUTS)).rejects.toMatchObject({ status: 502 });

    expect(github.log()).toEqual([DISPATCH, ...LOOK_RUNS]);
    expect(github.workflowRuns).toEqual([]);
  });
});
