import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseMarker, withMarkerRecord } from '../../../app/engine/forge/plan-issue.js';
import { parsePhaseMarker } from '../../../app/engine/forge/phase-issue.js';
import { parseSpecSource } from '../../../app/engine/forge/spec-issue.js';
import { restartApp } from '../../helpers/app-process.js';
import { CONTENT_WRITES_PER_HOUR } from '../../../app/gateway/limits.js';
import { FakeGitHub, specAt, type FakeIssue } from '../../helpers/github-repo.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';
import { specOf, type PlanOptions } from '../../helpers/spec.js';

/**
 * Large specs on GitHub (issue 25): plan issues made a window ahead of the work, phase issues
 * as the middle level under the spec's tracking issue, and dependency links within GitHub's 50
 * of a kind. Driven through Probot with the real `pull_request` and `check_run` payloads of
 * @octokit/webhooks-examples against the stateful fake GitHub (test/helpers/github-repo.ts),
 * which holds at most 100 sub-issues under an issue and 50 links of a kind, as GitHub does.
 */

interface PullRequestPayload {
  action: string;
  before?: string;
  after?: string;
  pull_request: { head: { sha: string }; base: { sha: string } };
}

function pullRequest(action: 'opened' | 'synchronize', head?: string): PullRequestPayload {
  const payload = webhookExample<PullRequestPayload>('pull_request', (p) => p.action === action);
  if (head) {
    payload.before = payload.pull_request.head.sha;
    payload.after = head;
    payload.pull_request.head.sha = head;
  }
  return payload;
}

const OPENED = pullRequest('opened');
const HEAD = OPENED.pull_request.head.sha;
const BASE = OPENED.pull_request.base.sha;
const DIR = 'docs/specs/SPC-042-password-reset';
const SPEC = 'SPC-042';

const pad = (n: number) => String(n).padStart(2, '0');

/** `phases` phases of `perPhase` plans; each plan after the first phase needs the plan of the same rank in the phase before. */
function phasedPlans(phases: number, perPhase: number): PlanOptions[] {
  const plans: PlanOptions[] = [];
  for (let ph = 1; ph <= phases; ph++) {
    for (let n = 1; n <= perPhase; n++)
      plans.push({ id: `${pad(ph)}-${pad(n)}`, title: `Plan ${ph}.${n}`, ...(ph > 1 ? { dependsOn: [`${pad(ph - 1)}-${pad(n)}`] } : {}) });
  }
  return plans;
}

function repository(plans: PlanOptions[]): FakeGitHub {
  restartApp();
  const github = new FakeGitHub();
  github.config = 'specs_root: docs/specs\n';
  github.commit(BASE, { 'README.md': '# Hello\n', 'docs/specs/README.md': 'Specs live here.\n' });
  github.commit(HEAD, { 'README.md': '# Hello\n', 'docs/specs/README.md': 'Specs live here.\n', ...specAt(DIR, specOf(plans)) });
  github.branches.set('master', BASE);
  github.install();
  return github;
}

function push(github: FakeGitHub, sha: string, plans: PlanOptions[]): void {
  github.commit(sha, { 'README.md': '# Hello\n', 'docs/specs/README.md': 'Specs live here.\n', ...specAt(DIR, specOf(plans)) });
}

async function deliver(payload: PullRequestPayload, id = 'delivery-1'): Promise<void> {
  await testProbot().receive({ id, name: 'pull_request', payload } as never);
}

/** A `harness / plan …` check run completing: the cheapest event that runs a scheduling round. */
async function round(id: string): Promise<void> {
  const payload = webhookExample<Record<string, Record<string, unknown>>>('check_run', (p) => p.action === 'completed');
  payload.check_run!.name = 'harness / plan 01-01';
  payload.check_run!.external_id = `${SPEC}/01-01`;
  await testProbot().receive({ id, name: 'check_run', payload } as never);
}

