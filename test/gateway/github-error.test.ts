import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gateway, type Gateway } from '../../app/gateway/gateway.js';
import { GitHubError, gitHubError, type TokenKind } from '../../app/gateway/github-error.js';
import { testOctokit } from '../helpers/octokit.js';

/**
 * Every HTTP failure becomes a GitHubError in one place (app/gateway/github-error.ts): the
 * status, the route as called, a kind to decide on, GitHub's own message and a hint that
 * says what usually causes that answer to that route and what to do. Real Octokit requests
 * against nock, each answer exactly as GitHub sends it.
 */

const R = '/repos/octo-org/widgets';

function github(token: TokenKind): Gateway {
  return gateway(testOctokit().request, { owner: 'octo-org', repo: 'widgets' }, token, { planIssueAuthor: 'harness[bot]' });
}

async function failure(work: Promise<unknown>): Promise<GitHubError> {
  const e: unknown = await work.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(e).toBeInstanceOf(GitHubError);
  return e as GitHubError;
}

let scope: nock.Scope;
beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  expect(scope.pendingMocks()).toEqual([]);
  nock.cleanAll();
});

describe('a refusal names the permission to grant, for the token that was refused', () => {
  it("403 on the worker's token: the `permissions:` its workflow job must grant", async () => {
    scope = nock('https://api.github.com')
      .post(`${R}/issues/4/labels`, { labels: ['status:checkpoint'] })
      .reply(403, {
        message: 'Resource not accessible by integration',
        documentation_url: 'https://docs.github.com/rest/issues/labels#add-labels-to-an-issue',
      });

    const e = await failure(github('workflow').setStatus({ number: 4, labels: [], body: null }, 'checkpoint'));

    expect(e).toMatchObject({ status: 403, kind: 'forbidden', route: 'POST /repos/{owner}/{repo}/issues/{issue_number}/labels' });
    expect(e.message).toBe(
      'POST /repos/{owner}/{repo}/issues/{issue_number}/labels answered 403: Resource not accessible by integration - https://docs.github.com/rest/issues/labels#add-labels-to-an-issue. ' +
        "The worker workflow's job must grant `issues: write` in `permissions:` (templates/workflows/harness-worker.yml grants contents, pull-requests and issues write)",
    );
  });

  it('404 on a read by the worker: missing, or not visible without the read permission', async () => {
    scope = nock('https://api.github.com')
      .get(`${R}/pulls`)
      .query({ head: 'octo-org:harness/SPC-007/01-01', base: 'main', state: 'open', per_page: '100' })
      .reply(404, { message: 'Not Found' });

    const e = await failure(github('workflow').openPullRequest({ head: 'harness/SPC-007/01-01', base: 'main', title: 't', body: 'b' }));

    expect(e).toMatchObject({ status: 404, kind: 'not-found', route: 'GET /repos/{owner}/{repo}/pulls' });
    expect(e.hint).toBe(
      "Either it does not exist, or the worker workflow's job must grant `pull-requests: read` in `permissions:` (templates/workflows/harness-worker.yml grants contents, pull-requests and issues write)",
    );
  });

  it("403 on the App's token: the permission app.yml must ask for, and an owner accept", async () => {
    scope = nock('https://api.github.com').post(`${R}/check-runs`).reply(403, { message: 'Resource not accessible by integration' });

    const e = await failure(github('app').createCheckRun({ name: 'harness / spec', head_sha: 'a'.repeat(40), status: 'in_progress' }));

    expect(e).toMatchObject({ status: 403, kind: 'forbidden', route: 'POST /repos/{owner}/{repo}/check-runs' });
    expect(e.hint).toBe(
      "The App needs `checks: write` (app.yml, default_permissions) and must be installed on this repository; after a permission is added, an owner accepts it in the installation's settings",
    );
  });

  it('401: the token itself was refused', async () => {
    scope = nock('https://api.github.com').get(`${R}/git/ref/heads%2Fmain`).reply(401, { message: 'Bad credentials' });

    const e = await failure(github('app').branchSha('main'));

    expect(e).toMatchObject({ status: 401, kind: 'unauthorized', reason: 'Bad credentials' });
    expect(e.hint).toBe("The installation token was refused: check the App's id and private key, and that it is still installed");
  });
});

