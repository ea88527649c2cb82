import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gateway, type Gateway } from '../../app/gateway/gateway.js';
import { labelIds, type LabelIds } from '../../app/gateway/node-ids.js';
import { STATUS_MOVES_PER_REQUEST } from '../../app/gateway/plan-issues.js';
import { FakeGitHub, labelNodeId } from '../helpers/github-repo.js';
import { testOctokit } from '../helpers/octokit.js';

/**
 * Several plans' statuses written at once (app/gateway/plan-issues.ts, setStatuses): the App's
 * record on each marker line first (the body written, only where the record changes), then the
 * labels, its view, each in the race-safe form (the new label added, then the old one removed),
 * all in one GraphQL request (updateIssue before any label), validated against GitHub's
 * published schema by the fake; REST where the node ids are not known or GraphQL would save
 * nothing, and where GitHub refuses a mutation.
 */

const R = '/repos/Codertocat/Hello-World';
let github: FakeGitHub;

/** The record a status label is the view of: ready and blocked are both `queued`. */
const recordOf = (status: string) => (status === 'ready' || status === 'blocked' ? 'queued' : status);

function plan(number: number, status?: string): void {
  github.issues.push({
    id: 900_000 + number,
    number,
    title: `[01-0${number}] Plan`,
    body: `<!-- harness:plan SPC-001/01-0${number} hash=0123456789abcdef${status ? ` status=${recordOf(status)}` : ''} -->`,
    labels: ['harness:plan', 'spec:SPC-001', 'phase:01', ...(status ? [`status:${status}`] : [])],
    state: 'open',
    state_reason: null,
  });
}

/** A gateway that knows these labels' ids already, as the App's memory keeps them between deliveries. */
function client(known?: Map<string, string> | LabelIds): Gateway {
  const ids = known instanceof Map ? labelIds() : known;
  if (known instanceof Map) for (const [name, id] of known) ids!.set(name, id);
  return gateway(testOctokit().request, { owner: github.owner, repo: github.repo }, 'app', ids ? { labelIds: ids } : {});
}

/** The issue as the gateway read it: the labels and the body as they were. */
function read(number: number) {
  return { number, labels: [...github.issue(number).labels], body: github.issue(number).body };
}

/** The record on an issue's marker line now. */
const record = (number: number) => /status=(\w+)/.exec(github.issue(number).body ?? '')?.[1];

beforeEach(() => {
  nock.disableNetConnect();
  github = new FakeGitHub();
  for (const status of ['ready', 'running', 'blocked', 'checkpoint', 'verified', 'failed'])
    github.labels.push({ name: `status:${status}`, color: '0e8a16', description: null });
  github.install();
});
afterEach(() => {
  nock.cleanAll();
});