const planOf = (i: FakeIssue) => parseMarker(i.body)?.plan ?? '';
const planIssues = (github: FakeGitHub) => github.issues.filter((i) => i.labels.includes('harness:plan'));
const openPlanIssues = (github: FakeGitHub) => planIssues(github).filter((i) => i.state === 'open' || i.state_reason === 'completed');
const tracking = (github: FakeGitHub) => github.issues.find((i) => (i.body ?? '').startsWith(`<!-- harness:spec ${SPEC}`) && i.state === 'open')!;
function phaseIssues(github: FakeGitHub): Map<string, FakeIssue> {
  const out = new Map<string, FakeIssue>();
  for (const i of github.issues) {
    const marker = parsePhaseMarker(i.body);
    if (marker && i.state === 'open') out.set(marker.phase, i);
  }
  return out;
}
/** Each parent's sub-issues by plan id (or phase), as GitHub holds them. */
function children(github: FakeGitHub, parent: number): string[] {
  return github.subIssueNumbers(parent).map((n) => planOf(github.issue(n)) || `phase ${parsePhaseMarker(github.issue(n).body)?.phase}`);
}
const ids = (plans: readonly PlanOptions[]) => plans.map((p) => p.id);

/**
 * Phase 01 and 02-50 merged; the rest of phase 02 queued by `/harness execute all` (ready, as a
 * round would find it before it relabels): 49 plans with issues not done, under half the window.
 */
function phaseOneMerged(github: FakeGitHub): void {
  for (const issue of planIssues(github)) {
    if (planOf(issue).startsWith('01-') || planOf(issue) === '02-50') merged(issue, 7);
    else github.planStatus(issue.number, 'ready');
  }
}