describe('a 422 says what it usually means for that route', () => {
  it('POST /git/refs: "Reference already exists" is an answer (another delivery claimed the branch); any other 422 is explained', async () => {
    scope = nock('https://api.github.com')
      .post(`${R}/git/refs`, { ref: 'refs/heads/harness/SPC-007/01-01', sha: 'a'.repeat(40) })
      .reply(422, { message: 'Reference already exists' })
      .post(`${R}/git/refs`, { ref: 'refs/heads/harness/SPC-007/01-02', sha: 'b'.repeat(40) })
      .reply(422, { message: 'Object does not exist' });

    expect(await github('app').createBranch('harness/SPC-007/01-01', 'a'.repeat(40))).toBe('exists');
    const e = await failure(github('app').createBranch('harness/SPC-007/01-02', 'b'.repeat(40)));

    expect(e).toMatchObject({ status: 422, kind: 'unprocessable', reason: 'Object does not exist' });
    expect(e.message).toBe(
      'POST /repos/{owner}/{repo}/git/refs answered 422: Object does not exist. The branch exists already (another delivery claimed it first), or the sha is not a commit of this repository',
    );
  });

  it('a workflow dispatch: no `workflow_dispatch` on that ref, or an input it does not declare', async () => {
    scope = nock('https://api.github.com')
      .post(`${R}/actions/workflows/harness-worker.yml/dispatches`, {
        ref: 'main',
        inputs: { spec: 'SPC-007', plan: '01-01', resume: 'false' },
        return_run_details: true,
      })
      .reply(422, { message: "Workflow does not have 'workflow_dispatch' trigger" });

    const e = await failure(github('app').dispatchWorker('main', { spec: 'SPC-007', plan: '01-01', resume: false }));

    expect(e.hint).toBe('The workflow on that ref has no `workflow_dispatch` trigger, or was sent an input it does not declare');
  });

  it('a 409 on cancelling a run is an answer: the run finished meanwhile', async () => {
    scope = nock('https://api.github.com').post(`${R}/actions/runs/77/cancel`).reply(409, { message: 'Cannot cancel a workflow run that is completed.' });

    expect(await github('app').cancelRun(77)).toBe('finished');
  });
});

describe("rate limits, GitHub's own failures, and what is no HTTP failure", () => {
  it('403 with the hourly limit spent: when it resets', async () => {
    scope = nock('https://api.github.com')
      .get(`${R}/labels`)
      .query({ per_page: '100' })
      .reply(403, { message: 'API rate limit exceeded for installation ID 1.' }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1700000000' });

    const e = await failure(github('app').labels());

    expect(e).toMatchObject({ status: 403, kind: 'rate-limited' });
    expect(e.hint).toBe("This token's hourly rate limit is spent until 2023-11-14T22:13:20.000Z; what failed can be done again then");
  });

  it('429 (a secondary limit): how long to wait', async () => {
    scope = nock('https://api.github.com')
      .post(`${R}/issues/3/comments`, { body: 'hi' })
      .reply(429, { message: 'You have exceeded a secondary rate limit.' }, { 'retry-after': '30' });

    const e = await failure(github('workflow').comment(3, 'hi'));

    expect(e).toMatchObject({ status: 429, kind: 'rate-limited' });
    expect(e.hint).toBe("GitHub's secondary rate limit: too many requests too fast; wait 30 seconds before writing again");
  });

  it("a 5xx is GitHub's failure: no hint but trying again, and a person reads only GitHub's reason", async () => {
    scope = nock('https://api.github.com')
      .get(`${R}/issues`)
      .query({ labels: 'harness:plan,spec:SPC-007', state: 'all', direction: 'asc', per_page: '100' })
      .reply(502, { message: 'Server Error' });

    const e = await failure(github('app').planIssues('SPC-007'));

    expect(e).toMatchObject({ status: 502, kind: 'server', hint: '', explanation: 'Server Error' });
    expect(e.message).toBe('GET /repos/{owner}/{repo}/issues answered 502: Server Error');
  });

  it('a RequestError from another copy of @octokit/request-error is known by its shape', () => {
    scope = nock('https://api.github.com');
    const foreign = Object.assign(new Error('Not Found'), { name: 'HttpError', status: 404 });

    const e = gitHubError(foreign, 'GET /repos/{owner}/{repo}/git/ref/{ref}', 'app');

    expect(e).toBeInstanceOf(GitHubError);
    expect(e).toMatchObject({ status: 404, kind: 'not-found', reason: 'Not Found', cause: foreign });
  });

  it('what is not an HTTP failure comes back as it was', () => {
    scope = nock('https://api.github.com');
    const bug = new TypeError('cannot read properties of undefined');
    expect(gitHubError(bug, 'GET /repos/{owner}/{repo}/issues', 'app')).toBe(bug);
    const translated = new GitHubError('GET /x', 404, 'not-found', 'Not Found', '');
    expect(gitHubError(translated, 'GET /y', 'workflow')).toBe(translated);
  });
});
