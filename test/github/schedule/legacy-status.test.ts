import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub } from '../../helpers/github-repo.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';

/**
 * A plan issue from before the App recorded statuses on the marker line: queued by
 * `/harness execute` then, it has its `status:ready` label and no `status=` record. The label
 * is taken for the record only when the App applied it (the issue's events say who did).
 */

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const R = '/repos/Codertocat/Hello-World';
const SPEC = 'SPC-001';
const BASE = 'ba5e000000000000000000000000000000000001';

/** Plan 01-01's issue labelled status:ready, by `who`, with no record of it. */
function repository(who: string): FakeGitHub {
  const github = new FakeGitHub();
  github.config = 'slots: 2\n';
  github.commit(BASE, { 'README.md': '# Hello\n' });
  github.branches.set('master', BASE);
  github.issues.push({
    id: 9011,
    number: 11,
    title: '[01-01] Plan 01-01',
    body: `<!-- harness:plan ${SPEC}/01-01 hash=0123456789abcdef -->\n**Spec** ${SPEC}\n\n**Depends on:** nothing`,
    labels: ['harness:plan', `spec:${SPEC}`, 'phase:01', 'status:ready'],
    state: 'open',
    state_reason: null,
  });
  github.issueEvents.set(11, [
    { event: 'labeled', label: { name: 'harness:plan' }, actor: { login: 'harness[bot]' } },
    { event: 'labeled', label: { name: 'status:ready' }, actor: { login: who } },
  ]);
  github.install();
  return github;
}

function round(id = 'round') {
  const payload = webhookExample<Record<string, Record<string, unknown>>>('check_run', (p) => p.action === 'completed');
  payload.check_run!.name = 'harness / plan 01-09';
  payload.check_run!.external_id = `${SPEC}/01-09`;
  return { id, name: 'check_run', payload } as never;
}

describe('a plan queued before the App recorded statuses', () => {
  it('is queued by its record once the App finds it applied the label itself, and runs; the next round reads no history', async () => {
    const github = repository('harness[bot]');

    await testProbot().receive(round());

    expect(github.log()).toContain(`GET ${R}/issues/11/events?per_page=100`);
    expect(github.dispatches.map((d) => (d.body as { inputs: { plan: string } }).inputs.plan)).toEqual(['01-01']);
    expect(github.issue(11).body).toMatch(/ status=running /);

    const before = github.requests.length;
    await testProbot().receive(round('round-2'));
    expect(github.log(before).filter((l) => l.includes('/events'))).toEqual([]);
    expect(github.dispatches).toHaveLength(1);
  });

  it('stays a view when someone else applied the label: nothing runs, and no record is written', async () => {
    const github = repository('triager');

    await testProbot().receive(round());

    expect(github.dispatches).toEqual([]);
    expect(github.issue(11).body).not.toMatch(/ status=/);
  });
});
