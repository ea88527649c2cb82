import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import nock from 'nock';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ABORT_ACTION, APPROVE_ACTION, RETRY_ACTION } from '../../../app/engine/forge/check-actions.js';
import type { StatusValue } from '../../../app/engine/forge/names.js';
import { phasesToVerify, planRound } from '../../../app/engine/forge/round-plan.js';
import { roundOrder, roundOrderKey, specOrder } from '../../../app/engine/forge/round-order.js';
import { loadSpec } from '../../../app/engine/core/spec/load.js';
import { specOf } from '../../helpers/spec.js';
import { SETTLED_BY_APP, workerOutcome } from '../../../app/engine/forge/worker-outcome.js';
import { parseTargetBranch, parseWorkerRunTitle } from '../../../app/engine/forge/worker-target.js';
import { CheckActionError, checkActions } from '../../../app/gateway/check-runs.js';
import { githubApi, testProbot, webhookExample } from '../../helpers/probot.js';
import { ROOT } from '../../helpers/paths.js';

// The repository of the example payloads in @octokit/webhooks-examples.
const OWNER = 'Codertocat';
const REPO = 'Hello-World';
const R = `/repos/${OWNER}/${REPO}`;
const WEB = `https://github.com/${OWNER}/${REPO}`;
const SPEC = 'SPC-001';
const BASE_SHA = '1111111111111111111111111111111111111111';
const PUSHED_SHA = '2222222222222222222222222222222222222222';
/** The plan PR whose merge the App recorded on a done plan's marker line (`verified=`). */
const MERGED_PR = 77;

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

interface PlanFixture {
  number: number;
  plan: string;
  /** The spec PR the issue records on its marker line, whose status comment rounds refresh. */
  pr?: number;
  needs?: string[];
  files?: string[];
  status?: StatusValue;
  /** Closed with this state_reason; open when absent. */
  closed?: 'completed' | 'not_planned';
  /** Labels of people, which every label write must keep. */
  extra?: string[];
  /** The usage-limit pause's reset time the worker recorded on the marker line. */
  resumeAt?: string;
  /** timeout_minutes, when the plan says. */
  timeout?: number;
  /** The App's record on the marker line (`status=`) when it is not what `status` shows (`none`: no record). */
  record?: string;
  /** The App's record that the plan's phase failed its verification (`phase_failed=<run>`). */
  phaseFailed?: string;
  /** The worker's account of its runs (`runs=`), as it recorded it. */
  runs?: string;
  /** The spend cap the plan was told it waits at (`held=`). */
  held?: string;
}

/** The record a status label is the view of, as the App writes them together: ready and blocked are both `queued`. */
function recordOf(status: StatusValue | undefined): string | undefined {
  return status === 'ready' || status === 'blocked' ? 'queued' : status;
}

/** The records on a fixture's marker line, as the App wrote them. */
function records(p: PlanFixture): string {
  const status = p.record === 'none' ? undefined : (p.record ?? recordOf(p.status));
  return `${p.pr ? ` pr=${p.pr}` : ''}${p.resumeAt ? ` resume_at=${p.resumeAt}` : ''}${p.closed === 'completed' && p.status === 'verified' ? ` verified=${MERGED_PR}` : ''}${status ? ` status=${status}` : ''}${p.phaseFailed ? ` phase_failed=${p.phaseFailed}` : ''}${p.closed === 'not_planned' ? ' removed=9' : ''}${p.held ? ` held=${p.held}` : ''}${p.runs ? ` runs=${p.runs}` : ''}`;
}

function planText(p: PlanFixture): string {
  return [
    '---',
    `plan_id: "${p.plan}"`,
    `title: Plan ${p.plan}`,
    `depends_on: [${(p.needs ?? []).map((d) => `"${d}"`).join(', ')}]`,
    `files_modified: [${(p.files ?? [`src/${p.plan}.ts`]).map((f) => `"${f}"`).join(', ')}]`,
    ...(p.timeout === undefined ? [] : [`timeout_minutes: ${p.timeout}`]),
    'must_pass:',
    `  - { id: exists, type: file_exists, path: "src/${p.plan}.ts" }`,
    '---',
    '',
    'Do the work.',
  ].join('\n');
}

function labels(p: PlanFixture): string[] {
  return [
    'harness:plan',
    ...(p.needs ?? []).map((d) => `needs:${d}`),
    `phase:${p.plan.slice(0, 2)}`,
    `spec:${SPEC}`,
    ...(p.status ? [`status:${p.status}`] : []),
    ...(p.extra ?? []),
  ];
}

/** A plan issue as GET /repos/{owner}/{repo}/issues lists it, body in the format sync writes. */
function planIssue(p: PlanFixture) {
  return {
    id: 1000 + p.number,
    number: p.number,
    title: `[${p.plan}] Plan ${p.plan}`,
    html_url: `${WEB}/issues/${p.number}`,
    state: p.closed ? 'closed' : 'open',
    state_reason: p.closed ?? null,
    user: { login: 'harness[bot]', type: 'Bot' },
    labels: labels(p).map((name) => ({ name })),
    body: [
      `<!-- harness:plan ${SPEC}/${p.plan} hash=0123456789abcdef${records(p)} -->`,
      `**Spec** [${SPEC} Notes](${WEB}/blob/master/docs/specs/${SPEC}/SPEC.md) · **Phase** ${p.plan.slice(0, 2)} Core · **Plan** [\`${p.plan}-PLAN.md\`](#)`,
      '',
      '<details><summary>The plan</summary>',
      '',
      '```markdown',
      planText(p),
      '```',
      '',
      '</details>',
    ].join('\n'),
  };
}

/**
 * The status write: the App's record on the marker line first (PATCH …/issues/{n} with the body,
 * only when the record changes: ready and blocked are one record), then the race-safe label
 * write: the new status label added (POST …/labels with that label alone), then the old one
 * removed (DELETE …/labels/{name}); no other label is ever sent, so people's labels, and any set
 * meanwhile, stay as they are. The bodies sent go in `bodies`.
 */
function mockStatusWrite(scope: nock.Scope, p: PlanFixture, to: StatusValue, bodies?: Record<string, unknown>[]): void {
  const after = labels({ ...p, status: to }).map((name) => ({ name }));
  const was = p.record === 'none' ? undefined : (p.record ?? recordOf(p.status));
  if (was !== recordOf(to)) {
    scope
      .patch(`${R}/issues/${p.number}`, (b: Record<string, unknown>) => {
        const recorded = new RegExp(`^<!-- harness:plan ${SPEC}/${p.plan} [^\\n]*status=${recordOf(to)} -->`).test(String(b.body));
        if (recorded) bodies?.push(b);
        return recorded;
      })
      .reply(200, issueReply(p));
  }
  scope
    .post(`${R}/issues/${p.number}/labels`, (b: Record<string, unknown>) => {
      const exact = JSON.stringify(b) === JSON.stringify({ labels: [`status:${to}`] });
      if (exact) bodies?.push(b);
      return exact;
    })
    .reply(200, after);
  if (p.status && p.status !== to) scope.delete(`${R}/issues/${p.number}/labels/${encodeURIComponent(`status:${p.status}`)}`).reply(200, after);
}

/** What PATCH /issues/{n} answers; the app reads nothing from it but its shape. */
function issueReply(p: PlanFixture) {
  return (_uri: string, body: Record<string, unknown>) => ({
    ...planIssue(p),
    ...body,
    labels: ((body.labels as string[] | undefined) ?? labels(p)).map((name) => ({ name })),
  });
}

/**
 * Every request the app made, in order, as "METHOD /path" with the repository prefix cut; the
 * one asking who the App is (GraphQL's viewer) aside, which the process asks once, for whichever
 * part wants it first.
 */
function recordRequests(scope: nock.Scope): string[] {
  const log: string[] = [];
  scope.on('request', (req: { method: string; path: string }, _interceptor: unknown, body: string) => {
    if (typeof body === 'string' && body.includes('viewer { login }')) return;
    log.push(`${req.method} ${decodeURIComponent(req.path.split('?')[0]!).replace(R, '')}`);
  });
  return log;
}

function mockConfig(scope: nock.Scope, slots: number, more = ''): void {
  scope.get(`${R}/contents/.github%2Fharness.yml`).reply(200, `slots: ${slots}\n${more}`, { 'content-type': 'application/vnd.github.raw; charset=utf-8' });
}

function mockIssues(scope: nock.Scope, plans: PlanFixture[]): void {
  // Plan issues are the App's own, told by its login (plan-issues.ts): asked once per App process.
  scope
    .post('/graphql', { query: 'query { viewer { login } }' })
    .optionally()
    .reply(200, { data: { viewer: { login: 'harness[bot]' } } });
  scope
    .get(`${R}/issues`)
    .query({ labels: `harness:plan,spec:${SPEC}`, state: 'all', direction: 'asc', per_page: '100' })
    .reply(200, plans.map(planIssue));
}

/**
 * The spec PR's sticky status comment (#7's comment 70, the App's own) as a round finds it
 * (GET …/comments) and rewrites it (PATCH …/comments/70): what was written, once it was.
 */
function mockStatusComment(scope: nock.Scope): { written: string } {
  const bot = { type: 'Bot', login: 'harness[bot]' };
  const comment = { written: '' };
  scope
    .get(`${R}/issues/7/comments`)
    .query({ per_page: '100' })
    .reply(200, [{ id: 70, user: bot, body: `<!-- harness:status ${SPEC} -->\nold` }]);
  scope.patch(`${R}/issues/comments/70`, (b) => ((comment.written = b.body), true)).reply(200, { id: 70, user: bot, body: '' });
  return comment;
}

