import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gateway, type Gateway } from '../../app/gateway/gateway.js';
import { FakeGitHub, labelNodeId } from '../helpers/github-repo.js';
import { testOctokit } from '../helpers/octokit.js';

/**
 * An issue created as a sub-issue in one request (app/gateway/issues.ts, createSubIssue;
 * labels.ts, knowLabels): GraphQL's createIssue with parentIssueId, validated against GitHub's
 * schema by the fake, one content-generating request where REST spends two.
 */

const R = '/repos/Codertocat/Hello-World';
let github: FakeGitHub;
let gw: Gateway;

const PLAN = {
  title: '[01-02] Reset tokens',
  body: '<!-- harness:plan SPC-001/01-02 hash=0123456789abcdef -->',
  labels: ['harness:plan', 'needs:01-01', 'phase:01', 'spec:SPC-001'],
};

beforeEach(async () => {
  nock.disableNetConnect();
  github = new FakeGitHub();
  github.labels.push({ name: 'harness:plan', color: '5319e7', description: null }, { name: 'spec:SPC-001', color: 'ededed', description: null });
  github.issues.push({ id: 900_010, number: 10, title: 'Phase 01', body: '', labels: ['harness:phase'], state: 'open', state_reason: null });
  github.install();
  gw = gateway(testOctokit().request, { owner: github.owner, repo: github.repo }, 'app', { planIssueAuthor: 'harness[bot]' });
  // The parent as the sync lists it: its node id comes with it.
  await gw.issuesWithLabels(['harness:phase']);
  github.requests.length = 0;
});
afterEach(() => {
  nock.cleanAll();
});

describe('creating plan issues under their phase issue', () => {
  it('learns the repository and the labels in one query, makes the missing labels in one request, then each issue is one request', async () => {
    expect(await gw.knowLabels(PLAN.labels)).toBe(true);
    expect(github.log()).toEqual(['POST /graphql', 'POST /graphql']);
    expect((github.requests[0]!.body as { query: string }).query).toMatch(/^query Labels\(/);
    expect((github.requests[1]!.body as { query: string }).query).toMatch(/^mutation CreateLabels\(/);
    expect(github.labels.map((l) => l.name)).toEqual(['harness:plan', 'spec:SPC-001', 'needs:01-01', 'phase:01']);

    const from = github.requests.length;
    const created = await gw.createSubIssue(PLAN, 10);

    expect(github.log(from)).toEqual(['POST /graphql']);
    expect(github.writes(from)[0]!.body).toMatchObject({
      variables: { input: { parentIssueId: 'I_900010', labelIds: PLAN.labels.map(labelNodeId), title: PLAN.title } },
    });
    expect(created).toEqual({
      id: 900_100,
      number: 100,
      title: PLAN.title,
      body: PLAN.body,
      labels: PLAN.labels,
      state: 'open',
      stateReason: null,
      url: `https://github.com/Codertocat/Hello-World/issues/100`,
      authorType: 'Bot',
      author: 'harness[bot]',
    });
    expect(github.subIssueNumbers(10)).toEqual([100]);
  });

  it('answers undefined, having created nothing, when the parent holds 100 sub-issues already: the caller creates by REST', async () => {
    github.subIssues.set(
      10,
      Array.from({ length: 100 }, (_, i) => 1_000 + i),
    );

    expect(await gw.createSubIssue(PLAN, 10)).toBeUndefined();

    expect(github.issues.map((i) => i.number)).toEqual([10]);
  });

  it('asks nothing when the parent is an issue it has not read: no node id to name it by', async () => {
    expect(await gw.createSubIssue(PLAN, 77)).toBeUndefined();
    expect(github.log()).toEqual([]);
  });
});

describe('the limits', () => {
  it('counts the creation as one content-generating request', async () => {
    await gw.knowLabels(PLAN.labels);
    const from = github.requests.length;
    await gw.createSubIssue(PLAN, 10);
    const { classify } = await import('../../app/gateway/limit-model.js');
    expect(github.requests.slice(from).map((r) => classify(r.method, r.url, r.body))).toEqual([
      { endpoint: 'POST /graphql', points: 5, write: true, content: true },
    ]);
    expect(github.log().some((l) => l.startsWith(`POST ${R}`))).toBe(false);
  });
});
