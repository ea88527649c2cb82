import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub } from '../../helpers/github-repo.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';
import { appProcessMemory } from '../../helpers/app-process.js';

/**
 * The App's rounds, delivery after delivery, on the stateful fake GitHub (which answers
 * conditional requests as GitHub does): what did not change since the App last read it is a
 * 304, which does not count against the installation's rate limit.
 */

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const R = '/repos/Codertocat/Hello-World';
const SPEC = 'SPC-001';
const BASE = 'ba5e000000000000000000000000000000000001';

function repository(): FakeGitHub {
  const github = new FakeGitHub();
  github.config = 'slots: 1\n';
  github.commit(BASE, { 'README.md': '# Hello\n' });
  github.branches.set('master', BASE);
  github.roles.set('Codertocat', 'write');
  for (const [n, plan, status] of [
    [11, '01-01', 'running'],
    [12, '01-02', 'ready'],
  ] as const) {
    github.issues.push({
      id: 9000 + n,
      number: n,
      title: `[${plan}] Plan ${plan}`,
      body: `<!-- harness:plan ${SPEC}/${plan} hash=0123456789abcdef -->\n**Spec** ${SPEC}\n\n**Depends on:** nothing`,
      labels: ['harness:plan', `spec:${SPEC}`, 'phase:01'],
      state: 'open',
      state_reason: null,
    });
    // As the App recorded it: the record on the marker line, the label its view.
    github.planStatus(n, status);
  }
  github.install();
  return github;
}

/** A check run of another plan completing: an event that runs a round and changes nothing. */
function round(id: string) {
  const payload = webhookExample<Record<string, Record<string, unknown>>>('check_run', (p) => p.action === 'completed');
  payload.check_run!.name = 'harness / plan 01-09';
  payload.check_run!.external_id = `${SPEC}/01-09`;
  return { id, name: 'check_run', payload } as never;
}

describe('rounds on unchanged issues', () => {
  it('read the config and the plan issues again conditionally: GitHub answers 304 and the round decides the same (nothing to start: the one slot is taken)', async () => {
    const github = repository();
    await testProbot().receive(round('first'));
    const before = github.requests.length;
    await testProbot().receive(round('second'));

    const reads = github.requests.slice(before).map((r, i) => `${r.method} ${r.url} ${github.statuses[before + i]}`);
    expect(reads).toEqual([
      `GET ${R}/contents/.github/harness.yml 304`,
      `GET ${R}/issues?labels=harness:plan,spec:${SPEC}&state=all&direction=asc&per_page=100 304`,
    ]);
  });

  it('read in full what changed meanwhile, and act on it', async () => {
    const github = repository();
    await testProbot().receive(round('first'));
    // The running plan failed (a worker run's outcome, as the App records it): its slot is free.
    github.planStatus(11, 'failed');
    const before = github.requests.length;
    await testProbot().receive(round('second'));

    expect(github.statuses[before + 1]).toBe(200);
    expect(github.dispatches.map((d) => (d.body as { inputs: { plan: string } }).inputs.plan)).toEqual(['01-02']);
  });
});

describe("a round's workers and GitHub's content limits", () => {
  it("books the plan PR each dispatched worker will open in the App's content hour: App and workers keep the limit together", async () => {
    const github = repository();
    github.planStatus(11, 'failed');
    await testProbot().receive(round('content-booked'));

    expect(github.dispatches).toHaveLength(1);
    // The round itself created nothing GitHub counts as content (a ref, a dispatch, a check run, labels): the one counted is the worker's PR to come.
    const paces = [...appProcessMemory().paces.values()];
    expect(paces.map((p) => p.contentThisHour)).toEqual([1]);
  });
});

describe("a round's order", () => {
  it('is searched once for the issues as they stand and kept: a round on the same plans reuses it', async () => {
    const github = repository();
    await testProbot().receive(round('order-first'));
    const orders = appProcessMemory().roundOrders;
    expect(orders.size).toBe(1);
    const [searched] = [...orders.values()];
    expect(searched?.order?.priority.size).toBe(2);
    // A status changed (the running plan failed): the same plans, the same order, not searched again.
    github.planStatus(11, 'failed');
    await testProbot().receive(round('order-second'));
    expect([...orders.values()]).toEqual([searched]);
    expect([...orders.values()][0]).toBe(searched);
  });
});