function mockBaseHead(scope: nock.Scope): void {
  scope.get(`${R}/git/ref/heads%2Fmaster`).reply(200, { ref: 'refs/heads/master', object: { sha: BASE_SHA, type: 'commit' } });
}

/** The writes of one dispatch, with the bodies GitHub must receive, recorded in `bodies`. */
function mockDispatch(scope: nock.Scope, p: PlanFixture, bodies: Record<string, unknown>[]): void {
  const keep = (_uri: string, body: Record<string, unknown>) => {
    bodies.push(body);
    return true;
  };
  scope
    .post(`${R}/git/refs`, (b) => keep('', b) && b.ref === `refs/heads/harness/${SPEC}/${p.plan}`)
    .reply(201, { ref: `refs/heads/harness/${SPEC}/${p.plan}`, object: { sha: BASE_SHA } });
  scope.post(`${R}/actions/workflows/harness-worker.yml/dispatches`, (b) => keep('', b) && b.inputs?.plan === p.plan).reply(204);
  scope
    .post(`${R}/check-runs`, (b) => keep('', b) && b.name === `harness / plan ${p.plan}`)
    .reply(201, {
      id: 500 + p.number,
      name: `harness / plan ${p.plan}`,
      head_sha: BASE_SHA,
      external_id: `${SPEC}/${p.plan}`,
      status: 'queued',
      conclusion: null,
      output: { title: null, summary: null, annotations_count: 0 },
    });
  mockStatusWrite(scope, p, 'running', bodies);
}

/** A `harness / plan …` check run completing: the cheapest event that starts a round. */
function checkCompleted(plan = '01-09') {
  const payload = webhookExample<Record<string, Record<string, unknown>>>('check_run', (p) => p.action === 'completed');
  payload.check_run!.name = `harness / plan ${plan}`;
  payload.check_run!.external_id = `${SPEC}/${plan}`;
  return { id: `check-${plan}`, name: 'check_run', payload } as never;
}

function workerRunCompleted(plan: string, conclusion: string) {
  const payload = webhookExample<Record<string, Record<string, unknown>>>(
    'workflow_run',
    (p) => p.action === 'completed' && (p.workflow_run as { status: string }).status === 'completed',
  );
  // The example's run lives in another repository than the other examples: one repository for all.
  payload.repository = webhookExample<Record<string, Record<string, unknown>>>('check_run').repository!;
  Object.assign(payload.workflow_run!, {
    path: '.github/workflows/harness-worker.yml',
    event: 'workflow_dispatch',
    name: 'harness worker',
    display_title: `harness ${SPEC}/${plan}`,
    conclusion,
    head_branch: 'master',
    head_sha: BASE_SHA,
  });
  return { id: `run-${plan}-${conclusion}`, name: 'workflow_run', payload } as never;
}

function planMerged(plan: string) {
  const payload = webhookExample<Record<string, Record<string, Record<string, unknown>>>>('pull_request', (p) => p.action === 'closed');
  payload.pull_request!.merged = true as never;
  payload.pull_request!.head!.ref = `harness/${SPEC}/${plan}`;
  return { id: `merged-${plan}`, name: 'pull_request', payload } as never;
}

/** The worker's unfinished runs, as GET …/runs lists them by status: none. */
function noWorkerRuns(scope: nock.Scope): void {
  for (const status of ['queued', 'in_progress'])
    scope.get(`${R}/actions/workflows/harness-worker.yml/runs`).query({ status, per_page: '100' }).reply(200, { total_count: 0, workflow_runs: [] });
}

