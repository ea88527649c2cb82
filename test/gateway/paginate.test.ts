import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gateway, type Gateway } from '../../app/gateway/gateway.js';
import { testOctokit } from '../helpers/octokit.js';

/**
 * One paginator for the App and the worker (app/gateway/paginate.ts): the first request is
 * the route as called, 100 a page; each next one is the `Link: rel="next"` address GitHub
 * answered with; a page without one is the last. A search for one comment stops at the page
 * that has it.
 */

const API = 'https://api.github.com';
const R = '/repos/octo-org/widgets';

function github(): Gateway {
  return gateway(testOctokit().request, { owner: 'octo-org', repo: 'widgets' }, 'workflow', { planIssueAuthor: 'harness[bot]' });
}

function next(path: string, query: string): Record<string, string> {
  return { link: `<${API}${path}?${query}>; rel="next", <${API}${path}?${query.replace(/page=\d+/, 'page=9')}>; rel="last"` };
}

function issue(number: number, plan: string) {
  return {
    id: 5000 + number,
    number,
    title: `[${plan}] Plan ${plan}`,
    body: `<!-- harness:plan SPC-007/${plan} hash=0123456789abcdef -->`,
    labels: [{ name: 'harness:plan' }, { name: 'spec:SPC-007' }],
    state: 'open',
    state_reason: null,
    user: { login: 'harness[bot]', type: 'Bot' },
    html_url: `https://github.com/octo-org/widgets/issues/${number}`,
  };
}

function comment(id: number, body: string) {
  return {
    id,
    body,
    user: { login: 'harness[bot]', type: 'Bot' },
    author_association: 'NONE',
    created_at: '2024-05-01T12:00:00Z',
    html_url: `https://github.com/octo-org/widgets/issues/3#issuecomment-${id}`,
  };
}

let scope: nock.Scope;
const requests: string[] = [];
beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  expect(scope.pendingMocks()).toEqual([]);
  nock.cleanAll();
  requests.length = 0;
});

function api(): nock.Scope {
  scope = nock(API);
  scope.on('request', (req: { method: string; path: string }) => requests.push(`${req.method} ${decodeURIComponent(req.path)}`));
  return scope;
}

describe('lists, page after page', () => {
  it('follows Link: rel="next" until a page has none, and leaves pull requests out of the issue list', async () => {
    const query = 'labels=harness%3Aplan%2Cspec%3ASPC-007&state=all&direction=asc&per_page=100';
    api()
      .get(`${R}/issues`)
      .query({ labels: 'harness:plan,spec:SPC-007', state: 'all', direction: 'asc', per_page: '100' })
      .reply(200, [issue(12, '01-02'), { ...issue(11, '01-01'), pull_request: { url: 'x' } }], next(`${R}/issues`, `${query}&page=2`))
      .get(`${R}/issues`)
      .query({ labels: 'harness:plan,spec:SPC-007', state: 'all', direction: 'asc', per_page: '100', page: '2' })
      .reply(200, [issue(10, '01-01')]);

    const { listed, byPlan } = await github().planIssues('SPC-007');

    expect(requests).toEqual([
      `GET ${R}/issues?labels=harness:plan,spec:SPC-007&state=all&direction=asc&per_page=100`,
      `GET ${R}/issues?labels=harness:plan,spec:SPC-007&state=all&direction=asc&per_page=100&page=2`,
    ]);
    expect(listed.map((i) => i.number)).toEqual([12, 10]);
    expect([...byPlan].map(([plan, i]) => [plan, i.number])).toEqual([
      ['01-02', 12],
      ['01-01', 10],
    ]);
  });

  it('reads every comment, oldest first, across pages', async () => {
    api()
      .get(`${R}/issues/3/comments`)
      .query({ per_page: '100' })
      .reply(200, [comment(1, 'first'), comment(2, 'second')], next(`${R}/issues/3/comments`, 'per_page=100&page=2'))
      .get(`${R}/issues/3/comments`)
      .query({ per_page: '100', page: '2' })
      .reply(200, [comment(3, 'third')]);

    const comments = await github().comments(3);

    expect(comments.map((c) => [c.id, c.body, c.author, c.authorType])).toEqual([
      [1, 'first', 'harness[bot]', 'Bot'],
      [2, 'second', 'harness[bot]', 'Bot'],
      [3, 'third', 'harness[bot]', 'Bot'],
    ]);
    expect(requests).toEqual([`GET ${R}/issues/3/comments?per_page=100`, `GET ${R}/issues/3/comments?per_page=100&page=2`]);
  });

  it('stops a search at the page that has what it looks for, though GitHub offers another', async () => {
    api()
      .get(`${R}/issues/2/comments`)
      .query({ per_page: '100' })
      .reply(200, [comment(1, 'hello')], next(`${R}/issues/2/comments`, 'per_page=100&page=2'))
      .get(`${R}/issues/2/comments`)
      .query({ per_page: '100', page: '2' })
      .reply(200, [comment(2, '<!-- harness:status SPC-007 -->\n…')], next(`${R}/issues/2/comments`, 'per_page=100&page=3'));

    const found = await github().findComment(2, (c) => c.body.startsWith('<!-- harness:status SPC-007 -->'));

    expect(found?.id).toBe(2);
    // No third request: net connect is off, so one would have failed the search.
    expect(requests).toHaveLength(2);
  });

  it('takes the entries out of a list that wraps them (workflow runs), each status filter paged on its own', async () => {
    const runs = `${R}/actions/workflows/harness-worker.yml/runs`;
    api()
      .get(runs)
      .query({ status: 'queued', per_page: '100' })
      .reply(
        200,
        { total_count: 2, workflow_runs: [{ id: 1, display_title: 'harness SPC-007/01-01', status: 'queued' }] },
        next(runs, 'status=queued&per_page=100&page=2'),
      )
      .get(runs)
      .query({ status: 'queued', per_page: '100', page: '2' })
      .reply(200, { total_count: 2, workflow_runs: [{ id: 2, display_title: 'harness SPC-007/01-02', status: 'queued' }] })
      .get(runs)
      .query({ status: 'in_progress', per_page: '100' })
      .reply(200, { total_count: 1, workflow_runs: [{ id: 3, display_title: 'harness SPC-007/02-01', status: 'in_progress' }] });

    expect(await github().unfinishedWorkerRuns()).toEqual([
      { id: 1, displayTitle: 'harness SPC-007/01-01', status: 'queued' },
      { id: 2, displayTitle: 'harness SPC-007/01-02', status: 'queued' },
      { id: 3, displayTitle: 'harness SPC-007/02-01', status: 'in_progress' },
    ]);
  });
});
