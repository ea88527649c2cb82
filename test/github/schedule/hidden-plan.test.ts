import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub } from '../../helpers/github-repo.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';

/**
 * A plan issue hidden from the App's list: someone with the triage role took its `harness:plan`
 * or `spec:<id>` label off (GitHub lists issues by label). The plans listed in its phase are all
 * done; the hidden one is not. Its phase is not complete, so no verification of it starts.
 */

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const R = '/repos/Codertocat/Hello-World';
const SPEC = 'SPC-001';
const BASE = 'ba5e000000000000000000000000000000000001';

/** Phase 01 of two plans: 01-01 verified and merged (the App's record), 01-02 running, its labels as `labels` leave them. */
function repository(labels: string[]): FakeGitHub {
  const github = new FakeGitHub();
  github.config = 'slots: 2\n';
  github.commit(BASE, { 'README.md': '# Hello\n' });
  github.branches.set('master', BASE);
  github.roles.set('Codertocat', 'write');
  const issue = (n: number, plan: string, records: string, issueLabels: string[], state: 'open' | 'closed') => ({
    id: 9000 + n,
    number: n,
    title: `[${plan}] Plan ${plan}`,
    body: `<!-- harness:plan ${SPEC}/${plan} hash=0123456789abcdef${records} -->\n**Spec** ${SPEC}\n\n**Depends on:** nothing`,
    labels: issueLabels,
    state,
    state_reason: state === 'closed' ? ('completed' as const) : null,
  });
  github.issues.push(issue(11, '01-01', ' verified=42 status=verified', ['harness:plan', `spec:${SPEC}`, 'phase:01', 'status:verified'], 'closed'));
  github.issues.push(issue(12, '01-02', ' status=running', labels, 'open'));
  github.branches.set(`harness/${SPEC}/01-02`, BASE);
  github.workflowRuns.push({ id: 5001, display_title: `harness ${SPEC}/01-02`, status: 'in_progress' });
  github.install();
  return github;
}

function round() {
  const payload = webhookExample<Record<string, Record<string, unknown>>>('check_run', (p) => p.action === 'completed');
  payload.check_run!.name = 'harness / plan 01-09';
  payload.check_run!.external_id = `${SPEC}/01-09`;
  return { id: 'round', name: 'check_run', payload } as never;
}

describe('a plan issue someone took the labels off', () => {
  it('keeps its phase from being verified: the App finds the issue by its login and marker, and dispatches nothing', async () => {
    const github = repository(['phase:01', 'status:running']);

    await testProbot().receive(round());

    expect(github.log()).toContain(`GET ${R}/issues?creator=harness[bot]&state=all&direction=asc&per_page=100`);
    expect(github.dispatches).toEqual([]);
    expect(github.branches.has(`harness/${SPEC}/phase-01`)).toBe(false);
  });

  it('with its labels in place, the phase is not complete either, and no listing by login is needed', async () => {
    const github = repository(['harness:plan', `spec:${SPEC}`, 'phase:01', 'status:running']);

    await testProbot().receive(round());

    expect(github.log().filter((l) => l.includes('creator='))).toEqual([]);
    expect(github.dispatches).toEqual([]);
  });

  it("once the hidden plan is done by the App's record, the phase is complete and its verification dispatched once", async () => {
    const github = repository(['phase:01']);
    const hidden = github.issue(12);
    hidden.body = hidden.body!.replace(' status=running', ' verified=43 status=verified');
    hidden.state = 'closed';
    hidden.state_reason = 'completed';
    github.branches.delete(`harness/${SPEC}/01-02`);
    github.workflowRuns.length = 0;

    await testProbot().receive(round());

    expect(github.dispatches.map((d) => (d.body as { inputs: { plan: string } }).inputs.plan)).toEqual(['phase-01']);
  });
});