/** A plan's work merged, as the App leaves its issue (verified-record.ts): closed as completed, verified, the merge on record. */
function merged(issue: FakeIssue, pr: number): void {
  issue.state = 'closed';
  issue.state_reason = 'completed';
  issue.labels = [...issue.labels.filter((l) => !l.startsWith('status:')), 'status:verified'];
  issue.body = withMarkerRecord(withMarkerRecord(issue.body!, 'verified', String(pr)), 'status', 'verified');
}

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('a spec larger than its issue window', () => {
  const PLANS = phasedPlans(6, 50);

  it('gets its plan issues a window at a time: the first phases now, every phase shown, within the hourly allowance for creating content', async () => {
    const github = repository(PLANS);
    await deliver(OPENED);

    // The default window: twice the slots (4), and never fewer than 100 plans: phases 01 and 02.
    expect(planIssues(github).map(planOf)).toEqual(ids(PLANS.slice(0, 100)));
    const phases = phaseIssues(github);
    expect([...phases.keys()]).toEqual(['01', '02', '03', '04', '05', '06']);
    const spec = tracking(github);
    expect(children(github, spec.number)).toEqual(['01', '02', '03', '04', '05', '06'].map((p) => `phase ${p}`));
    expect(children(github, phases.get('01')!.number)).toEqual(ids(PLANS.slice(0, 50)));
    expect(children(github, phases.get('02')!.number)).toEqual(ids(PLANS.slice(50, 100)));
    for (const ph of ['03', '04', '05', '06']) expect(children(github, phases.get(ph)!.number)).toEqual([]);
    // Each plan issue records its phase's issue, and the spec's size (what tells a round that more are to come).
    for (const issue of planIssues(github)) {
      expect(parseMarker(issue.body)).toMatchObject({ parent: phases.get(planOf(issue).slice(0, 2))!.number, of: 300 });
    }
    // Phase 02's needs are mirrored; no plan of phase 03 has an issue to need them from.
    expect([...github.blockedBy.values()].reduce((n, s) => n + s.size, 0)).toBe(50);

    // The whole spec shows meanwhile: the tracking issue lists every phase, each phase issue every plan, the status comment every plan.
    expect(parseSpecSource(spec.body)).toEqual({
      pull: 2,
      tree: github.treeAt(HEAD, DIR),
      specPath: DIR,
      blobBase: 'https://github.com/Codertocat/Hello-World/blob/master',
    });
    expect(spec.body).toContain('| 06 · ');
    expect(phases.get('06')!.body).toContain('| 06-50 Plan 6.50 | 05-50 |');
    const status = github.comments.find((c) => c.body.startsWith(`<!-- harness:status ${SPEC} -->`))!;
    expect(status.body).toContain('| 06-50 Plan 6.50 | — | ⚪ planned | 05-50 |');
    expect(status.body).toContain('| 01-01 Plan 1.1 | #');

    // Every write of the first sync together is under GitHub's 500 content-creating requests an hour.
    expect(github.writes().length).toBeLessThan(CONTENT_WRITES_PER_HOUR);
    const run = github.checkRuns[0]!;
    expect(run.conclusion).toBe('success');
    expect(run.output.summary).toContain(
      'Issue window: 100 of 300 plans have issues, the first the scheduler will start (reaching phase 02); the others get theirs as plans finish (`issue_window`).',
    );
  });

  it('follows the order a run starts plans in, not the phases: a long chain through the last phases has its next links in the window', async () => {
    // The chain 01-01 → 02-01 → … → 06-01 takes 4 hours a link, the other plans half an hour: a run starts each link as the one
    // before ends, while the other slots go through the short plans, so the chain's links start long before phase 03's other plans.
    const chained = PLANS.map((p) => (p.id.endsWith('-01') ? { ...p, extra: 'timeout_minutes: 240' } : p));
    const github = repository(chained);
    await deliver(OPENED);

    const issued = new Set(planIssues(github).map(planOf));
    expect(issued.size).toBe(100);
    for (const link of ['01-01', '02-01', '03-01', '04-01']) expect(issued.has(link)).toBe(true);
    expect(issued.has('03-02')).toBe(false);
    // Every plan with an issue finds one for each plan it needs.
    for (const p of chained.filter((p) => issued.has(p.id))) for (const need of p.dependsOn ?? []) expect(issued.has(need)).toBe(true);
    // Phase 03's issue holds the one plan of it that has an issue; the rest come as the window reaches them.
    expect(children(github, phaseIssues(github).get('03')!.number)).toEqual(['03-01']);

    // Its one plan with an issue merged, phase 03 is still not complete: a round starts no verification of it.
    merged(
      planIssues(github).find((i) => planOf(i) === '03-01')!,
      7,
    );
    await round('round-1');
    expect([...github.branches.keys()].filter((b) => b.includes('phase-'))).toEqual([]);
    expect(github.dispatches.filter((d) => JSON.stringify(d.body).includes('phase-'))).toEqual([]);
  });

  it('moves on once half the window is done: a round fills it again, the new issues queued when every plan with an issue was, and a round run again makes none', async () => {
    const github = repository(PLANS);
    await deliver(OPENED);
    phaseOneMerged(github);

    // All that an hour ago: the move's second look reads only what changed since.
    for (const issue of github.issues) issue.updated_at = new Date(Date.now() - 3_600_000).toISOString();
    const atMove = github.requests.length;
    await round('round-1');
    // 49 not done, filled to 100 in the order a run starts them: phase 03, then 04-01.
    expect(planIssues(github).map(planOf)).toEqual([...ids(PLANS.slice(0, 150)), '04-01']);
    // The round's list read once, in full; after creating, only the issues updated since a little before the move are read again.
    const lists = github.requests
      .slice(atMove)
      .filter((r) => r.method === 'GET' && r.url.startsWith(`/repos/Codertocat/Hello-World/issues?labels=harness:plan,spec:${SPEC}&`));
    expect(lists.map((r) => r.url.replace(/since=[^&]+/, 'since=…'))).toEqual([
      `/repos/Codertocat/Hello-World/issues?labels=harness:plan,spec:${SPEC}&state=all&direction=asc&per_page=100`,
      `/repos/Codertocat/Hello-World/issues?labels=harness:plan,spec:${SPEC}&state=all&since=…&direction=asc&per_page=100`,
    ]);
    const phases = phaseIssues(github);
    expect(children(github, phases.get('03')!.number)).toEqual(ids(PLANS.slice(100, 150)));
    expect(children(github, phases.get('04')!.number)).toEqual(['04-01']);
    // Made queued, in the create itself: ready where what they need is merged (02-50), else blocked.
    const created = planIssues(github).filter((i) => /^0[34]-/.test(planOf(i)));
    for (const issue of created) expect(issue.labels).toContain(planOf(issue) === '03-50' ? 'status:ready' : 'status:blocked');
    expect(github.writes().filter((w) => /\/issues\/\d+\/labels/.test(w.url) && created.some((i) => w.url.includes(`/issues/${i.number}/`)))).toEqual([]);
    // Their needs mirrored, their records as for any plan issue.
    expect(github.blockedBy.get(created[0]!.number)?.size).toBe(1);

    const before = github.requests.length;
    await round('round-2');
    expect(github.writes(before).filter((w) => w.method === 'POST' && /\/issues$/.test(w.url))).toEqual([]);
    expect(planIssues(github)).toHaveLength(151);
  });

  it('moves on just the same when someone with the triage role labelled every issue `status:ready`: the new issues are not queued, since no writer queued the spec (issue 36)', async () => {
    const github = repository(PLANS);
    await deliver(OPENED);
    // As phaseOneMerged, but the rest of phase 02 only labelled: no record, no writer's execute.
    for (const issue of planIssues(github)) {
      if (planOf(issue).startsWith('01-') || planOf(issue) === '02-50') merged(issue, 7);
      else issue.labels.push('status:ready');
    }

    await round('round-1');

    const created = planIssues(github).filter((i) => /^0[34]-/.test(planOf(i)));
    expect(created.length).toBeGreaterThan(0);
    for (const issue of created) expect(issue.labels.filter((l) => l.startsWith('status:'))).toEqual([]);
    // No plan starts (phase 01, done on record, is verified as any complete phase is).
    expect(github.dispatches.map((d) => (d.body as { inputs: { plan: string } }).inputs.plan)).toEqual(['phase-01']);
  });

  it('`/harness execute PP` on a phase the window has not reached makes its issues now, with every plan they need, and queues the phase', async () => {
    const github = repository(PLANS);
    github.roles.set('Codertocat', 'admin');
    await deliver(OPENED);
    expect(planIssues(github)).toHaveLength(100);

    const comment = webhookExample<Record<string, Record<string, unknown>>>('issue_comment', (p) => p.action === 'created');
    const spec = tracking(github);
    comment.issue = { ...comment.issue, number: spec.number, title: spec.title, body: spec.body, labels: spec.labels.map((name) => ({ name })) };
    delete comment.issue.pull_request;
    comment.comment = {
      ...comment.comment,
      body: `/harness execute ${SPEC}/03`,
      user: { ...(comment.comment!.user as object), login: 'Codertocat', type: 'User' },
    };
    await testProbot().receive({ id: 'execute-1', name: 'issue_comment', payload: comment } as never);

    // Phase 03 needs phase 02, which needs phase 01: those three phases have issues, and no more.
    expect(planIssues(github).map(planOf).sort()).toEqual(ids(PLANS.slice(0, 150)));
    // Phase 03 is queued, blocked on what it needs; the phases it needs were not asked for and are not queued.
    for (const issue of planIssues(github)) {
      const status = issue.labels.find((l) => l.startsWith('status:'));
      expect(status).toBe(planOf(issue).startsWith('03-') ? 'status:blocked' : undefined);
    }
    const answer = github.comments.at(-1)!.body;
    expect(answer).toContain('Queued 50 plans of SPC-042, phase 03');
  });

  it('converges with a delivery that moved the window at the same time: the issue it made for the same plan is closed as a duplicate', async () => {
    const github = repository(PLANS);
    await deliver(OPENED);
    phaseOneMerged(github);
    // Another delivery's move lands while this one's is under way: its issue for the last plan this one created, seen by the second look.
    let theirs: FakeIssue | undefined;
    github.beforeServe = (method, url) => {
      if (theirs || method !== 'GET' || !url.includes('since=')) return;
      const ours = planIssues(github).at(-1)!;
      theirs = { ...ours, id: 990_001, number: 990, labels: [...ours.labels], updated_at: github.now().toISOString() };
      github.issues.push(theirs);
    };
    await round('round-1');

    expect(theirs).toBeDefined();
    expect(github.issue(990)).toMatchObject({ state: 'closed', state_reason: 'duplicate' });
    expect(openPlanIssues(github).map(planOf).sort()).toEqual([...ids(PLANS.slice(0, 150)), '04-01']);
  });

  it('converges after a crash mid-window: the next delivery makes the rest, and no plan gets two issues', async () => {
    // What a sync without a fault leaves (the first test): phases 01 and 02's plans, every phase's issue.
    const expected = { plans: ids(PLANS.slice(0, 100)), phases: ['01', '02', '03', '04', '05', '06'] };
    const github = repository(PLANS);
    let creates = 0;
    let dying = false;
    // The 60th GraphQL request (a plan issue created under its phase's) fails with a server error, mid-window, and so does the
    // REST create the sync falls back to: the delivery dies there.
    github.fail = (method, url) => {
      if (method === 'POST' && url === '/graphql' && ++creates === 60) return ((dying = true), 502);
      return dying && method === 'POST' && url.endsWith('/issues') ? 502 : undefined;
    };
    await testProbot()
      .receive({ id: 'delivery-1', name: 'pull_request', payload: OPENED } as never)
      .catch(() => undefined);
    expect(planIssues(github).length).toBeLessThan(100);
    github.fail = () => undefined;
    await deliver(OPENED, 'delivery-2');

    expect(openPlanIssues(github).map(planOf).sort()).toEqual(expected.plans);
    expect(planIssues(github)).toHaveLength(100);
    expect([...phaseIssues(github).keys()]).toEqual(expected.phases);
    for (const [phase, issue] of phaseIssues(github)) {
      const want = phase <= '02' ? ids(PLANS.filter((p) => p.id.startsWith(`${phase}-`))) : [];
      expect(children(github, issue.number).sort()).toEqual(want);
    }
    expect(github.checkRuns.at(-1)!.conclusion).toBe('success');
  });
});

