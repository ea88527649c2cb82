import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_GRACE_MS } from '../../../app/engine/forge/claims.js';
import { FakeGitHub, spoken } from '../../helpers/github-repo.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';

/**
 * claim-then-crash on the scheduler's side: a delivery created a plan's branch (its claim)
 * and died before dispatching. Every later round loses the claim to that branch; the plan
 * must not be stuck there. On the stateful fake GitHub, with the exact requests.
 */

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const R = '/repos/Codertocat/Hello-World';
const SPEC = 'SPC-001';
const PLAN = '01-01';
const BRANCH = `harness/${SPEC}/${PLAN}`;
const BASE = 'ba5e000000000000000000000000000000000001';
const LONG_AGO = new Date(Date.now() - CLAIM_GRACE_MS - 60_000).toISOString();

function repository(claimedAt: string | undefined, status = 'ready'): FakeGitHub {
  const github = new FakeGitHub();
  github.config = 'slots: 2\n';
  github.commit(BASE, { 'README.md': '# Hello\n' });
  github.branches.set('master', BASE);
  // The dead delivery's claim: the branch at the base head, created then, and nothing else.
  github.branches.set(BRANCH, BASE);
  if (claimedAt !== undefined) github.branchCreations.set(BRANCH, claimedAt);
  github.roles.set('Codertocat', 'write');
  github.issues.push({
    id: 9011,
    number: 11,
    title: `[${PLAN}] Plan ${PLAN}`,
    body: `<!-- harness:plan ${SPEC}/${PLAN} hash=0123456789abcdef -->\n**Spec** ${SPEC}\n\n**Depends on:** nothing`,
    labels: ['harness:plan', `spec:${SPEC}`, 'phase:01'],
    state: 'open',
    state_reason: null,
  });
  // What the App recorded: the plan queued (or at another status), the label its view.
  github.planStatus(11, status as 'ready');
  github.install();
  return github;
}

function round() {
  const payload = webhookExample<Record<string, Record<string, unknown>>>('check_run', (p) => p.action === 'completed');
  payload.check_run!.name = 'harness / plan 01-09';
  payload.check_run!.external_id = `${SPEC}/01-09`;
  return { id: 'round', name: 'check_run', payload } as never;
}

describe('claim-then-crash', () => {
  it('the next round finds the claim with no worker behind it past the grace period, releases it, claims again and dispatches once', async () => {
    const github = repository(LONG_AGO);

    await testProbot().receive(round());

    expect(github.log()).toEqual([
      `GET ${R}/contents/.github/harness.yml`,
      // Who the App is (asked once per process): its plan issues are those its bot opened.
      'POST /graphql',
      `GET ${R}/issues?labels=harness:plan,spec:${SPEC}&state=all&direction=asc&per_page=100`,
      `GET ${R}/git/ref/heads/master`,
      `POST ${R}/git/refs`,
      `GET ${R}/actions/workflows/harness-worker.yml/runs?status=queued&per_page=100`,
      `GET ${R}/actions/workflows/harness-worker.yml/runs?status=in_progress&per_page=100`,
      `GET ${R}/activity?ref=refs/heads/${BRANCH}&activity_type=branch_creation&direction=desc&per_page=1`,
      `POST ${R}/git/refs`,
      `GET ${R}/git/ref/heads/${BRANCH}`,
      `DELETE ${R}/git/refs/heads/${BRANCH}`,
      `POST ${R}/git/refs`,
      `POST ${R}/actions/workflows/harness-worker.yml/dispatches`,
      `POST ${R}/check-runs`,
      `PATCH ${R}/issues/11`,
      `POST ${R}/issues/11/labels`,
      `DELETE ${R}/issues/11/labels/status:ready`,
    ]);
    expect(github.dispatches).toHaveLength(1);
    expect(github.branches.get(BRANCH)).toBe(BASE);
    expect(github.issue(11).labels).toContain('status:running');
    // A bare claim holds no work: nothing kept; the one ref is the takeover, named after the dead claim's creation.
    expect([...github.refs.keys()]).toEqual([`refs/harness/plans/${SPEC}/${PLAN}/takeover/branch-${new Date(LONG_AGO).getTime()}`]);
  });

  it('a round that found the claim dead after another round took it over leaves the new claim alone', async () => {
    const github = repository(LONG_AGO);
    // The racing round takes the dead claim over between this one's reading it and acting on it.
    github.beforeServe = (method, url) => {
      if (method !== 'POST' || !url.endsWith('/git/refs') || github.refs.size > 0 || !github.requests.some((r) => r.url.includes('/activity'))) return;
      github.refs.set(`refs/harness/plans/${SPEC}/${PLAN}/takeover/branch-${new Date(LONG_AGO).getTime()}`, BASE);
      github.branchCreations.set(BRANCH, new Date().toISOString());
    };

    await testProbot().receive(round());

    expect(github.dispatches).toEqual([]);
    expect(github.branches.get(BRANCH)).toBe(BASE);
    expect(github.log().filter((l) => l.startsWith('DELETE'))).toEqual([]);
  });

  it('a claim made moments ago (or of unknown age) is a delivery at work: left alone, nothing dispatched', async () => {
    for (const at of [new Date().toISOString(), undefined]) {
      const github = repository(at);
      await testProbot().receive(round());
      expect(github.dispatches).toEqual([]);
      expect(github.branches.get(BRANCH)).toBe(BASE);
      expect(github.issue(11).labels).toContain('status:ready');
      nock.cleanAll();
    }
  });

  it('a claim whose worker was dispatched before the delivery died gets its label, and no second worker', async () => {
    const github = repository(LONG_AGO);
    github.workflowRuns.push({ id: 7001, display_title: `harness ${SPEC}/${PLAN}`, status: 'queued' });

    await testProbot().receive(round());

    expect(github.dispatches).toEqual([]);
    expect(github.issue(11).labels).toContain('status:running');
    expect(github.issue(11).labels).not.toContain('status:ready');
  });

  it('work on a released claim is kept under refs/harness/kept/ before the branch goes', async () => {
    const github = repository(LONG_AGO);
    const work = 'a11ce00000000000000000000000000000000002';
    github.commit(work, { 'README.md': '# Hello\n', 'src/a.ts': 'x\n' }, [BASE]);
    github.branches.set(BRANCH, work);

    await testProbot().receive(round());

    expect(github.refs.get(`refs/harness/kept/${SPEC}/${PLAN}/${work.slice(0, 12)}`)).toBe(work);
    expect(github.dispatches).toHaveLength(1);
  });

  it('/harness retry on a plan left ready behind a dead claim recovers it, instead of refusing', async () => {
    const github = repository(LONG_AGO);
    const payload = webhookExample<Record<string, Record<string, unknown>>>('issue_comment', (p) => p.action === 'created');
    payload.comment!.body = `/harness retry ${SPEC}/${PLAN}`;

    await testProbot().receive({ id: 'retry', name: 'issue_comment', payload } as never);

    expect(github.dispatches).toHaveLength(1);
    expect(spoken(github.comments.at(-1)!.body)).toBe(`${SPEC} plan ${PLAN} (#11) was queued and is started now.`);
  });
});