describe("a round's status writes, after the list it read", () => {
  it('two plans started and one unblocked: one request, the two records first, then per issue the new label added and the old removed, in that order', async () => {
    plan(1, 'ready');
    plan(2, 'ready');
    plan(3, 'blocked');
    // A plan already running: the list names every status label involved, with its node id.
    plan(4, 'running');
    const gw = client();
    await gw.planIssues('SPC-001');
    const from = github.requests.length;

    const after = await gw.setStatuses([
      { issue: read(1), status: 'running' },
      { issue: read(2), status: 'running' },
      { issue: read(3), status: 'ready' },
    ]);

    // Ready to blocked is no change of record (both queued): only the started plans' bodies are written, before any label.
    expect(github.log(from)).toEqual(['POST /graphql']);
    const query = (github.requests.at(-1)!.body as { query: string }).query;
    expect([...query.matchAll(/(record|add|remove)\d+: (\w+)/g)].map((m) => m[2])).toEqual([
      'updateIssue',
      'updateIssue',
      'addLabelsToLabelable',
      'removeLabelsFromLabelable',
      'addLabelsToLabelable',
      'removeLabelsFromLabelable',
      'addLabelsToLabelable',
      'removeLabelsFromLabelable',
    ]);
    expect([1, 2, 3].map(record)).toEqual(['running', 'running', 'queued']);
    expect(github.labelMutations(from)).toEqual([
      '#1 +status:running',
      '#1 -status:ready',
      '#2 +status:running',
      '#2 -status:ready',
      '#3 +status:ready',
      '#3 -status:blocked',
    ]);
    expect(github.statuses.at(-1)).toBe(200);
    expect((github.requests.at(-1)!.body as { query: string }).query).toMatch(/^mutation SetStatuses\(/);
    expect(github.issue(1).labels).toEqual(['harness:plan', 'spec:SPC-001', 'phase:01', 'status:running']);
    expect(github.issue(3).labels).toEqual(['harness:plan', 'spec:SPC-001', 'phase:01', 'status:ready']);
    expect(after.map((a) => a.labels.filter((x) => x.startsWith('status:')))).toEqual([['status:running'], ['status:running'], ['status:ready']]);
    expect(after[0]!.body).toBe(github.issue(1).body);
  });

  it('a label someone set meanwhile stays: labels are added and removed one by one, never the list replaced', async () => {
    plan(1, 'ready');
    plan(2, 'running');
    const gw = client();
    await gw.planIssues('SPC-001');
    const before = read(1);
    github.issue(1).labels.push('priority:high');
    const from = github.requests.length;

    await gw.setStatus(before, 'running');

    expect(github.log(from)).toEqual(['POST /graphql']);
    expect(record(1)).toBe('running');
    expect(github.issue(1).labels).toEqual(['harness:plan', 'spec:SPC-001', 'phase:01', 'priority:high', 'status:running']);
  });

  it('one label to add and none to remove is one REST request already: no GraphQL', async () => {
    plan(1);
    const gw = client();
    await gw.planIssues('SPC-001');
    const from = github.requests.length;

    await gw.setStatus(read(1), 'ready');

    expect(github.log(from)).toEqual([`PATCH ${R}/issues/1`, `POST ${R}/issues/1/labels`]);
    expect(record(1)).toBe('queued');
    expect(github.issue(1).labels).toContain('status:ready');
  });

  it('issues the gateway has not read go by REST, two requests each (a record written is a read: its answer names the issue)', async () => {
    plan(1, 'ready');
    const gw = client(
      new Map([
        ['status:blocked', labelNodeId('status:blocked')],
        ['status:ready', labelNodeId('status:ready')],
      ]),
    );

    // Ready to blocked leaves the record (queued) as it is: nothing read the issue.
    await gw.setStatus(read(1), 'blocked');

    expect(github.log()).toEqual([`POST ${R}/issues/1/labels`, `DELETE ${R}/issues/1/labels/status:ready`]);
  });

  it('labels no answer named yet are learnt in one query when that saves requests', async () => {
    plan(1);
    plan(2);
    plan(3);
    const gw = client();
    await gw.planIssues('SPC-001');
    const from = github.requests.length;

    await gw.setStatuses([1, 2, 3].map((n) => ({ issue: read(n), status: 'ready' as const })));

    expect(github.log(from)).toEqual(['POST /graphql', 'POST /graphql']);
    expect((github.requests[from]!.body as { query: string }).query).toMatch(/^query Labels/);
    expect([1, 2, 3].map(record)).toEqual(['queued', 'queued', 'queued']);
    expect(github.labelMutations(from)).toEqual(['#1 +status:ready', '#2 +status:ready', '#3 +status:ready']);
  });

  it(`more than ${STATUS_MOVES_PER_REQUEST} issues take a request per ${STATUS_MOVES_PER_REQUEST}`, async () => {
    for (let n = 1; n <= STATUS_MOVES_PER_REQUEST + 2; n++) plan(n, 'blocked');
    const gw = client(new Map([['status:ready', labelNodeId('status:ready')]]));
    await gw.planIssues('SPC-001');
    const from = github.requests.length;

    await gw.setStatuses(github.issues.map((i) => ({ issue: read(i.number), status: 'ready' as const })));

    expect(github.log(from)).toEqual(['POST /graphql', 'POST /graphql']);
    expect(github.issues.every((i) => i.labels.includes('status:ready') && !i.labels.includes('status:blocked'))).toBe(true);
  });
});

describe('when GitHub refuses a mutation', () => {
  it('a label id that names nothing (deleted and made again) is forgotten, and that issue goes by REST', async () => {
    plan(1, 'ready');
    plan(2, 'ready');
    const known = labelIds();
    known.set('status:running', 'LA_gone');
    const gw = client(known);
    await gw.planIssues('SPC-001');
    // The list showed status:ready's id, not status:running's: the App's memory had an old one.
    known.set('status:running', 'LA_gone');
    const from = github.requests.length;

    await gw.setStatuses([
      { issue: read(1), status: 'running' },
      { issue: read(2), status: 'running' },
    ]);

    // The records are written by the same request; the labels it could not move, by REST.
    expect(github.log(from)).toEqual([
      'POST /graphql',
      `POST ${R}/issues/1/labels`,
      `DELETE ${R}/issues/1/labels/status:ready`,
      `POST ${R}/issues/2/labels`,
      `DELETE ${R}/issues/2/labels/status:ready`,
    ]);
    // Forgotten, and learnt again from REST's answer, which lists the issue's labels with their ids.
    expect(known.get('status:running')).toBe(labelNodeId('status:running'));
    expect([1, 2].map(record)).toEqual(['running', 'running']);
    expect(github.issues.map((i) => i.labels.filter((l) => l.startsWith('status:')))).toEqual([['status:running'], ['status:running']]);
  });

  it('a GraphQL request that fails outright is made again by REST: adding a label twice, or removing one gone, changes nothing', async () => {
    plan(1, 'ready');
    plan(2, 'blocked');
    const gw = client();
    await gw.planIssues('SPC-001');
    github.fail = (method, url) => (method === 'POST' && url === '/graphql' ? 502 : undefined);
    const from = github.requests.length;

    await gw.setStatuses([
      { issue: read(1), status: 'blocked' },
      { issue: read(2), status: 'ready' },
    ]);

    expect(github.log(from).filter((l) => l !== 'POST /graphql')).toEqual([
      `POST ${R}/issues/1/labels`,
      `DELETE ${R}/issues/1/labels/status:ready`,
      `POST ${R}/issues/2/labels`,
      `DELETE ${R}/issues/2/labels/status:blocked`,
    ]);
    expect(github.issues.map((i) => i.labels.filter((l) => l.startsWith('status:')))).toEqual([['status:blocked'], ['status:ready']]);
  });
});

describe('when the GraphQL request carrying records fails outright', () => {
  it('writes each record by REST before any label, then the labels by REST', async () => {
    plan(1, 'ready');
    plan(2, 'ready');
    const gw = client();
    await gw.planIssues('SPC-001');
    github.fail = (method, url) => (method === 'POST' && url === '/graphql' ? 502 : undefined);
    const from = github.requests.length;

    const after = await gw.setStatuses([
      { issue: read(1), status: 'running' },
      { issue: read(2), status: 'running' },
    ]);

    expect(github.log(from).filter((l) => l !== 'POST /graphql')).toEqual([
      `PATCH ${R}/issues/1`,
      `PATCH ${R}/issues/2`,
      `POST ${R}/issues/1/labels`,
      `DELETE ${R}/issues/1/labels/status:ready`,
      `POST ${R}/issues/2/labels`,
      `DELETE ${R}/issues/2/labels/status:ready`,
    ]);
    expect([1, 2].map(record)).toEqual(['running', 'running']);
    expect(after.map((a) => a.body)).toEqual([github.issue(1).body, github.issue(2).body]);
  });
});

describe('a worker moving its plan from running to verified as it ends', () => {
  it('reads the issue again, and only while the record still says running writes verified: the record and then the labels in one GraphQL request', async () => {
    plan(1, 'running');
    plan(2, 'verified');
    const gw = client();
    await gw.planIssues('SPC-001');
    const from = github.requests.length;

    expect(await gw.moveStatus(1, 'running', 'verified')).toBe('moved');

    expect(github.log(from)).toEqual([`GET ${R}/issues/1`, 'POST /graphql']);
    expect(github.labelMutations(from)).toEqual(['#1 +status:verified', '#1 -status:running']);
    expect(record(1)).toBe('verified');
    expect(github.issue(1).labels.filter((l) => l.startsWith('status:'))).toEqual(['status:verified']);
  });

  it('leaves a record someone wrote meanwhile: theirs stands, and nothing is written', async () => {
    plan(1, 'running');
    plan(2, 'verified');
    const gw = client();
    await gw.planIssues('SPC-001');
    // A /harness retry while the plan ran: queued again.
    github.issue(1).body = github.issue(1).body!.replace('status=running', 'status=queued');
    github.issue(1).labels = github
      .issue(1)
      .labels.filter((l) => l !== 'status:running')
      .concat('status:ready');
    const from = github.requests.length;

    expect(await gw.moveStatus(1, 'running', 'verified')).toBe('changed');

    expect(github.log(from)).toEqual([`GET ${R}/issues/1`]);
    expect(record(1)).toBe('queued');
    expect(github.issue(1).labels.filter((l) => l.startsWith('status:'))).toEqual(['status:ready']);
  });

  it('asks the record, never the label: a status:failed a triager added while the plan ran stops nothing, and is put right', async () => {
    plan(1, 'running');
    plan(2, 'verified');
    const gw = client();
    await gw.planIssues('SPC-001');
    github.issue(1).labels = github
      .issue(1)
      .labels.filter((l) => l !== 'status:running')
      .concat('status:failed');

    expect(await gw.moveStatus(1, 'running', 'verified')).toBe('moved');

    expect(record(1)).toBe('verified');
    expect(github.issue(1).labels.filter((l) => l.startsWith('status:'))).toEqual(['status:verified']);
  });

  it("writes the worker's run record in the status's own PATCH, and alone when the status is someone else's now", async () => {
    plan(1, 'running');
    plan(2, 'running');
    const gw = client();
    await gw.planIssues('SPC-001');
    const addRuns = (body: string) => body.replace(' -->', ' runs=42.1:1:2::::v:claude:::: -->');
    github.issue(2).body = github.issue(2).body!.replace('status=running', 'status=failed');
    const from = github.requests.length;

    expect(await gw.moveStatus(1, 'running', 'verified', addRuns)).toBe('moved');
    expect(await gw.moveStatus(2, 'running', 'verified', addRuns)).toBe('changed');

    expect(github.log(from)).toEqual([
      `GET ${R}/issues/1`,
      `PATCH ${R}/issues/1`,
      `POST ${R}/issues/1/labels`,
      `DELETE ${R}/issues/1/labels/status:running`,
      `GET ${R}/issues/2`,
      `PATCH ${R}/issues/2`,
    ]);
    expect(github.issue(1).body!.split('\n')[0]).toMatch(/ status=verified runs=42\.1:1:2::::v:claude:::: -->$/);
    // An abort's failed stands; the run's account is kept all the same.
    expect(github.issue(2).body!.split('\n')[0]).toMatch(/ status=failed runs=42\.1:1:2::::v:claude:::: -->$/);
  });
});
