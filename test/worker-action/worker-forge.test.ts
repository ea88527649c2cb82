import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GitHubError } from '../../app/gateway/github-error.js';
import { api, commentJson, issueComment, issueJson, OWNER, REPO, REPO_PATH, testForge, workerRequests } from '../helpers/worker-github.js';

/**
 * The worker's forge is the gateway, narrowed to what the worker asks: its requests, each
 * exactly as sent, through workerRequests (the one nock chain of a worker run).
 */

const SPEC = 'SPC-007';
const BRANCH = `harness/${SPEC}/01-02`;
const PULL = { number: 13, html_url: `https://github.com/${OWNER}/${REPO}/pull/13` };
const QUESTION = '<!-- harness:checkpoint 01-02 storage -->\nWhich store?';

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  expect(nock.pendingMocks()).toEqual([]);
  nock.cleanAll();
});

describe("the worker's forge", () => {
  it('reads the plan issues and comments, asks at a checkpoint and sets the status, then opens the plan PR', async () => {
    const sent: [string, Record<string, unknown>][] = [];
    const asked = { id: 100, body: QUESTION, at: '2024-05-01T12:31:00Z', login: 'github-actions[bot]' };
    workerRequests({
      spec: SPEC,
      issues: [
        issueJson({ number: 4, plan: '01-02', status: 'running' }),
        { ...issueJson({ number: 6, plan: '01-02' }), pull_request: { url: 'x' } },
        issueJson({ number: 7, plan: '01-02', spec: 'SPC-008' }),
      ],
      comments: { issue: 4, answer: [] },
      ask: { issue: 4, answer: commentJson(asked), from: 'running' },
      pull: { head: BRANCH, base: 'main', open: [], created: PULL },
      sent: (route, body) => sent.push([route, body]),
    });
    const forge = testForge();

    const issues = (await forge.planIssues(SPEC, '01')).byPlan;
    const issue = issues.get('01-02')!;
    expect([...issues.keys()]).toEqual(['01-02']);
    expect(await forge.comments(issue.number)).toEqual([]);
    expect(await forge.comment(issue.number, QUESTION)).toEqual(issueComment(asked));
    Object.assign(issue, await forge.setStatus(issue, 'checkpoint'));
    expect(issue.labels).toEqual(['harness:plan', `spec:${SPEC}`, 'phase:01', 'status:checkpoint']);
    expect(issue.body).toMatch(/^<!-- harness:plan \S+ hash=0123456789abcdef status=checkpoint -->/);
    expect(await forge.openPullRequest({ head: BRANCH, base: 'main', title: '[01-02] Storage', body: 'Closes #4' })).toEqual({
      number: 13,
      url: PULL.html_url,
      created: true,
    });

    expect(sent).toEqual([
      [`POST ${REPO_PATH}/issues/4/comments`, { body: QUESTION }],
      [`POST ${REPO_PATH}/pulls`, { title: '[01-02] Storage', head: BRANCH, base: 'main', body: 'Closes #4' }],
    ]);
  });

  it('brings the open plan PR up to date rather than open a second one', async () => {
    const sent: [string, Record<string, unknown>][] = [];
    workerRequests({ spec: SPEC, issues: [], pull: { head: BRANCH, base: 'main', open: [PULL] }, sent: (route, body) => sent.push([route, body]) });
    const forge = testForge();

    expect((await forge.planIssues(SPEC, '01')).byPlan.size).toBe(0);
    expect(await forge.openPullRequest({ head: BRANCH, base: 'main', title: 't', body: 'b' })).toEqual({ number: 13, url: PULL.html_url, created: false });
    expect(sent).toEqual([[`PATCH ${REPO_PATH}/pulls/13`, { title: 't', body: 'b' }]]);
  });

  it('takes a 422 on the create for another run of the plan having opened it meanwhile: listed again and updated', async () => {
    const query = { head: `${OWNER}:${BRANCH}`, base: 'main', state: 'open', per_page: '100' };
    api()
      .get(`${REPO_PATH}/pulls`)
      .query(query)
      .reply(200, [])
      .post(`${REPO_PATH}/pulls`)
      .reply(422, { message: 'Validation Failed', errors: [{ message: `A pull request already exists for ${OWNER}:${BRANCH}.` }] })
      .get(`${REPO_PATH}/pulls`)
      .query(query)
      .reply(200, [PULL])
      .patch(`${REPO_PATH}/pulls/13`, { title: 't', body: 'b' })
      .reply(200, PULL);

    expect(await testForge().openPullRequest({ head: BRANCH, base: 'main', title: 't', body: 'b' })).toEqual({
      number: 13,
      url: PULL.html_url,
      created: false,
    });
  });

  it("fails with the gateway's error, which names the permission the workflow must grant", async () => {
    api().post(`${REPO_PATH}/issues/4/comments`, { body: 'hi' }).reply(403, { message: 'Resource not accessible by integration' });

    const e: unknown = await testForge()
      .comment(4, 'hi')
      .catch((error: unknown) => error);

    expect(e).toBeInstanceOf(GitHubError);
    expect((e as GitHubError).message).toBe(
      "POST /repos/{owner}/{repo}/issues/{issue_number}/comments answered 403: Resource not accessible by integration. The worker workflow's job must grant `issues: write` in `permissions:` (templates/workflows/harness-worker.yml grants contents, pull-requests and issues write)",
    );
  });
});