describe('a phase verification claimed, then a crash', () => {
  const PHASE_BRANCH = `harness/${SPEC}/phase-01`;

  /** Phase 01's one plan verified and merged; its verification claimed (the branch) at `claimedAt` and never dispatched. */
  function claimedPhase(claimedAt: string): FakeGitHub {
    const github = repository(undefined, 'verified');
    github.branches.delete(BRANCH);
    github.issues[0]!.state = 'closed';
    github.issues[0]!.state_reason = 'completed';
    // The App's record of the merged plan PR, which only it and writers can write (verified-record.ts).
    github.issues[0]!.body = github.issues[0]!.body!.replace(' -->', ' verified=42 -->');
    github.branches.set(PHASE_BRANCH, BASE);
    github.branchCreations.set(PHASE_BRANCH, claimedAt);
    return github;
  }

  it('the next round that leaves the spec idle finds the claim with no run, no check and past the grace period: released, and the verification dispatched once', async () => {
    const github = claimedPhase(LONG_AGO);

    await testProbot().receive(round());

    expect(github.dispatches).toHaveLength(1);
    expect(github.dispatches[0]!.body).toMatchObject({ inputs: { spec: SPEC, plan: 'phase-01' } });
    expect(github.branches.get(PHASE_BRANCH)).toBe(BASE);
    expect(github.refs.has(`refs/harness/phases/${SPEC}/01/takeover-${new Date(LONG_AGO).getTime()}`)).toBe(true);
    expect(github.checkRuns.map((c) => c.name)).toEqual(['harness / phase 01']);

    // The same event again: the new claim is fresh and its check run exists; nothing more.
    await testProbot().receive(round());
    expect(github.dispatches).toHaveLength(1);
  });

  it('a phase whose worker ran (its record under refs/harness/phases/) costs one listing and is left alone', async () => {
    const github = claimedPhase(LONG_AGO);
    github.refs.set(`refs/harness/phases/${SPEC}/01/ran`, BASE);

    await testProbot().receive(round());

    expect(github.dispatches).toEqual([]);
    expect(github.log().filter((l) => l.includes('/activity') || l.includes('/check-runs?') || l.includes('/runs?'))).toEqual([]);
  });

  it('a phase dispatched before these records existed (its check run there, completed) is recorded once, not dispatched again', async () => {
    const github = claimedPhase(LONG_AGO);
    github.checkRuns.push({
      id: 5,
      name: 'harness / phase 01',
      head_sha: BASE,
      external_id: `${SPEC}/phase-01`,
      status: 'completed',
      conclusion: 'success',
      output: { title: null, summary: null, text: null },
      annotations: [],
    });

    await testProbot().receive(round());

    expect(github.dispatches).toEqual([]);
    expect(github.refs.get(`refs/harness/phases/${SPEC}/01/ran`)).toBe(BASE);
  });

  it('a claim made moments ago, or whose worker is under way, is left alone', async () => {
    const fresh = claimedPhase(new Date().toISOString());
    await testProbot().receive(round());
    expect(fresh.dispatches).toEqual([]);
    nock.cleanAll();

    const running = claimedPhase(LONG_AGO);
    running.workflowRuns.push({ id: 7002, display_title: `harness ${SPEC}/phase-01`, status: 'in_progress' });
    await testProbot().receive(round());
    expect(running.dispatches).toEqual([]);
    expect(running.branches.get(PHASE_BRANCH)).toBe(BASE);
  });

  it('two rounds that find the same dead claim at once dispatch one verification', async () => {
    const github = claimedPhase(LONG_AGO);
    const probot = testProbot();

    await Promise.all([probot.receive(round()), probot.receive({ ...(round() as object), id: 'round-2' } as never)]);

    expect(github.dispatches).toHaveLength(1);
  });
});