describe('a spec of more plans than one issue holds', () => {
  it('nests them under phase issues; a spec synced before that migrates: its plan issues re-parented, none made twice, and a later sync moves nothing', async () => {
    // Synced as it was before: 90 plans, every one under the tracking issue.
    const first = [...phasedPlans(1, 50), ...phasedPlans(2, 40).filter((p) => p.id.startsWith('02-'))];
    const github = repository(first);
    await deliver(OPENED);
    const spec = tracking(github);
    expect(children(github, spec.number)).toHaveLength(90);
    const numbers = new Map(planIssues(github).map((i) => [planOf(i), i.number]));

    // It grows to 110 plans: more than GitHub holds under one issue. The window (config) takes them all.
    github.config = 'specs_root: docs/specs\nissue_window: 200\n';
    const grown = [...phasedPlans(1, 60), ...phasedPlans(2, 50).filter((p) => p.id.startsWith('02-'))];
    const PUSHED = 'c0ffee0000000000000000000000000000000001';
    push(github, PUSHED, grown);
    await deliver(pullRequest('synchronize', PUSHED), 'delivery-2');

    const phases = phaseIssues(github);
    expect(children(github, spec.number)).toEqual(['phase 01', 'phase 02']);
    expect(children(github, phases.get('01')!.number).sort()).toEqual(ids(grown.filter((p) => p.id.startsWith('01-'))));
    expect(children(github, phases.get('02')!.number).sort()).toEqual(ids(grown.filter((p) => p.id.startsWith('02-'))));
    // The 90 kept their issues; 20 new ones; nothing closed as a duplicate.
    for (const [plan, number] of numbers) expect(openPlanIssues(github).find((i) => planOf(i) === plan)!.number).toBe(number);
    expect(planIssues(github)).toHaveLength(110);
    expect(github.issues.filter((i) => i.state_reason === 'duplicate')).toEqual([]);
    for (const issue of planIssues(github)) expect(parseMarker(issue.body)?.parent).toBe(phases.get(planOf(issue).slice(0, 2))!.number);
    expect(phases.get('01')!.body).toMatch(new RegExp(`^<!-- harness:phase ${SPEC}/01 parent=${spec.number} -->\n`));
    expect(github.checkRuns.at(-1)!.conclusion).toBe('success');

    // A later change: one plan retitled. No sub-issue moves, no issue made.
    const again = 'c0ffee0000000000000000000000000000000002';
    push(
      github,
      again,
      grown.map((p) => (p.id === '01-01' ? { ...p, title: 'Renamed' } : p)),
    );
    const before = github.requests.length;
    await deliver(pullRequest('synchronize', again), 'delivery-3');
    expect(github.writes(before).filter((w) => /sub_issues?$/.test(w.url))).toEqual([]);
    expect(github.writes(before).filter((w) => w.method === 'POST' && /\/issues$/.test(w.url))).toEqual([]);
  });
});