describe('a scheduling round', () => {
  let scope: nock.Scope;
  let bodies: Record<string, unknown>[];
  beforeEach(() => {
    scope = githubApi();
    bodies = [];
  });

  it('dispatches exactly the queued plans that may run, most critical first, within the free slots and never beside a writer of the same files', async () => {
    const plans: PlanFixture[] = [
      { number: 11, plan: '01-01', status: 'ready', files: ['src/shared.ts'] },
      { number: 12, plan: '01-02', status: 'ready', files: ['src/b.ts'] },
      // The longest path to the end of the spec starts here: it goes first.
      { number: 13, plan: '01-03', status: 'ready', files: ['src/shared.ts'] },
      { number: 14, plan: '01-04', status: 'running', files: ['src/d/**'] },
      { number: 21, plan: '02-01', status: 'blocked', needs: ['01-03'] },
      // Planned, never queued: not started, though a slot would be free.
      { number: 22, plan: '02-02' },
      // Writes under a running plan's glob.
      { number: 23, plan: '02-03', status: 'ready', files: ['src/d/x.ts'] },
    ];
    const log = recordRequests(scope);
    mockConfig(scope, 3);
    mockIssues(scope, plans);
    mockBaseHead(scope);
    mockDispatch(scope, plans[2]!, bodies);
    mockDispatch(scope, plans[1]!, bodies);

    await testProbot().receive(checkCompleted('01-04'));

    // 3 slots, 01-04 holds one; 01-01 and 01-03 both write src/shared.ts; 02-03 waits for 01-04's files.
    expect(log).toEqual([
      'GET /contents/.github/harness.yml',
      'GET /issues',
      'GET /git/ref/heads/master',
      'POST /git/refs',
      'POST /actions/workflows/harness-worker.yml/dispatches',
      'POST /check-runs',
      'POST /git/refs',
      'POST /actions/workflows/harness-worker.yml/dispatches',
      'POST /check-runs',
      // The round's status writes together, after its dispatches: the records first (status=running on each marker line), then
      // the labels, by REST here, the list having no node ids (status-writes.test.ts has GraphQL's one request).
      'PATCH /issues/13',
      'PATCH /issues/12',
      'POST /issues/13/labels',
      'DELETE /issues/13/labels/status:ready',
      'POST /issues/12/labels',
      'DELETE /issues/12/labels/status:ready',
    ]);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('runs no round for a check run the App concluded itself, since it ran one then: not one request', async () => {
    const log = recordRequests(scope);
    const event = checkCompleted() as { payload: { check_run: { output: Record<string, unknown> } } };
    event.payload.check_run.output = { title: 'Failed', summary: 'The worker run failed.', text: SETTLED_BY_APP, annotations_count: 0 };

    await testProbot().receive(event as never);

    expect(log).toEqual([]);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('claims, dispatches, creates the check run and sets status:running, in that order, with exactly these requests', async () => {
    const plan: PlanFixture = { number: 11, plan: '01-01', status: 'ready', extra: ['good first issue'] };
    const log = recordRequests(scope);
    mockConfig(scope, 4);
    mockIssues(scope, [plan]);
    mockBaseHead(scope);
    mockDispatch(scope, plan, bodies);

    await testProbot().receive(checkCompleted());

    expect(log.slice(3)).toEqual([
      'POST /git/refs',
      'POST /actions/workflows/harness-worker.yml/dispatches',
      'POST /check-runs',
      'PATCH /issues/11',
      'POST /issues/11/labels',
      'DELETE /issues/11/labels/status:ready',
    ]);
    expect(bodies).toEqual([
      { ref: `refs/heads/harness/${SPEC}/01-01`, sha: BASE_SHA },
      { ref: 'master', inputs: { spec: SPEC, plan: '01-01', resume: 'false', running: '1' }, return_run_details: true },
      {
        name: 'harness / plan 01-01',
        head_sha: BASE_SHA,
        status: 'queued',
        external_id: `${SPEC}/01-01`,
        details_url: `${WEB}/issues/11`,
        output: {
          title: 'Worker dispatched',
          summary: `harness dispatched the worker for plan 01-01 of ${SPEC} on the branch \`harness/${SPEC}/01-01\`. Its issue is #11.`,
        },
        actions: [{ label: 'Abort', description: 'Cancel the worker; the plan fails', identifier: 'abort' }],
      },
      // The record first: status=running on the marker line, the rest of the body as it was.
      { body: planIssue(plan).body.replace('status=queued', 'status=running') },
      // Then the label, its view, alone (then status:ready removed): people's label is never sent.
      { labels: ['status:running'] },
    ]);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it("refreshes the spec PR's status comment the issues record, with the statuses the round left, and only when it changed", async () => {
    const plans: PlanFixture[] = [
      { number: 11, plan: '01-01', status: 'ready', pr: 7 },
      { number: 12, plan: '01-02', status: 'blocked', needs: ['01-01'], pr: 7 },
    ];
    const log = recordRequests(scope);
    mockConfig(scope, 4);
    mockIssues(scope, plans);
    mockBaseHead(scope);
    mockDispatch(scope, plans[0]!, bodies);
    const comment = mockStatusComment(scope);
    // The sticky comment is the App's own only if the App wrote it: its login, asked once (with the plan issues listed, before).

    await testProbot().receive(checkCompleted());

    expect(log.slice(-2)).toEqual(['GET /issues/7/comments', 'PATCH /issues/comments/70']);
    expect(comment.written.split('\n')[0]).toBe(`<!-- harness:status ${SPEC} -->`);
    expect(comment.written).toContain(`### harness · ${SPEC} Notes`);
    // 01-01 was just dispatched: the comment shows it running, 01-02 still waiting for it.
    expect(comment.written).toMatch(/\| 01-01 Plan 01-01 \| #11 \| [^|]*running[^|]* \|/);
    expect(comment.written).toMatch(/\| 01-02 Plan 01-02 \| #12 \| [^|]*blocked[^|]* \| 01-01 \|/);
    expect(comment.written).toContain('```mermaid');
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('draws in the status comment where the time and the money went, from the runs the workers recorded on the plan issues', async () => {
    const plans: PlanFixture[] = [
      { number: 11, plan: '01-01', status: 'failed', pr: 7, runs: '4242.1:1796461200:600:45:30-480:480-590:f:claude:0.42:7:1200:80' },
      { number: 12, plan: '01-02', status: 'blocked', needs: ['01-01'], pr: 7 },
    ];
    mockConfig(scope, 4);
    mockIssues(scope, plans);
    const comment = mockStatusComment(scope);

    await testProbot().receive(checkCompleted());

    expect(comment.written).toContain('#### Where the time went');
    // From the App's dispatch to the job's start, then the job's own stages.
    expect(comment.written).toContain('  01-01 waiting for a runner :2026-12-05T08:59:15, 2026-12-05T09:00:00');
    expect(comment.written).toContain('  01-01 set-up :2026-12-05T09:00:00, 2026-12-05T09:00:30');
    expect(comment.written).toContain('  01-01 Plan 01-01 :crit, 2026-12-05T09:00:30, 2026-12-05T09:08:00');
    expect(comment.written).toContain('  01-01 verification :2026-12-05T09:08:00, 2026-12-05T09:09:50');
    expect(comment.written).toContain('#### Where the money went\n\n**$0.42** in all over 1 plan and 1 attempt, as the agents reported it.');
    expect(comment.written).toContain('| 01-01 | claude | $0.42 | 7 | 1,200 | 80 | 1 |');
    expect(scope.pendingMocks()).toEqual([]);
  });

  describe('at a spend cap (budget in .github/harness.yml)', () => {
    /** A run that ended `hoursAgo` hours ago and cost `usd`, as a worker records it (runs=). */
    const spent = (usd: number, hoursAgo: number) => `77.1:${Math.floor(Date.now() / 1000 - hoursAgo * 3600 - 600)}:600:::30-500:v:claude:${usd}:3:100:20`;

    it('starts nothing once the spec has spent its per_spec_usd, and says so once in the status comment and on the waiting plan; what runs goes on', async () => {
      const plans: PlanFixture[] = [
        { number: 11, plan: '01-01', status: 'verified', closed: 'completed', pr: 7, runs: spent(0.6, 30) },
        { number: 12, plan: '01-02', status: 'running', pr: 7, runs: spent(0.5, 1) },
        { number: 13, plan: '01-03', status: 'ready', pr: 7 },
      ];
      const log = recordRequests(scope);
      mockConfig(scope, 4, 'budget: { per_spec_usd: 1 }\n');
      mockIssues(scope, plans);
      const comment = mockStatusComment(scope);
      const written: unknown[] = [];
      const held = { ...planIssue(plans[2]!), body: planIssue({ ...plans[2]!, held: 'per_spec_usd' }).body };
      scope.patch(`${R}/issues/13`, (b) => (written.push(b), true)).reply(200, held);
      scope.post(`${R}/issues/13/comments`, (b) => (written.push(b), true)).reply(201, { id: 99, body: '' });

      await testProbot().receive(checkCompleted());

      // No base read, no claim, no dispatch, no status write: 01-03 stays ready (told so once, its record first), 01-02 runs on.
      expect(log.filter((l) => !l.startsWith('GET '))).toEqual(['PATCH /issues/13', 'POST /issues/13/comments', 'PATCH /issues/comments/70']);
      const reason = `spec ${SPEC} has spent $1.10, at its cap of $1.00 (budget.per_spec_usd in .github/harness.yml): no new plan of it starts; raise budget.per_spec_usd to go on`;
      expect(written).toEqual([
        { body: held.body },
        {
          body: `<!-- harness:held ${SPEC}/01-03 -->\n⏸️ **01-03 is ready and waits at the spend cap:** ${reason}. It starts once a writer raises \`budget.per_spec_usd\` in \`.github/harness.yml\` on the default branch.`,
        },
      ]);
      expect(held.body.split('\n')[0]).toBe(`<!-- harness:plan ${SPEC}/01-03 hash=0123456789abcdef pr=7 status=queued held=per_spec_usd -->`);
      expect(comment.written).toContain(`> ⏸️ Spend cap: ${reason}`);
      expect(scope.pendingMocks()).toEqual([]);
    });

    it('tells a held plan once: the next round of the same hold writes nothing to its issue', async () => {
      const plans: PlanFixture[] = [
        { number: 12, plan: '01-02', status: 'running', pr: 7, runs: spent(1.5, 1) },
        { number: 13, plan: '01-03', status: 'ready', pr: 7, held: 'per_spec_usd' },
      ];
      const log = recordRequests(scope);
      mockConfig(scope, 4, 'budget: { per_spec_usd: 1 }\n');
      mockIssues(scope, plans);
      mockStatusComment(scope);

      await testProbot().receive(checkCompleted());

      expect(log.filter((l) => !l.startsWith('GET '))).toEqual(['PATCH /issues/comments/70']);
      expect(scope.pendingMocks()).toEqual([]);
    });

    it('once a writer raises the cap, starts the held plan and clears its record in the same write as status=running', async () => {
      const plan: PlanFixture = { number: 11, plan: '01-01', status: 'ready', held: 'per_spec_usd' };
      const log = recordRequests(scope);
      mockConfig(scope, 4, 'budget: { per_spec_usd: 100 }\n');
      mockIssues(scope, [plan]);
      mockBaseHead(scope);
      mockDispatch(scope, plan, bodies);

      await testProbot().receive(checkCompleted());

      expect(log.slice(3)).toEqual([
        'POST /git/refs',
        'POST /actions/workflows/harness-worker.yml/dispatches',
        'POST /check-runs',
        'PATCH /issues/11',
        'POST /issues/11/labels',
        'DELETE /issues/11/labels/status:ready',
      ]);
      expect(bodies[3]).toEqual({ body: planIssue({ ...plan, held: undefined }).body.replace('status=queued', 'status=running') });
      expect(scope.pendingMocks()).toEqual([]);
    });

    it("holds every spec at per_day_usd, counting the other specs' plans spent in the last 24 hours, and says when the day frees", async () => {
      const plans: PlanFixture[] = [
        { number: 11, plan: '01-01', status: 'verified', closed: 'completed', pr: 7, runs: spent(0.5, 1) },
        { number: 12, plan: '01-02', status: 'ready', pr: 7 },
      ];
      const endedAt = Math.floor(Date.now() / 1000 - 5 * 3600);
      const other = {
        ...planIssue({ number: 40, plan: '01-01', status: 'verified', closed: 'completed' }),
        body: `<!-- harness:plan SPC-999/01-01 status=verified runs=88.1:${endedAt - 600}:600:::30-500:v:codex:1.8::: -->\nThe other spec.`,
      };
      mockConfig(scope, 4, 'budget: { per_day_usd: 2 }\n');
      mockIssues(scope, plans);
      let since = '';
      // Every plan issue of the repository updated in the last 24 hours: one listing (this spec's among them, counted once).
      scope
        .get(`${R}/issues`)
        .query((q) => q.labels === 'harness:plan' && q.state === 'all' && typeof q.since === 'string' && ((since = q.since), true))
        .reply(200, [other, planIssue(plans[0]!)]);
      const comment = mockStatusComment(scope);
      let note = '';
      scope.patch(`${R}/issues/12`).reply(200, planIssue({ ...plans[1]!, held: 'per_day_usd' }));
      scope.post(`${R}/issues/12/comments`, (b) => ((note = b.body), true)).reply(201, { id: 98, body: '' });

      await testProbot().receive(checkCompleted());

      expect(Math.abs(Date.parse(since) - (Date.now() - 24 * 3600_000))).toBeLessThan(600_000);
      const frees = new Date((endedAt + 24 * 3600) * 1000).toISOString();
      const reason = `the repository has spent $2.30 in the last 24 hours, at its cap of $2.00 (budget.per_day_usd in .github/harness.yml): no new plan starts until ${frees}, or raise budget.per_day_usd to go on now`;
      expect(comment.written).toContain(`> ⏸️ Spend cap: ${reason}`);
      expect(note).toBe(
        `<!-- harness:held ${SPEC}/01-02 -->\n⏸️ **01-02 is ready and waits at the spend cap:** ${reason}. It starts at the first scheduling round after the window frees at ${frees} (a worker finishing, a merge, any \`/harness execute\`), or as soon as a writer raises \`budget.per_day_usd\` in \`.github/harness.yml\` on the default branch.`,
      );
      expect(scope.pendingMocks()).toEqual([]);
    });
  });

  it('stops at a lost claim: GitHub answers 422 "Reference already exists", and nothing is dispatched, created or labelled', async () => {
    const log = recordRequests(scope);
    mockConfig(scope, 4);
    mockIssues(scope, [{ number: 11, plan: '01-01', status: 'ready' }]);
    mockBaseHead(scope);
    scope
      .post(`${R}/git/refs`)
      .reply(422, { message: 'Reference already exists', documentation_url: 'https://docs.github.com/rest/git/refs#create-a-reference', status: '422' });
    // Whose claim? No worker runs for the plan, and the branch was created just now: a delivery at work, left alone.
    noWorkerRuns(scope);
    scope
      .get(`${R}/activity`)
      .query({ ref: `refs/heads/harness/${SPEC}/01-01`, activity_type: 'branch_creation', direction: 'desc', per_page: '1' })
      .reply(200, [{ id: 1, ref: `refs/heads/harness/${SPEC}/01-01`, timestamp: new Date().toISOString(), activity_type: 'branch_creation' }]);

    await testProbot().receive(checkCompleted());

    expect(log).toEqual([
      'GET /contents/.github/harness.yml',
      'GET /issues',
      'GET /git/ref/heads/master',
      'POST /git/refs',
      'GET /actions/workflows/harness-worker.yml/runs',
      'GET /actions/workflows/harness-worker.yml/runs',
      'GET /activity',
    ]);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('dispatches a plan once when two deliveries race for it: the second claim is refused and that round stops there', async () => {
    const plan: PlanFixture = { number: 11, plan: '01-01', status: 'ready' };
    const log = recordRequests(scope);
    for (let i = 0; i < 2; i++) {
      mockConfig(scope, 4);
      mockIssues(scope, [plan]);
      mockBaseHead(scope);
    }
    // GitHub creates a ref atomically: whichever request comes first gets 201, the other 422.
    scope.post(`${R}/git/refs`).reply(201, { ref: `refs/heads/harness/${SPEC}/01-01`, object: { sha: BASE_SHA } });
    scope.post(`${R}/git/refs`).reply(422, { message: 'Reference already exists' });
    // The loser looks for a worker behind the claim, and finds the claim fresh.
    noWorkerRuns(scope);
    scope.get(`${R}/activity`).query(true).reply(200, []);
    scope.post(`${R}/actions/workflows/harness-worker.yml/dispatches`).once().reply(204);
    scope
      .post(`${R}/check-runs`)
      .once()
      .reply(201, {
        id: 1,
        name: 'harness / plan 01-01',
        head_sha: BASE_SHA,
        external_id: null,
        status: 'queued',
        conclusion: null,
        output: { title: null, summary: null, annotations_count: 0 },
      });
    mockStatusWrite(scope, plan, 'running');

    const probot = testProbot();
    await Promise.all([probot.receive(checkCompleted()), probot.receive({ ...(checkCompleted() as object), id: 'redelivered' } as never)]);

    // Both rounds read the plan as ready and both tried to claim it before either dispatched.
    expect(log.filter((l) => l === 'POST /git/refs')).toHaveLength(2);
    expect(log.lastIndexOf('POST /git/refs')).toBeLessThan(log.indexOf('POST /actions/workflows/harness-worker.yml/dispatches'));
    expect(log.filter((l) => l.includes('/dispatches'))).toHaveLength(1);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('moves queued plans between ready and blocked as their dependencies change, and leaves planned and failed plans alone', async () => {
    const plans: PlanFixture[] = [
      { number: 11, plan: '01-01', status: 'verified', closed: 'completed' },
      { number: 12, plan: '01-02', status: 'failed' },
      { number: 13, plan: '01-03', status: 'verified' },
      // All it needs is satisfied, but the only slot is taken.
      { number: 21, plan: '02-01', status: 'blocked', needs: ['01-01'] },
      // 01-03 is verified but its PR is not merged: not satisfied yet.
      { number: 22, plan: '02-02', status: 'ready', needs: ['01-03'] },
      // Needs a failed plan: blocked it stays, and the round says why in its log.
      { number: 23, plan: '02-03', status: 'blocked', needs: ['01-02'] },
      { number: 24, plan: '02-04', status: 'running' },
    ];
    const log = recordRequests(scope);
    mockConfig(scope, 1);
    mockIssues(scope, plans);
    mockStatusWrite(scope, plans[3]!, 'ready');
    mockStatusWrite(scope, plans[4]!, 'blocked');

    await testProbot().receive(checkCompleted());

    expect(log).toEqual([
      'GET /contents/.github/harness.yml',
      'GET /issues',
      'POST /issues/21/labels',
      'DELETE /issues/21/labels/status:blocked',
      'POST /issues/22/labels',
      'DELETE /issues/22/labels/status:ready',
    ]);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('dispatches the verification of a phase whose plans are all merged and verified, once: its branch is the claim', async () => {
    const plans: PlanFixture[] = [
      { number: 11, plan: '01-01', status: 'verified', closed: 'completed' },
      { number: 12, plan: '01-02', status: 'verified', closed: 'completed' },
      { number: 21, plan: '02-01', status: 'running', needs: ['01-01'] },
    ];
    const log = recordRequests(scope);
    mockConfig(scope, 4);
    mockIssues(scope, plans);
    scope.get(`${R}/git/matching-refs/heads%2Fharness%2F${SPEC}%2Fphase-`).reply(200, []);
    // Before a phase is taken for complete, the App's own issues: none of its plans hidden by labels taken off (plan-issues.ts).
    scope.get(`${R}/issues`).query({ creator: 'harness[bot]', state: 'all', direction: 'asc', per_page: '100' }).reply(200, plans.map(planIssue));
    mockBaseHead(scope);
    scope.post(`${R}/git/refs`, { ref: `refs/heads/harness/${SPEC}/phase-01`, sha: BASE_SHA }).reply(201, {});
    scope
      .post(`${R}/actions/workflows/harness-worker.yml/dispatches`, {
        ref: 'master',
        inputs: { spec: SPEC, plan: 'phase-01', resume: 'false' },
        return_run_details: true,
      })
      .reply(204);
    scope
      .post(`${R}/check-runs`, {
        name: 'harness / phase 01',
        head_sha: BASE_SHA,
        status: 'queued',
        external_id: `${SPEC}/phase-01`,
        details_url: `${WEB}/issues?q=${encodeURIComponent(`is:issue label:"spec:${SPEC}" label:"phase:01"`)}`,
        output: {
          title: 'Worker dispatched',
          summary: `harness dispatched the worker for the verification of phase 01 of ${SPEC} on the branch \`harness/${SPEC}/phase-01\`.`,
        },
        actions: [],
      })
      .reply(201, {
        id: 9,
        name: 'harness / phase 01',
        head_sha: BASE_SHA,
        external_id: null,
        status: 'queued',
        conclusion: null,
        output: { title: null, summary: null, annotations_count: 0 },
      });

    await testProbot().receive(checkCompleted());
    expect(log).toEqual([
      'GET /contents/.github/harness.yml',
      'GET /issues',
      `GET /git/matching-refs/heads/harness/${SPEC}/phase-`,
      'GET /issues',
      'GET /git/ref/heads/master',
      'POST /git/refs',
      'POST /actions/workflows/harness-worker.yml/dispatches',
      'POST /check-runs',
    ]);
    expect(scope.pendingMocks()).toEqual([]);

    // The next round finds the phase branch and leaves the phase alone.
    mockConfig(scope, 4);
    mockIssues(scope, plans);
    scope
      .get(`${R}/git/matching-refs/heads%2Fharness%2F${SPEC}%2Fphase-`)
      .reply(200, [{ ref: `refs/heads/harness/${SPEC}/phase-01`, object: { sha: BASE_SHA } }]);
    await testProbot().receive(checkCompleted());
    expect(scope.pendingMocks()).toEqual([]);
  });
});

describe("a plan paused at the model's usage limit", () => {
  let scope: nock.Scope;
  beforeEach(() => {
    scope = githubApi();
  });
  const paused: PlanFixture = { number: 11, plan: '01-01', status: 'checkpoint', resumeAt: '2020-01-01T05:00:00.000Z' };
  const answer = { body: '<!-- harness:answer 01-01 usage-limit -->\ncontinue' };

  /** The claim on resuming the pause (resumeClaimRef): created at the base head, which the round reads once. */
  function mockResumeClaim(answer: 201 | 422): void {
    const ref = `refs/harness/plans/${SPEC}/01-01/resume/${Date.parse(paused.resumeAt!)}`;
    if (answer === 201) scope.post(`${R}/git/refs`, { ref, sha: BASE_SHA }).reply(201, { ref, object: { sha: BASE_SHA } });
    else
      scope
        .post(`${R}/git/refs`, { ref, sha: BASE_SHA })
        .reply(422, { message: 'Reference already exists', documentation_url: 'https://docs.github.com/rest/git/refs#create-a-reference', status: '422' });
  }

  it('is resumed by the first round after its reset time: claimed by a ref of the pause, answered `continue`, dispatched with resume, recorded running with the reset time cleared', async () => {
    const log = recordRequests(scope);
    const bodies: Record<string, unknown>[] = [];
    mockConfig(scope, 4);
    mockIssues(scope, [paused]);
    mockBaseHead(scope);
    mockResumeClaim(201);
    scope.post(`${R}/issues/11/comments`, answer).reply(201, { id: 9, body: answer.body, user: { type: 'Bot' } });
    scope
      .post(`${R}/actions/workflows/harness-worker.yml/dispatches`, {
        ref: 'master',
        inputs: { spec: SPEC, plan: '01-01', resume: 'true' },
        return_run_details: true,
      })
      .reply(204);
    mockStatusWrite(scope, paused, 'running', bodies);

    await testProbot().receive(checkCompleted());

    expect(log).toEqual([
      'GET /contents/.github/harness.yml',
      'GET /issues',
      'GET /git/ref/heads/master',
      'POST /git/refs',
      'POST /issues/11/comments',
      'POST /actions/workflows/harness-worker.yml/dispatches',
      'PATCH /issues/11',
      'POST /issues/11/labels',
      'DELETE /issues/11/labels/status:checkpoint',
    ]);
    // One write of the body: running recorded, the reset time cleared.
    const patched = (bodies[0] as { body: string }).body;
    expect(patched.split('\n')[0]).toBe(`<!-- harness:plan ${SPEC}/01-01 hash=0123456789abcdef status=running -->`);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('is resumed though someone took its status:checkpoint label off: the record is what a round reads, and the label is put right', async () => {
    const log = recordRequests(scope);
    const unlabelled: PlanFixture = { ...paused, status: undefined, record: 'checkpoint' };
    mockConfig(scope, 4);
    mockIssues(scope, [unlabelled]);
    mockBaseHead(scope);
    mockResumeClaim(201);
    scope.post(`${R}/issues/11/comments`, answer).reply(201, { id: 9, body: answer.body, user: { type: 'Bot' } });
    scope.post(`${R}/actions/workflows/harness-worker.yml/dispatches`).reply(204);
    mockStatusWrite(scope, unlabelled, 'running');

    await testProbot().receive(checkCompleted());

    expect(log.filter((l) => l.includes('/dispatches'))).toHaveLength(1);
    expect(log.slice(-2)).toEqual(['PATCH /issues/11', 'POST /issues/11/labels']);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('is left alone by a round before its reset time', async () => {
    const log = recordRequests(scope);
    mockConfig(scope, 4);
    mockIssues(scope, [{ ...paused, resumeAt: '2100-01-01T00:00:00.000Z' }]);

    await testProbot().receive(checkCompleted());

    expect(log).toEqual(['GET /contents/.github/harness.yml', 'GET /issues']);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('is resumed once when two rounds race for it: GitHub creates the claim for one, and answers the other 422', async () => {
    const log = recordRequests(scope);
    for (let i = 0; i < 2; i++) {
      mockConfig(scope, 4);
      mockIssues(scope, [paused]);
      mockBaseHead(scope);
    }
    mockResumeClaim(201);
    mockResumeClaim(422);
    scope
      .post(`${R}/issues/11/comments`, answer)
      .once()
      .reply(201, { id: 9, body: answer.body, user: { type: 'Bot' } });
    scope.post(`${R}/actions/workflows/harness-worker.yml/dispatches`).once().reply(204);
    mockStatusWrite(scope, paused, 'running');

    const probot = testProbot();
    await Promise.all([probot.receive(checkCompleted()), probot.receive({ ...(checkCompleted() as object), id: 'redelivered' } as never)]);

    expect(log.filter((l) => l.includes('/dispatches'))).toHaveLength(1);
    expect(log.filter((l) => l === 'POST /issues/11/comments')).toHaveLength(1);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('a plan someone resumed already (`/harness respond … continue`, now running) is left alone by a round', async () => {
    const log = recordRequests(scope);
    mockConfig(scope, 4);
    mockIssues(scope, [{ ...paused, status: 'running' }]);

    await testProbot().receive(checkCompleted());

    expect(log).toEqual(['GET /contents/.github/harness.yml', 'GET /issues']);
    expect(scope.pendingMocks()).toEqual([]);
  });
});

describe('a worker run finishing', () => {
  let scope: nock.Scope;
  beforeEach(() => {
    scope = githubApi();
  });

  const queuedCheck = {
    id: 77,
    name: 'harness / plan 01-01',
    head_sha: BASE_SHA,
    external_id: `${SPEC}/01-01`,
    status: 'queued',
    conclusion: null,
    output: { title: 'Worker dispatched', summary: '', annotations_count: 0 },
  };
  const dependant: PlanFixture = { number: 21, plan: '02-01', status: 'blocked', needs: ['01-01'] };

  it.each([
    {
      conclusion: 'success',
      status: 'running' as const,
      label: 'verified' as const,
      check: { status: 'completed', conclusion: 'success', output: { title: 'Verified' }, actions: [] },
    },
    {
      conclusion: 'failure',
      status: 'running' as const,
      label: 'failed' as const,
      check: { status: 'completed', conclusion: 'failure', output: { title: 'Failed' }, actions: [RETRY_ACTION] },
    },
    {
      conclusion: 'timed_out',
      status: 'running' as const,
      label: 'failed' as const,
      check: { status: 'completed', conclusion: 'timed_out', output: { title: 'Timed out' }, actions: [RETRY_ACTION] },
    },
    {
      // The worker labelled the checkpoint itself and ended successfully: a person answers next.
      conclusion: 'success',
      status: 'checkpoint' as const,
      label: undefined,
      check: { status: 'completed', conclusion: 'action_required', output: { title: 'Waiting at a checkpoint' }, actions: [APPROVE_ACTION] },
    },
  ])('$conclusion with the plan $status: status $label, check run $check.conclusion', async ({ conclusion, status, label, check }) => {
    const plan: PlanFixture = { number: 11, plan: '01-01', status };
    const log = recordRequests(scope);
    // A plan at its checkpoint holds a slot while phase 02 waits: research ahead (on by default) is research-ahead.test.ts's.
    mockConfig(scope, 4, 'planning:\n  research_ahead: false\n');
    mockIssues(scope, [plan, dependant]);
    // The worker pushed nothing yet: the branch head is the claimed commit, where the check run is.
    scope
      .get(`${R}/commits/heads%2Fharness%2F${SPEC}%2F01-01/check-runs`)
      .query({ check_name: 'harness / plan 01-01' })
      .reply(200, { total_count: 1, check_runs: [queuedCheck] });
    if (label) mockStatusWrite(scope, plan, label);
    const sent: Record<string, unknown>[] = [];
    scope.patch(`${R}/check-runs/77`, (b) => sent.push(b) > 0).reply(200, {});

    await testProbot().receive(workerRunCompleted('01-01', conclusion));

    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject(check);
    expect(sent[0]!.actions).toEqual(check.actions);

    // Verified is not satisfied until the plan PR merges: the dependant waits, and the round writes nothing.
    expect(log).toEqual([
      'GET /contents/.github/harness.yml',
      'GET /issues',
      // The check runs on the plan branch's head: where the head is, and the one to settle, in one read.
      `GET /commits/heads/harness/${SPEC}/01-01/check-runs`,
      // The record on the marker line, then its label.
      ...(label ? ['PATCH /issues/11', 'POST /issues/11/labels', 'DELETE /issues/11/labels/status:running'] : []),
      'PATCH /check-runs/77',
    ]);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('marks the plans of a phase that failed its verification, and holds the queued plans that depend on it', async () => {
    const merged: PlanFixture[] = [
      { number: 11, plan: '01-01', status: 'verified', closed: 'completed' },
      { number: 12, plan: '01-02', status: 'verified', closed: 'completed' },
    ];
    // Queued as ready when its dependency merged; the phase it depends on now fails.
    const waiting: PlanFixture = { number: 21, plan: '02-01', status: 'ready', needs: ['01-01'] };
    const independent: PlanFixture = { number: 22, plan: '02-02', status: 'ready' };
    const phaseCheck = {
      id: 88,
      name: 'harness / phase 01',
      head_sha: BASE_SHA,
      external_id: `${SPEC}/phase-01`,
      status: 'queued',
      conclusion: null,
      output: { title: 'Worker dispatched', summary: '', annotations_count: 0 },
    };
    const log = recordRequests(scope);
    const sent: Record<string, unknown>[] = [];
    mockConfig(scope, 4);
    mockIssues(scope, [...merged, waiting, independent]);
    scope
      .get(`${R}/commits/heads%2Fharness%2F${SPEC}%2Fphase-01/check-runs`)
      .query({ check_name: 'harness / phase 01' })
      .reply(200, { total_count: 1, check_runs: [phaseCheck] });
    scope.patch(`${R}/check-runs/88`, (b) => sent.push(b) > 0).reply(200, {});
    // The phase's worker ran: recorded beside its claim, which stays.
    scope.post(`${R}/git/refs`, { ref: `refs/harness/phases/${SPEC}/01/ran`, sha: BASE_SHA }).reply(201, {});
    // The App's record on each marker line of the phase (the run that failed it), then the label, its view.
    for (const p of merged) {
      scope.patch(`${R}/issues/${p.number}`, (b: { body?: string }) => / phase_failed=\d+ -->/.test(b.body ?? '')).reply(200, issueReply(p));
      scope.post(`${R}/issues/${p.number}/labels`, { labels: ['harness:phase-failed'] }).reply(200, []);
    }
    // The round: 02-02 starts; 02-01 is held, and shows it.
    mockBaseHead(scope);
    const bodies: Record<string, unknown>[] = [];
    mockDispatch(scope, independent, bodies);
    mockStatusWrite(scope, waiting, 'blocked');
    scope
      .get(`${R}/git/matching-refs/heads%2Fharness%2F${SPEC}%2Fphase-`)
      .reply(200, [{ ref: `refs/heads/harness/${SPEC}/phase-01`, object: { sha: BASE_SHA } }]);

    await testProbot().receive(workerRunCompleted('phase-01', 'failure'));

    expect(sent[0]).toMatchObject({ status: 'completed', conclusion: 'failure', output: { title: 'Phase 01 failed its verification' } });
    expect(log).toEqual([
      'GET /contents/.github/harness.yml',
      'GET /issues',
      `GET /commits/heads/harness/${SPEC}/phase-01/check-runs`,
      'PATCH /check-runs/88',
      'POST /git/refs',
      'PATCH /issues/11',
      'POST /issues/11/labels',
      'PATCH /issues/12',
      'POST /issues/12/labels',
      'GET /git/ref/heads/master',
      'POST /git/refs',
      'POST /actions/workflows/harness-worker.yml/dispatches',
      'POST /check-runs',
      'PATCH /issues/22',
      'POST /issues/22/labels',
      'DELETE /issues/22/labels/status:ready',
      'POST /issues/21/labels',
      'DELETE /issues/21/labels/status:ready',
      `GET /git/matching-refs/heads/harness/${SPEC}/phase-`,
    ]);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('takes the mark off when the phase passes a later verification', async () => {
    const plans: PlanFixture[] = [
      { number: 11, plan: '01-01', status: 'verified', closed: 'completed', extra: ['harness:phase-failed'], phaseFailed: '41' },
      { number: 12, plan: '01-02', status: 'verified', closed: 'completed', extra: ['harness:phase-failed'], phaseFailed: '41' },
    ];
    const phaseCheck = {
      id: 89,
      name: 'harness / phase 01',
      head_sha: BASE_SHA,
      external_id: `${SPEC}/phase-01`,
      status: 'queued',
      conclusion: null,
      output: { title: 'Worker dispatched', summary: '', annotations_count: 0 },
    };
    mockConfig(scope, 4);
    mockIssues(scope, plans);
    scope
      .get(`${R}/commits/heads%2Fharness%2F${SPEC}%2Fphase-01/check-runs`)
      .query({ check_name: 'harness / phase 01' })
      .reply(200, { total_count: 1, check_runs: [phaseCheck] });
    scope.patch(`${R}/check-runs/89`).reply(200, {});
    scope.post(`${R}/git/refs`, { ref: `refs/harness/phases/${SPEC}/01/ran`, sha: BASE_SHA }).reply(422, { message: 'Reference already exists' });
    for (const p of plans) {
      scope.patch(`${R}/issues/${p.number}`, (b: { body?: string }) => !(b.body ?? '').includes('phase_failed=')).reply(200, issueReply(p));
      scope.delete(`${R}/issues/${p.number}/labels/harness%3Aphase-failed`).reply(200, []);
    }
    scope
      .get(`${R}/git/matching-refs/heads%2Fharness%2F${SPEC}%2Fphase-`)
      .reply(200, [{ ref: `refs/heads/harness/${SPEC}/phase-01`, object: { sha: BASE_SHA } }]);
    // The round leaves the spec idle: it looks for verification claims with no worker, and finds phase 01's ran.
    scope
      .get(`${R}/git/matching-refs/harness%2Fphases%2F${SPEC}%2F`)
      .reply(200, [{ ref: `refs/harness/phases/${SPEC}/01/ran`, object: { sha: BASE_SHA, type: 'commit' } }]);
    // Its last phase passed with every plan done: the spec is verified, and reflection (on_spec by default) finds no store.
    scope.get(`${R}/contents/.harness%2Fknowledge`).query({ ref: 'master' }).reply(404);

    await testProbot().receive(workerRunCompleted('phase-01', 'success'));

    expect(scope.pendingMocks()).toEqual([]);
  });

  it("puts the check run where the plan PR shows it once the worker pushed, and concludes the queued one on the claimed commit, not another spec's", async () => {
    const plan: PlanFixture = { number: 11, plan: '01-01', status: 'running' };
    mockConfig(scope, 4);
    mockIssues(scope, [plan]);
    scope
      .get(`${R}/commits/heads%2Fharness%2F${SPEC}%2F01-01/check-runs`)
      .query({ check_name: 'harness / plan 01-01' })
      .reply(200, { total_count: 0, check_runs: [] });
    scope.get(`${R}/git/ref/heads%2Fharness%2F${SPEC}%2F01-01`).reply(200, { ref: `refs/heads/harness/${SPEC}/01-01`, object: { sha: PUSHED_SHA } });
    mockStatusWrite(scope, plan, 'verified');
    scope
      .post(`${R}/check-runs`, {
        name: 'harness / plan 01-01',
        head_sha: PUSHED_SHA,
        status: 'completed',
        conclusion: 'success',
        external_id: `${SPEC}/01-01`,
        details_url: `${WEB}/issues/11`,
        output: { title: 'Verified', summary: /passed its verification/ as unknown as string, text: SETTLED_BY_APP },
        actions: [],
      })
      .reply(201, { ...queuedCheck, id: 78, head_sha: PUSHED_SHA, status: 'completed', conclusion: 'success' });
    // Another spec's plan 01-01 was claimed at the same commit: its check run has the same name.
    const otherSpecs = { ...queuedCheck, id: 99, external_id: 'SPC-002/01-01' };
    scope
      .get(`${R}/commits/${BASE_SHA}/check-runs`)
      .query({ check_name: 'harness / plan 01-01' })
      .reply(200, { total_count: 2, check_runs: [otherSpecs, queuedCheck] });
    scope.patch(`${R}/check-runs/77`, (b) => b.conclusion === 'success').reply(200, {});

    await testProbot().receive(workerRunCompleted('01-01', 'success'));
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('makes no write when the same event is delivered again', async () => {
    // As the first delivery left things: verified, check run concluded, nothing new to start.
    const plan: PlanFixture = { number: 11, plan: '01-01', status: 'verified' };
    const log = recordRequests(scope);
    mockConfig(scope, 4);
    mockIssues(scope, [plan, dependant]);

    await testProbot().receive(workerRunCompleted('01-01', 'success'));

    // Verified after a successful run is what the worker writes once its check run is concluded (plan-worker.ts, settle): nothing about the branch is read.
    expect(log).toEqual(['GET /contents/.github/harness.yml', 'GET /issues']);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('leaves a plan that was retried meanwhile alone: its branch is gone, so the run is an old attempt', async () => {
    mockConfig(scope, 4);
    // Retried: ready again, claim deleted, and (slots free) the round starts the new attempt.
    const plan: PlanFixture = { number: 11, plan: '01-01', status: 'ready' };
    mockIssues(scope, [plan]);
    scope
      .get(`${R}/commits/heads%2Fharness%2F${SPEC}%2F01-01/check-runs`)
      .query({ check_name: 'harness / plan 01-01' })
      .reply(422, { message: 'No commit found for SHA: heads/harness/SPC-001/01-01' });
    mockBaseHead(scope);
    mockDispatch(scope, plan, []);

    await testProbot().receive(workerRunCompleted('01-01', 'failure'));
    expect(scope.pendingMocks()).toEqual([]);
  });

  it("leaves the worker's final check run as the worker wrote it, and settles only the one the worker could not (issue 8)", async () => {
    const plan: PlanFixture = { number: 11, plan: '01-01', status: 'running' };
    const log = recordRequests(scope);
    mockConfig(scope, 4);
    mockIssues(scope, [plan]);
    // The worker's own, final, on the pushed head (a GITHUB_TOKEN job's); the App's, still queued, on the claimed commit.
    const workers = {
      ...queuedCheck,
      id: 501,
      head_sha: PUSHED_SHA,
      status: 'completed',
      conclusion: 'success',
      output: { title: 'Verified', summary: 'Cost: $0.42', annotations_count: 0 },
    };
    scope
      .get(`${R}/commits/heads%2Fharness%2F${SPEC}%2F01-01/check-runs`)
      .query({ check_name: 'harness / plan 01-01' })
      .reply(200, { total_count: 1, check_runs: [workers] });
    mockStatusWrite(scope, plan, 'verified');
    scope
      .get(`${R}/commits/${BASE_SHA}/check-runs`)
      .query({ check_name: 'harness / plan 01-01' })
      .reply(200, { total_count: 1, check_runs: [queuedCheck] });
    scope.patch(`${R}/check-runs/77`, (b) => b.conclusion === 'success').reply(200, {});

    await testProbot().receive(workerRunCompleted('01-01', 'success'));

    expect(log.filter((l) => l.includes('check-runs') && !l.startsWith('GET'))).toEqual(['PATCH /check-runs/77']);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it("reads a workflow_run payload without `path` (older deliveries) by the workflow's name, without crashing", async () => {
    mockConfig(scope, 4);
    const plan: PlanFixture = { number: 11, plan: '01-01', status: 'verified' };
    mockIssues(scope, [plan, dependant]);
    const event = workerRunCompleted('01-01', 'success') as { payload: { workflow_run: Record<string, unknown> } };
    delete event.payload.workflow_run.path;

    await testProbot().receive(event as never);
    expect(scope.pendingMocks()).toEqual([]);

    // Another workflow's run without `path` is still not ours.
    const other = workerRunCompleted('01-01', 'success') as { payload: { workflow_run: Record<string, unknown> } };
    delete other.payload.workflow_run.path;
    other.payload.workflow_run.name = 'CI';
    await testProbot().receive(other as never);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('ignores runs of other workflows', async () => {
    const event = workerRunCompleted('01-01', 'success') as { payload: { workflow_run: Record<string, unknown> } };
    event.payload.workflow_run.path = '.github/workflows/ci.yml';
    await testProbot().receive(event as never);
    expect(scope.pendingMocks()).toEqual([]);
  });
});

describe('a plan PR merging', () => {
  it('closes the plan issue as completed when GitHub did not, then starts the plans that needed it', async () => {
    const scope = githubApi();
    const merged: PlanFixture = { number: 11, plan: '01-01', status: 'verified' };
    const sibling: PlanFixture = { number: 12, plan: '01-02', status: 'running' };
    const dependant: PlanFixture = { number: 21, plan: '02-01', status: 'blocked', needs: ['01-01'] };
    const log = recordRequests(scope);
    mockIssues(scope, [merged, sibling, dependant]);
    // Closed as completed with the merge on record (`verified=<the PR>`): what makes the plan satisfy its dependants.
    const pull = (planMerged('01-01') as { payload: { pull_request: { number: number } } }).payload.pull_request.number;
    const recorded = planIssue(merged).body.replace(' status=verified -->', ` verified=${pull} status=verified -->`);
    scope.patch(`${R}/issues/11`, { state: 'closed', state_reason: 'completed', body: recorded }).reply(200, issueReply(merged));
    mockConfig(scope, 4);
    mockBaseHead(scope);
    const bodies: Record<string, unknown>[] = [];
    mockDispatch(scope, dependant, bodies);
    // The plan's claims go with it, found in the listing of the spec's (another plan's stay); the work kept under
    // refs/harness/kept/ is not listed there and stays.
    scope.get(`${R}/git/matching-refs/${encodeURIComponent(`harness/plans/${SPEC}/`)}`).reply(200, [
      { ref: `refs/harness/plans/${SPEC}/01-01/answers/4001`, object: { sha: 'a1', type: 'tag' } },
      { ref: `refs/harness/plans/${SPEC}/01-01/takeover/branch-1790000000000`, object: { sha: 'b2', type: 'commit' } },
      { ref: `refs/harness/plans/${SPEC}/01-010/answers/4002`, object: { sha: 'c3', type: 'tag' } },
      { ref: `refs/harness/plans/${SPEC}/01-02/answers/4003`, object: { sha: 'd4', type: 'tag' } },
    ]);
    scope.delete(`${R}/git/refs/${encodeURIComponent(`harness/plans/${SPEC}/01-01/answers/4001`)}`).reply(204);
    scope.delete(`${R}/git/refs/${encodeURIComponent(`harness/plans/${SPEC}/01-01/takeover/branch-1790000000000`)}`).reply(204);

    await testProbot().receive(planMerged('01-01'));

    expect(log).toEqual([
      'GET /issues',
      'PATCH /issues/11',
      'GET /contents/.github/harness.yml',
      'GET /git/ref/heads/master',
      'POST /git/refs',
      'POST /actions/workflows/harness-worker.yml/dispatches',
      'POST /check-runs',
      'PATCH /issues/21',
      'POST /issues/21/labels',
      'DELETE /issues/21/labels/status:blocked',
      'GET /git/matching-refs/harness/plans/SPC-001/',
      'DELETE /git/refs/harness/plans/SPC-001/01-01/answers/4001',
      'DELETE /git/refs/harness/plans/SPC-001/01-01/takeover/branch-1790000000000',
    ]);
    // The plan PR's base is the spec's base: the dependant starts from it.
    expect(bodies[1]).toEqual({ ref: 'master', inputs: { spec: SPEC, plan: '02-01', resume: 'false', running: '2' }, return_run_details: true });
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('only releases the claims of a plan PR closed without merging, and ignores branches that are not plan branches', async () => {
    const scope = githubApi();
    const closed = planMerged('01-01') as { payload: { pull_request: Record<string, unknown> } };
    closed.payload.pull_request.merged = false;
    scope.get(`${R}/git/matching-refs/${encodeURIComponent(`harness/plans/${SPEC}/`)}`).reply(200, []);
    const knowledge = planMerged('01-01') as { payload: { pull_request: { head: { ref: string } } } };
    knowledge.payload.pull_request.head.ref = 'harness/knowledge/lesson/retry-budget';
    const probot = testProbot();
    await probot.receive(closed as never);
    await probot.receive(knowledge as never);
    expect(scope.pendingMocks()).toEqual([]);
  });
});

describe('the round decision (pure)', () => {
  const issues = (plans: PlanFixture[]) => plans.map(planIssue);

  it('starts plans by the priorities a search finds on their timeouts, as the local runner does: the long plan first, so two slots end sooner', () => {
    const three = issues([
      { number: 11, plan: '01-01', status: 'ready', timeout: 30 },
      { number: 12, plan: '01-02', status: 'ready', timeout: 30 },
      { number: 13, plan: '01-03', status: 'ready', timeout: 60 },
    ]);
    // Plan order alone: 01-01 and 01-02 first, 01-03 after them (90 minutes of timeouts); the 60-minute plan first ends at 60.
    expect(planRound({ spec: SPEC, slots: 2, issues: three }).dispatch.map((p) => p.plan)).toEqual(['01-01', '01-02']);
    const order = roundOrder(SPEC, three, 2);
    expect(
      planRound({ spec: SPEC, slots: 2, issues: three, ...(order ? { order } : {}) })
        .dispatch.map((p) => p.plan)
        .sort(),
    ).toEqual(['01-01', '01-03']);
  });

  it('ranks a spec larger than its issue window whole: the plan that heads a chain into later phases goes first, which the window alone cannot see', () => {
    // Phase 01 has issues; phases 02 and 03 come later. 01-01 is short, but 02-01 and 03-01 wait for it, one after the other.
    const window = issues([
      { number: 11, plan: '01-01', status: 'ready', timeout: 30 },
      { number: 12, plan: '01-02', status: 'ready', timeout: 60 },
      { number: 13, plan: '01-03', status: 'ready', timeout: 60 },
    ]);
    const timeout = (m: number) => `timeout_minutes: ${m}`;
    const whole = loadSpec(
      specOf([
        { id: '01-01', extra: timeout(30) },
        { id: '01-02', extra: timeout(60) },
        { id: '01-03', extra: timeout(60) },
        { id: '02-01', dependsOn: ['01-01'], extra: timeout(60) },
        { id: '03-01', dependsOn: ['02-01'], extra: timeout(60) },
      ]),
    ).spec!;
    const seen = roundOrder(SPEC, window, 2)!;
    const ranked = specOrder(whole, 2)!;
    // Seen alone, the window's longest plans go first, and the chain starts an hour late; ranked whole, it starts at once.
    expect(
      planRound({ spec: SPEC, slots: 2, issues: window, order: seen })
        .dispatch.map((p) => p.plan)
        .sort(),
    ).toEqual(['01-02', '01-03']);
    expect(planRound({ spec: SPEC, slots: 2, issues: window, order: ranked }).dispatch.map((p) => p.plan)).toContain('01-01');
  });

  it("keys a round's order by what it depends on: statuses change nothing, a plan's text (its hash) or needs do", () => {
    const at = (status: PlanFixture['status'], needs: string[] = []) =>
      issues([
        { number: 11, plan: '01-01', status },
        { number: 12, plan: '01-02', status: 'ready', needs },
      ]);
    expect(roundOrderKey(SPEC, at('ready'), 2)).toBe(roundOrderKey(SPEC, at('running'), 2));
    expect(roundOrderKey(SPEC, at('ready'), 2)).not.toBe(roundOrderKey(SPEC, at('ready', ['01-01']), 2));
    expect(roundOrderKey(SPEC, at('ready'), 2)).not.toBe(roundOrderKey(SPEC, at('ready'), 3));
    const edited = at('ready').map((i) => (i.number === 11 ? { ...i, body: i.body.replace('hash=0123456789abcdef', 'hash=fedcba9876543210') } : i));
    expect(roundOrderKey(SPEC, edited, 2)).not.toBe(roundOrderKey(SPEC, at('ready'), 2));
  });

  it('reads a plan whose text cannot be read as writing everything: it runs alone', () => {
    const broken = {
      ...planIssue({ number: 11, plan: '01-01', status: 'ready' }),
      body: `<!-- harness:plan ${SPEC}/01-01 status=queued -->\n**Depends on:** nothing\n\nno plan here`,
    };
    const plan = planRound({ spec: SPEC, slots: 4, issues: [broken, planIssue({ number: 12, plan: '01-02', status: 'ready' })] });
    expect(plan.dispatch.map((p) => p.plan)).toEqual(['01-01']);
  });

  it('starts no plan whose body says nothing of what it needs (no **Depends on** line, no plan text), whatever its labels say', () => {
    const unknown = { ...planIssue({ number: 11, plan: '01-01', status: 'ready' }), body: `<!-- harness:plan ${SPEC}/01-01 -->\nno plan here` };
    const plan = planRound({ spec: SPEC, slots: 4, issues: [unknown] });
    expect(plan.dispatch).toEqual([]);
  });

  it('lists queued plans a failed plan blocks, and plans needing a plan the spec does not have', () => {
    const plan = planRound({
      spec: SPEC,
      slots: 4,
      issues: issues([
        { number: 11, plan: '01-01', status: 'failed' },
        { number: 21, plan: '02-01', status: 'blocked', needs: ['01-01'] },
        { number: 22, plan: '02-02', status: 'blocked', needs: ['01-09'] },
      ]),
    });
    expect(plan.dispatch).toEqual([]);
    expect(plan.blocked).toEqual([{ plan: '02-01', because: { plan: '01-01' } }]);
    expect(plan.unknownNeeds).toEqual([{ plan: '02-02', needs: ['01-09'] }]);
    expect(plan.relabel).toEqual([]);
  });

  it('leaves plans taken out of the spec out of it, and offers each complete phase not claimed yet', () => {
    const plan = planRound({
      spec: SPEC,
      slots: 4,
      issues: issues([
        { number: 11, plan: '01-01', status: 'verified', closed: 'completed' },
        { number: 12, plan: '01-02', closed: 'not_planned' },
        { number: 21, plan: '02-01', status: 'verified', closed: 'completed' },
      ]),
    });
    expect(plan.plans.map((p) => p.plan)).toEqual(['01-01', '02-01']);
    expect(plan.completePhases).toEqual(['01', '02']);
    expect(phasesToVerify(plan, new Set(['01']))).toEqual(['02']);
  });

  it('takes no phase for complete while some of its plans have no issue yet (a windowed spec), nor any when the round cannot tell which', () => {
    const done = issues([
      { number: 11, plan: '01-01', status: 'verified', closed: 'completed' },
      { number: 21, plan: '02-01', status: 'verified', closed: 'completed' },
    ]);
    const plan = planRound({ spec: SPEC, slots: 4, issues: done });
    expect(phasesToVerify(plan, new Set(), new Set(['02']))).toEqual(['01']);
    expect(phasesToVerify(plan, new Set(), 'all')).toEqual([]);
  });
});

describe('what a finished worker run means (pure)', () => {
  const plan = { kind: 'plan', spec: SPEC, plan: '01-01' } as const;

  it('leaves a plan a person moved on alone: an aborted plan stays failed when its run ends well after all', () => {
    expect(workerOutcome(plan, 'success', 'failed')).toBeUndefined();
    expect(workerOutcome(plan, 'failure', 'verified')).toBeUndefined();
    expect(workerOutcome(plan, 'failure', undefined)).toBeUndefined();
  });

  it("keeps an abort's cancelled conclusion when the cancelled run reports, and settles a redelivery the same way", () => {
    expect(workerOutcome(plan, 'cancelled', 'failed')).toMatchObject({ status: 'failed', check: { conclusion: 'cancelled' } });
    expect(workerOutcome(plan, 'success', 'verified')).toMatchObject({ status: 'verified', check: { conclusion: 'success' } });
  });

  it("concludes a phase's check run and touches no label", () => {
    expect(workerOutcome({ kind: 'phase', spec: SPEC, phase: '01' }, 'failure', undefined)).toEqual({
      check: {
        conclusion: 'failure',
        title: 'Phase 01 failed its verification',
        summary: 'See the worker run. Fix the work, then `/harness verify 01`.',
        actions: [],
      },
    });
  });
});

describe('names a worker run and a branch carry', () => {
  it('parses the run title and the branch, and nothing else', () => {
    expect(parseWorkerRunTitle(`harness ${SPEC}/03-02`)).toEqual({ kind: 'plan', spec: SPEC, plan: '03-02' });
    expect(parseWorkerRunTitle(`harness ${SPEC}/phase-03`)).toEqual({ kind: 'phase', spec: SPEC, phase: '03' });
    expect(parseWorkerRunTitle('ci: build')).toBeUndefined();
    expect(parseTargetBranch(`harness/${SPEC}/03-02`)).toEqual({ kind: 'plan', spec: SPEC, plan: '03-02' });
    expect(parseTargetBranch('harness/knowledge/skill/x')).toBeUndefined();
    expect(parseTargetBranch(`harness/${SPEC}/03-02/x`)).toBeUndefined();
  });

  it("gives every check run button within GitHub's limits, and refuses one over them", () => {
    expect(checkActions([ABORT_ACTION, APPROVE_ACTION, RETRY_ACTION])).toHaveLength(3);
    expect(() => checkActions([{ label: 'Abort the worker right now', description: 'x', identifier: 'abort' }])).toThrow(CheckActionError);
    expect(() => checkActions([ABORT_ACTION, APPROVE_ACTION, RETRY_ACTION, ABORT_ACTION])).toThrow(/at most 3/);
  });
});

describe('templates/workflows/harness-worker.yml', () => {
  const file = 'templates/workflows/harness-worker.yml';
  const content = readFileSync(join(ROOT, file), 'utf8');
  const workflow = parse(content) as {
    name: string;
    'run-name': string;
    on: { workflow_dispatch: { inputs: Record<string, { type: string; required: boolean; description: string }> } };
    permissions: unknown;
    concurrency: { group: string };
    jobs: Record<string, { permissions: Record<string, string>; steps: { uses?: string; with?: Record<string, string> }[] }>;
  };

  it('is a valid workflow', async () => {
    const result = parseWorkflow({ name: file, content }, new NoOperationTraceWriter());
    expect(result.context.errors.getErrors().map((e) => e.message)).toEqual([]);
    const template = await convertWorkflowTemplate(result.context, result.value!);
    expect(template.errors ?? []).toEqual([]);
    expect(template.jobs).toHaveLength(1);
  });

  it('takes the inputs the App dispatches with and is titled so that the App finds the plan again', () => {
    const inputs = workflow.on.workflow_dispatch.inputs;
    expect(Object.keys(inputs)).toEqual(['spec', 'plan', 'resume', 'running']);
    for (const input of [inputs.spec, inputs.plan, inputs.resume])
      expect(input).toMatchObject({ type: 'string', required: true, description: expect.any(String) });
    // How many plans share the token: left out by dispatches that start no plan, and by an App older than it.
    expect(inputs.running).toMatchObject({ type: 'string', required: false, default: '' });
    expect(workflow['run-name']).toBe('harness ${{ inputs.spec }}/${{ inputs.plan }}');
    expect(parseWorkerRunTitle('harness SPC-002/03-02')).toBeDefined();
    expect(workflow.concurrency.group).toContain('${{ inputs.spec }}-${{ inputs.plan }}');
  });

  it('grants nothing by default and the job only what the worker does', () => {
    expect(workflow.permissions).toEqual({});
    // checks: write since issue 8: the worker writes the plan's check run itself when it has only GITHUB_TOKEN.
    expect(Object.values(workflow.jobs).map((j) => j.permissions)).toEqual([{ contents: 'write', 'pull-requests': 'write', issues: 'write', checks: 'write' }]);
  });

  it('keeps tokens away from the agent, pins what it runs, and installs a pinned Claude Code only for claude plans (issue 8)', () => {
    const job = Object.values(workflow.jobs)[0]! as unknown as {
      env: Record<string, string>;
      steps: { name?: string; uses?: string; if?: string; run?: string; with?: Record<string, string> }[];
    };
    const steps = job.steps;
    // No checkout leaves credentials in .git/config, where the agent could read them.
    for (const s of steps.filter((x) => x.uses?.startsWith('actions/checkout@'))) expect(s.with?.['persist-credentials']).toBe(false);
    // The action from a fixed revision: this repository's dispatched commit, or HARNESS_REF, refused when missing.
    expect(steps.find((s) => s.with?.path === '.harness-action')?.with?.ref).toBe('${{ vars.HARNESS_REF || github.sha }}');
    expect(steps.find((s) => s.name === 'Refuse an unpinned harness')).toMatchObject({ if: "vars.HARNESS_REPOSITORY != '' && vars.HARNESS_REF == ''" });
    expect(job.env.CLAUDE_CODE_VERSION).toMatch(/^\$\{\{ vars\.CLAUDE_CODE_VERSION \|\| '\d+\.\d+\.\d+' \}\}$/);
    const install = steps.find((s) => s.name?.startsWith('Install Claude Code'))!;
    expect(install.if).toBe("contains(steps.agent.outputs.engines, ' claude ')");
    expect(install.run).toContain('@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}');
    expect(steps.find((s) => s.uses?.startsWith('actions/cache@'))?.with?.key).toContain('${{ env.CLAUDE_CODE_VERSION }}');
    // The App's token when the App's secrets are there; the worker step is the only one given a token.
    expect(steps.find((s) => s.uses?.startsWith('actions/create-github-app-token@'))?.if).toBe("env.HAS_APP == 'true'");
    const worker = steps.find((s) => s.uses?.endsWith('/actions/worker'))!;
    expect(worker.with).toMatchObject({ token: '${{ github.token }}', 'app-token': '${{ steps.app-token.outputs.token }}' });
    for (const s of steps.filter((x) => x !== worker && x.uses?.startsWith('actions/create-github-app-token@') !== true))
      expect(JSON.stringify(s)).not.toMatch(/github\.token|secrets\.GITHUB_TOKEN|app-token\.outputs\.token/);
  });

  it('checks out the plan branch, then runs the worker action with its inputs', () => {
    const steps = Object.values(workflow.jobs)[0]!.steps;
    expect(steps[0]).toMatchObject({
      uses: expect.stringMatching(/^actions\/checkout@[0-9a-f]{40}$/),
      with: { ref: 'harness/${{ inputs.spec }}/${{ inputs.plan }}' },
    });
    const worker = steps.find((s) => s.uses?.endsWith('/actions/worker'));
    expect(worker?.with).toMatchObject({ spec: '${{ inputs.spec }}', plan: '${{ inputs.plan }}', resume: '${{ inputs.resume }}' });
    for (const s of steps) if (s.uses && !s.uses.startsWith('./')) expect(s.uses).toMatch(/@[0-9a-f]{40}$/);
  });
});
