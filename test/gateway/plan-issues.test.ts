import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gateway, type Gateway } from '../../app/gateway/gateway.js';
import { GitHubError } from '../../app/gateway/github-error.js';
import { workerForge } from '../../app/worker-action/worker-run.js';
import { testOctokit } from '../helpers/octokit.js';

/**
 * A spec's plan issues, listed once and matched once (app/gateway/plan-issues.ts): of two
 * issues naming one plan, the plan's is the lowest-numbered not closed as a duplicate,
 * whoever asks. And the one way a status is written: the new label added, then the old ones
 * removed, and nothing written that is not needed.
 */

const API = 'https://api.github.com';
const R = '/repos/octo-org/widgets';
const LIST = { labels: 'harness:plan,spec:SPC-007', state: 'all', direction: 'asc', per_page: '100' };

function github(): Gateway {
  // The App's bot, as GraphQL's viewer names the installation token's owner (identity.ts).
  return gateway(testOctokit().request, { owner: 'octo-org', repo: 'widgets' }, 'app', { selfLogin: async () => 'harness[bot]' });
}

interface Fixture {
  number: number;
  plan: string;
  /** Who opened it: the App's bot unless given. */
  user?: { login: string; type: 'User' | 'Bot' };
  status?: string;
  closed?: 'completed' | 'not_planned' | 'duplicate';
}