describe("dependency links within GitHub's 50 of a kind", () => {
  it('a plan 60 others need blocks 50 of them, says so on its issue, and spends no request GitHub would refuse', async () => {
    const plans: PlanOptions[] = [
      { id: '01-01', title: 'Base' },
      ...Array.from({ length: 60 }, (_, i) => ({ id: `02-${pad(i + 1)}`, title: `Dependent ${i + 1}`, dependsOn: ['01-01'] })),
    ];
    const github = repository(plans);
    await deliver(OPENED);

    const base = openPlanIssues(github).find((i) => planOf(i) === '01-01')!;
    expect([...github.blockedBy.values()].filter((s) => s.has(base.id))).toHaveLength(50);
    expect(github.statuses.filter((s) => s === 422)).toEqual([]);
    expect(base.body).toContain('**Needed by:** 60 plans. _GitHub links at most 50 issues as blocked by one issue');
    // The ten past the limit record no edge, and keep the need in their labels.
    const unlinked = openPlanIssues(github).filter((i) => planOf(i) !== '01-01' && parseMarker(i.body)?.blockedBy === undefined);
    expect(unlinked).toHaveLength(10);
    for (const issue of unlinked) expect(issue.labels).toContain('needs:01-01');
    const run = github.checkRuns.at(-1)!;
    expect(run.conclusion).toBe('success');
    expect(run.output.summary).toContain(
      'GitHub links at most 50 issues of one kind (blocked by, blocking) to an issue: 10 more dependencies are not mirrored',
    );
  });

  it('a plan that needs 60 others is blocked by 50 of them and says so', async () => {
    const needed = Array.from({ length: 60 }, (_, i) => ({ id: `01-${pad(i + 1)}`, title: `Need ${i + 1}` }));
    const github = repository([...needed, { id: '02-01', title: 'Many needs', dependsOn: ids(needed) }]);
    await deliver(OPENED);

    const many = openPlanIssues(github).find((i) => planOf(i) === '02-01')!;
    expect(github.blockedBy.get(many.number)?.size).toBe(50);
    expect(parseMarker(many.body)?.blockedBy).toHaveLength(50);
    expect(many.body).toContain('_GitHub links at most 50 issues as blocking one issue: only the first 50 of these 60 show in its dependencies');
    expect(github.statuses.filter((s) => s === 422)).toEqual([]);
    expect(github.checkRuns.at(-1)!.conclusion).toBe('success');
  });
});