/** A plan issue as GET /issues lists it. */
function issue(f: Fixture) {
  return {
    id: 7000 + f.number,
    number: f.number,
    title: `[${f.plan}] Plan ${f.plan}`,
    body: `<!-- harness:plan SPC-007/${f.plan} hash=0123456789abcdef -->\n**Spec** …`,
    labels: ['harness:plan', 'spec:SPC-007', ...(f.status ? [`status:${f.status}`] : [])].map((name) => ({ name })),
    state: f.closed ? 'closed' : 'open',
    state_reason: f.closed ?? null,
    user: f.user ?? { login: 'harness[bot]', type: 'Bot' },
    html_url: `https://github.com/octo-org/widgets/issues/${f.number}`,
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

/** GitHub lists issues newest first. */
function listed(...fixtures: Fixture[]): void {
  api()
    .get(`${R}/issues`)
    .query(LIST)
    .reply(200, fixtures.sort((a, b) => b.number - a.number).map(issue));
}

describe("the plan's issue, for the App and for the worker alike", () => {
  it('open #10 failed and #12 closed as its duplicate: #10, and nothing left to close', async () => {
    listed({ number: 10, plan: '01-01', status: 'failed' }, { number: 12, plan: '01-01', status: 'failed', closed: 'duplicate' });

    const { byPlan, duplicates, listed: all } = await github().planIssues('SPC-007');

    expect(byPlan.get('01-01')?.number).toBe(10);
    expect(duplicates).toEqual([]);
    expect(all.map((i) => i.number)).toEqual([12, 10]);
  });

  it('#10 done and closed, #12 an open copy not closed yet: still #10, with #12 its duplicate to close; the worker takes #10 too, not the open one', async () => {
    const fixtures: Fixture[] = [
      { number: 10, plan: '01-01', status: 'verified', closed: 'completed' },
      { number: 12, plan: '01-01' },
    ];
    listed(...fixtures);
    const { byPlan, duplicates } = await github().planIssues('SPC-007');
    expect(byPlan.get('01-01')?.number).toBe(10);
    expect(duplicates.map((d) => [d.issue.number, d.of.number])).toEqual([[12, 10]]);

    listed(...fixtures);
    const forge = workerForge(testOctokit().request, { owner: 'octo-org', repo: 'widgets' }, 'harness[bot]');
    expect((await forge.planIssues('SPC-007')).byPlan.get('01-01')).toMatchObject({
      number: 10,
      title: '[01-01] Plan 01-01',
      labels: ['harness:plan', 'spec:SPC-007', 'status:verified'],
      url: 'https://github.com/octo-org/widgets/issues/10',
      state: 'closed',
      stateReason: 'completed',
    });
  });

  it("an issue another App's bot, GitHub Actions or a person opened is never a plan's, however marked and labelled (issue 36, 2)", async () => {
    const others = [
      { number: 5, plan: '01-01', status: 'verified', closed: 'completed' as const, user: { login: 'renovate[bot]', type: 'Bot' as const } },
      { number: 6, plan: '01-01', status: 'verified', closed: 'completed' as const, user: { login: 'github-actions[bot]', type: 'Bot' as const } },
      { number: 7, plan: '01-01', status: 'verified', closed: 'completed' as const, user: { login: 'harness[bot]', type: 'User' as const } },
    ];
    listed(...others, { number: 12, plan: '01-01' });
    const { byPlan, listed: all } = await github().planIssues('SPC-007');
    expect(byPlan.get('01-01')?.number).toBe(12);
    expect(all.map((i) => i.number)).toEqual([12]);

    // The worker holding GITHUB_TOKEN knows the App by its slug, not by its own login.
    listed(...others, { number: 12, plan: '01-01' });
    const forge = workerForge(testOctokit().request, { owner: 'octo-org', repo: 'widgets' }, 'harness[bot]');
    expect((await forge.planIssues('SPC-007')).listed.map((i) => i.number)).toEqual([12]);
  });

  it("the oldest issue is the plan's even closed as a duplicate: the App closes only later copies, and anyone with the triage role can close one", async () => {
    listed({ number: 10, plan: '01-01', closed: 'duplicate' }, { number: 12, plan: '01-01', status: 'running' });

    expect((await github().planIssues('SPC-007')).byPlan.get('01-01')?.number).toBe(10);
  });
});

describe('a status written the race-safe way, and only when it changes', () => {
  const labels = ['harness:plan', 'spec:SPC-007', 'good first issue'];

  it("the App's record first, on the marker line (one PATCH of the body), then the label, its view", async () => {
    const body = '<!-- harness:plan SPC-007/01-01 hash=0123456789abcdef status=queued -->\nThe plan.';
    const after = '<!-- harness:plan SPC-007/01-01 hash=0123456789abcdef status=running -->\nThe plan.';
    api()
      .patch(`${R}/issues/5`, { body: after })
      .reply(200, { id: 5, number: 5, title: '[01-01] Plan', body: after, state: 'open', labels: [], html_url: 'https://github.com/o/r/issues/5' })
      .post(`${R}/issues/5/labels`, { labels: ['status:running'] })
      .reply(200, [])
      .delete(`${R}/issues/5/labels/status%3Aready`)
      .reply(200, []);

    expect(await github().setStatus({ number: 5, labels: [...labels, 'status:ready'], body }, 'running')).toEqual({
      labels: [...labels, 'status:running'],
      body: after,
    });
    expect(requests).toEqual([`PATCH ${R}/issues/5`, `POST ${R}/issues/5/labels`, `DELETE ${R}/issues/5/labels/status:ready`]);
  });

  it('ready and blocked are one record: moving between them writes the label alone', async () => {
    const body = '<!-- harness:plan SPC-007/01-01 hash=0123456789abcdef status=queued -->';
    api()
      .post(`${R}/issues/5/labels`, { labels: ['status:blocked'] })
      .reply(200, [])
      .delete(`${R}/issues/5/labels/status%3Aready`)
      .reply(200, []);

    expect(await github().setStatus({ number: 5, labels: [...labels, 'status:ready'], body }, 'blocked')).toEqual({
      labels: [...labels, 'status:blocked'],
      body,
    });
    expect(requests).toEqual([`POST ${R}/issues/5/labels`, `DELETE ${R}/issues/5/labels/status:ready`]);
  });

  it('the status it has already, and no other: no request', async () => {
    api();
    expect(await github().setStatus({ number: 5, labels: [...labels, 'status:ready'], body: null }, 'ready')).toEqual({
      labels: [...labels, 'status:ready'],
      body: null,
    });
    expect(requests).toEqual([]);
  });

  it('no status yet: the label added, nothing to remove', async () => {
    api()
      .post(`${R}/issues/5/labels`, { labels: ['status:ready'] })
      .reply(200, []);

    expect(await github().setStatus({ number: 5, labels, body: null }, 'ready')).toEqual({ labels: [...labels, 'status:ready'], body: null });
    expect(requests).toEqual([`POST ${R}/issues/5/labels`]);
  });

  it("another status: the new one added first, then the old one removed, people's labels never sent", async () => {
    api()
      .post(`${R}/issues/5/labels`, { labels: ['status:running'] })
      .reply(200, [])
      .delete(`${R}/issues/5/labels/status%3Aready`)
      .reply(200, []);

    expect(await github().setStatus({ number: 5, labels: [...labels, 'status:ready'], body: null }, 'running')).toEqual({
      labels: [...labels, 'status:running'],
      body: null,
    });
    expect(requests).toEqual([`POST ${R}/issues/5/labels`, `DELETE ${R}/issues/5/labels/status:ready`]);
  });

  it('the status it has, beside a stray one: only the stray one removed', async () => {
    api().delete(`${R}/issues/5/labels/status%3Ablocked`).reply(200, []);

    expect(await github().setStatus({ number: 5, labels: [...labels, 'status:ready', 'status:blocked'], body: null }, 'ready')).toEqual({
      labels: [...labels, 'status:ready'],
      body: null,
    });
    expect(requests).toEqual([`DELETE ${R}/issues/5/labels/status:blocked`]);
  });

  it('an old label someone took off meanwhile (404) is what was wanted; any other refusal is an error', async () => {
    api()
      .post(`${R}/issues/5/labels`, { labels: ['status:failed'] })
      .reply(200, [])
      .delete(`${R}/issues/5/labels/status%3Arunning`)
      .reply(404, { message: 'Label does not exist' });
    expect(await github().setStatus({ number: 5, labels: [...labels, 'status:running'], body: null }, 'failed')).toEqual({
      labels: [...labels, 'status:failed'],
      body: null,
    });

    scope
      .post(`${R}/issues/6/labels`, { labels: ['status:failed'] })
      .reply(200, [])
      .delete(`${R}/issues/6/labels/status%3Arunning`)
      .reply(403, { message: 'Resource not accessible by integration' });
    await expect(github().setStatus({ number: 6, labels: ['status:running'], body: null }, 'failed')).rejects.toThrow(GitHubError);
  });
});
