/**
 * The App over a whole spec's life, by the hour: a generated spec of 1,000 plans is opened as
 * a spec PR, executed with `/harness execute <spec>/all`, and played out to the end, with the
 * App running for real (Probot receiving real payloads from @octokit/webhooks-examples,
 * adapted) against the fake GitHub of test/helpers/github-repo.ts, which counts every request.
 *
 * Time is simulated. A clock stands in for Date while the simulation runs, and moves only
 * between deliveries, from one event to the next in time order:
 *   - the spec PR opened (t = 0): the first sync;
 *   - `/harness execute <spec>/all` once the sync's check run is complete;
 *   - every workflow dispatch the App makes starts a worker that ends after the plan's
 *     duration (a draw seeded by the plan's id, between 30% and 90% of its `timeout_minutes`; a phase's
 *     verification takes 5 minutes). Its end is what a worker does on GitHub: a commit on
 *     the plan branch, the plan PR opened, the App's check run concluded, the run completed;
 *     the App then receives `check_run` completed and `workflow_run` completed, in that order;
 *   - a person merges each plan PR 5 minutes after it opens: `pull_request` closed (merged);
 *   - 30% of plans' workers file a signal on the spec's signals PR: a push to it, and the
 *     `pull_request` event that runs the App's knowledge check.
 * The worker's own requests are not the App's and are not counted (it runs with the workflow's
 * token, or with the App's on another runner's allowance); everything the App asks of GitHub is.
 *
 * Each request is stamped with the simulated time it was made at, and counted in its hour.
 * GitHub does not count a conditional request answered 304 Not Modified against the rate limit
 * (docs: "Use conditional requests if appropriate"); those are counted apart.
 */
import { readFileSync } from 'node:fs';
import nock from 'nock';
import { generateSpec, type GeneratedSpec } from './spec-gen.js';
import { FakeGitHub } from '../test/helpers/github-repo.js';
import { testProbot, webhookExample } from '../test/helpers/probot.js';
import { mulberry32, median } from './lib.js';
import { CONCLUDED_BY_WORKER } from '../app/engine/forge/worker-outcome.js';
import { restartApp } from '../test/helpers/app-process.js';
import { formatRuns, withRun } from '../app/engine/forge/run-record.js';
import { parseMarker, withMarkerRecord } from '../app/engine/forge/plan-issue.js';

export interface HoursOptions {
  /** Called once at the end with the fake and its requests, and the simulated time (ms) each was made at: what the caller counts of them. */
  onEnd?: (github: FakeGitHub, stamps: readonly number[]) => void;
  /** Called for every worker the App's dispatches start: its target, when it starts and how many minutes it works (github-workers.ts). */
  onWorker?: (run: { target: string; start: number; minutes: number }) => void;
  plans: number;
  slots: number;
  /** Dependencies between the plans (bench/spec-gen.ts); half as many as plans unless given. */
  edges?: number;
  seed?: number;
  /** Stop after this much simulated time, finished or not. */
  limitHours?: number;
  /** The App's requests per hour (HARNESS_APP_REQUESTS_PER_HOUR; 0: unpaced); the environment's unless given. */
  requestsPerHour?: number;
  /**
   * A busy day: each plan's worker records what it cost (`runs=` on its issue, as plan-worker.ts
   * does: `costUsd` times a draw between 0.5 and 1.5 of the plan's own), and with `perDayUsd`
   * `.github/harness.yml` caps the repository's day (`budget: { per_day_usd }`).
   */
  budget?: { costUsd: number; perDayUsd?: number };
  /** Hours after the start at which a person comments `/harness execute <spec>/all` again (the next morning). */
  nudges?: readonly number[];
}

/** What a busy day spent and started, when the simulation records costs (HoursOptions.budget). */
export interface SpendTrace {
  /** Each plan's cost as its worker recorded it, and when (ms, simulated). */
  spends: { at: number; costUsd: number }[];
  /** When each plan's worker was dispatched, and what the repository had spent in the 24 hours before. */
  dispatches: { at: number; windowUsd: number }[];
  /** The notes the App left on plan issues held at the cap (`<!-- harness:held … -->`), by issue. */
  heldNotes: Map<number, number>;
}

export interface HoursResult {
  plans: number;
  slots: number;
  /** Simulated hours from the spec PR opened to the last plan merged and the last phase verified. */
  hours: number;
  finished: boolean;
  plansMerged: number;
  phasesVerified: number;
  /** Signals the workers filed on the spec's signals PR: one push, one pull_request event each. */
  signalsFiled: number;
  /** Requests counted against the rate limit, per simulated hour (the first is hour 0). */
  perHour: number[];
  /** Conditional requests answered 304 per hour (not counted against the limit). */
  notModifiedPerHour: number[];
  peak: number;
  mean: number;
  perPlan: number;
  /** Requests by kind, over the whole run: `METHOD /route shape`. */
  byRoute: [string, number][];
  /** Requests per delivery, by event, and what they are (304s apart). */
  byEvent: Record<string, { deliveries: number; requests: number; medianRequests: number; routes: Record<string, number> }>;
  firstSync: { requests: number; minutes: number };
  /** With HoursOptions.budget: what was spent and started, and when. */
  spend?: SpendTrace;
}

const SPEC_DIR = 'docs/specs/SPC-900-generated';
/** A real payload, adapted field by field: typing each example's shape would say nothing more. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type Payload = Record<string, any>;
const HOUR = 3_600_000;
const MINUTE = 60_000;
const START = Date.parse('2026-11-02T08:00:00Z');
const BASE_BRANCH = 'master';
const PHASE_MINUTES = 5;
const REVIEW_MINUTES = 5;
/** Plans whose worker files a signal (the example spec's local run files 3 for its 10 plans). */
const SIGNAL_SHARE = 0.3;
const SIGNAL_TEXT = readFileSync(
  new URL('../test/fixtures/knowledge/reflect/store/signals/notes-service/2026-03-02/2026-03-02T09-14-00Z-struggle.signal.md', import.meta.url),
  'utf8',
);

/** `GET /repos/o/r/issues/12/labels/status%3Aready?x=1` → `GET /issues/{n}/labels/{name}`: requests grouped by route. */
function routeShape(method: string, url: string): string {
  const path = url.replace(/\?.*$/, '').replace(/^\/repos\/[^/]+\/[^/]+/, '');
  const shaped = path
    .replace(/\/[0-9a-f]{40}/g, '/{sha}')
    .replace(/\/\d+/g, '/{n}')
    .replace(/\/labels\/.+$/, '/labels/{name}')
    .replace(/\/git\/(ref|refs|matching-refs)\/.+$/, '/git/$1/{ref}')
    .replace(/\/contents\/.+$/, '/contents/{path}')
    .replace(/\/commits\/.+\/check-runs$/, '/commits/{ref}/check-runs');
  return `${method} ${shaped}`;
}

/**
 * A plan's own draw in [0, 1), from the seed and its id alone: the plan takes as long whatever
 * order the App starts plans in, so two runs of the App (another window, another priority)
 * and `harness simulate` compare on the same work.
 */
function planDraw(seed: number, plan: string): number {
  let h = seed >>> 0;
  for (let i = 0; i < plan.length; i++) h = Math.imul(h ^ plan.charCodeAt(i), 0x01000193) >>> 0;
  return mulberry32(h)();
}

interface Event {
  at: number;
  order: number;
  run: () => Promise<void>;
}

/** Run the simulation once. Date is the simulated clock while it runs, and is put back after. */
export async function simulateHours(options: HoursOptions): Promise<HoursResult> {
  const random = mulberry32(options.seed ?? 7);
  const generated: GeneratedSpec = generateSpec({
    plans: options.plans,
    phases: Math.max(2, Math.round(options.plans / 50)),
    edges: options.edges ?? Math.round(options.plans / 2),
  });
  const specId = /^id:\s*(\S+)/m.exec(generated.files.get('SPEC.md') ?? '')?.[1];
  if (!specId) throw new Error('the generated spec has no id');
  const timeouts = new Map<string, number>();
  for (const [path, text] of generated.files) {
    const id = /^plan_id:\s*"?([^"\n]+)"?/m.exec(text)?.[1];
    const timeout = /^timeout_minutes:\s*(\d+)/m.exec(text)?.[1];
    if (path.endsWith('-PLAN.md') && id) timeouts.set(id, Number(timeout ?? 30));
  }

  // The simulated clock.
  let now = START;
  const RealDate = Date;
  class SimulatedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(now);
      else super(...(args as [string]));
    }
    static override now(): number {
      return now;
    }
  }
  globalThis.Date = SimulatedDate as DateConstructor;

  const github = new FakeGitHub();
  github.config = `specs_root: docs/specs\nslots: ${options.slots}\n${process.env.BENCH_WINDOW ? `issue_window: ${process.env.BENCH_WINDOW}\n` : ''}${options.budget?.perDayUsd !== undefined ? `budget: { per_day_usd: ${options.budget.perDayUsd} }\n` : ''}`;
  const trace: SpendTrace | undefined = options.budget ? { spends: [], dispatches: [], heldNotes: new Map() } : undefined;
  const windowUsd = (at: number) => (trace?.spends ?? []).filter((s) => s.at > at - 24 * HOUR && s.at <= at).reduce((a, s) => a + s.costUsd, 0);
  github.now = () => new Date(now);
  github.roles.set('Codertocat', 'admin');
  // The App's only limiter is its pace (gateway/limit-model.ts): Probot's throttling, which spaced writes a second apart, is off (app/github/app-octokit.ts).
  const stamps: number[] = [];
  github.beforeServe = () => {
    stamps.push(now);
  };
  // The App's memory starts empty, and its pace (gateway/pacer.ts) waits on the simulated clock.
  restartApp({
    ...(options.requestsPerHour === undefined ? {} : { requestsPerHour: options.requestsPerHour }),
    clock: {
      now: () => now,
      sleep: async (ms) => {
        now += ms;
      },
    },
  });

  const opened = webhookExample<Payload>('pull_request', (e) => e.action === 'opened');
  const repository = opened.repository as { full_name: string };
  const baseSha = opened.pull_request.base.sha as string;
  const headSha = opened.pull_request.head.sha as string;
  const specFiles = Object.fromEntries([...generated.files].map(([path, text]) => [`${SPEC_DIR}/${path}`, text]));
  github.commit(baseSha, { 'README.md': '# Hello\n' });
  github.commit(headSha, { 'README.md': '# Hello\n', ...specFiles });
  // The spec PR merges before execution: plan branches start from the base branch, which holds the spec.
  github.branches.set(BASE_BRANCH, headSha);
  github.defaultBranch = BASE_BRANCH;

  const probot = testProbot();
  const events: Event[] = [];
  let order = 0;
  /** When each target's worker started (simulated ms). */
  const started_ = new Map<string, number>();
  const at = (time: number, run: () => Promise<void>) => {
    events.push({ at: time, order: order++, run });
  };
  const byEvent = new Map<string, number[]>();
  const eventRoutes = new Map<string, Map<string, number>>();
  let deliveryId = 0;
  const deliver = async (name: string, payload: Record<string, unknown>, label: string) => {
    const from = github.requests.length;
    // One installation, as every event of one repository comes from (the examples carry several).
    payload.installation = { id: 1 };
    await probot.receive({ id: `sim-${++deliveryId}`, name, payload } as never);
    const list = byEvent.get(label) ?? [];
    list.push(github.requests.length - from);
    byEvent.set(label, list);
    const routes = eventRoutes.get(label) ?? new Map<string, number>();
    for (let i = from; i < github.requests.length; i++) {
      const r = github.requests[i]!;
      const shape = `${routeShape(r.method, r.url)}${github.statuses[i] === 304 ? ' (304)' : ''}`;
      routes.set(shape, (routes.get(shape) ?? 0) + 1);
    }
    eventRoutes.set(label, routes);
  };

  let dispatchesSeen = 0;
  let runId = 9_000_000;
  let plansMerged = 0;
  let phasesVerified = 0;
  let lastEnd = START;
  const merged = new Set<string>();

  // The spec's signals PR, which workers append to (docs/github-flow.md, 4): a push to it is a
  // pull_request event for the App, whose knowledge check reads what the push added.
  const signalsBranch = `harness/knowledge/signal/${specId}`;
  let signalsPr: number | undefined;
  let signalsFiled = 0;
  const fileSignal = async (target: string) => {
    // A real signal's text (the reflection fixtures'), under a name of its own: what the knowledge check passes.
    const path = `.harness/knowledge/signals/notes-service/2026-03-02/2026-03-02T09-14-00Z-p${target}-struggle.signal.md`;
    const text = `${SIGNAL_TEXT.trimEnd()}\nSeen again in plan ${target}.\n`;
    const before = github.branches.get(signalsBranch);
    if (before === undefined) github.branches.set(signalsBranch, github.branches.get(BASE_BRANCH)!);
    const after = github.pushTo(signalsBranch, { [path]: text }, `Signals of ${target}`);
    signalsFiled++;
    const files = [...(github.pullFiles.get(signalsPr ?? -1) ?? []), path];
    let action = 'synchronize';
    if (signalsPr === undefined) {
      signalsPr = 4_000;
      github.pullRequests.push({
        number: signalsPr,
        title: `Signals: ${specId}`,
        body: '',
        head: signalsBranch,
        base: BASE_BRANCH,
        state: 'open',
        merged: false,
        labels: ['harness:knowledge', 'signal'],
        created_at: new Date(now).toISOString(),
      });
      action = 'opened';
    }
    github.pullFiles.set(signalsPr, files);
    const event = webhookExample<Payload>('pull_request', (e) => e.action === (action === 'opened' ? 'opened' : 'synchronize'));
    Object.assign(event.pull_request, {
      number: signalsPr,
      head: { ...event.pull_request.head, ref: signalsBranch, sha: after, repo: opened.repository },
      base: { ...event.pull_request.base, ref: BASE_BRANCH, repo: opened.repository },
    });
    Object.assign(event, { action, number: signalsPr, repository: opened.repository, ...(action === 'synchronize' ? { before: before ?? after, after } : {}) });
    await deliver('pull_request', event, `pull_request.${action} (signals PR)`);
  };

  const workerEnds = (target: string, runNumber: number) => async () => {
    const isPhase = target.startsWith('phase-');
    if (!isPhase && random() < SIGNAL_SHARE) await fileSignal(target);
    const branch = `harness/${specId}/${target}`;
    const sha = github.branches.get(branch);
    if (sha === undefined) return;
    let prNumber: number | undefined;
    if (!isPhase) {
      github.pushTo(branch, { [`src/${target}.txt`]: `${target}\n` }, `Plan ${target}`);
      const issue = github.issues.find((i) => i.body?.includes(`harness:plan ${specId} ${target} `) || i.title.startsWith(`[${target}]`));
      prNumber = 5_000 + github.pullRequests.length;
      github.pullRequests.push({
        number: prNumber,
        title: `[${target}] plan`,
        body: `Closes #${issue?.number ?? 0}`,
        head: branch,
        base: BASE_BRANCH,
        state: 'open',
        merged: false,
        labels: [],
        created_at: new Date(now).toISOString(),
      });
    }
    // As a worker holding the App's token ends (live-check.ts, finish): the App's check run on the claimed commit
    // concluded, then the same on the new head, where the plan PR shows it.
    // As the worker ends (plan-worker.ts, endStatus): the plan issue moved from running to verified (the record, then its label), by the worker, not the App.
    if (!isPhase) {
      const issue = github.issues.find((i) => i.body?.includes(`harness:plan ${specId}/${target} `));
      if (issue?.body?.includes(' status=running')) {
        issue.body = issue.body.replace(' status=running', ' status=verified');
        issue.labels = [...issue.labels.filter((l) => l !== 'status:running'), 'status:verified'];
      }
      // What the run cost, on the marker line in the same write (run-account.ts): what the App's spend caps count.
      if (issue?.body && trace && options.budget) {
        const costUsd = Math.round(options.budget.costUsd * (0.5 + planDraw((options.seed ?? 7) + 1, target)) * 100) / 100;
        const started = started_.get(target) ?? now;
        const record = withRun(parseMarker(issue.body)?.runs, {
          run: `${runNumber}.1`,
          start: Math.floor(started / 1000),
          seconds: Math.round((now - started) / 1000),
          end: 'verified',
          engines: ['claude'],
          usage: { costUsd, turns: 10 },
        });
        issue.body = withMarkerRecord(issue.body, 'runs', formatRuns(record));
        trace.spends.push({ at: now, costUsd });
      }
    }
    const check = [...github.checkRuns].reverse().find((r) => r.external_id === `${specId}/${target}`);
    const output = { title: isPhase ? 'Phase verified' : 'Plan verified', summary: 'All checks passed.', text: `${CONCLUDED_BY_WORKER}\n` };
    if (check) {
      Object.assign(check, { status: 'completed', conclusion: 'success', completed_at: new Date(now).toISOString(), output });
      const head = github.branches.get(branch)!;
      if (head !== check.head_sha) github.checkRuns.push({ ...check, id: 800_000 + github.checkRuns.length, head_sha: head, annotations: [] });
      await deliver(
        'check_run',
        {
          action: 'completed',
          check_run: {
            id: check.id,
            name: check.name,
            external_id: check.external_id,
            status: 'completed',
            conclusion: 'success',
            head_sha: check.head_sha,
            output,
            app: { slug: 'harness' },
          },
          repository: opened.repository,
          sender: opened.sender,
        },
        'check_run.completed (worker)',
      );
    }
    const run = github.workflowRuns.find((r) => r.id === runNumber);
    if (run) run.status = 'completed';
    const runPayload = webhookExample<Payload>('workflow_run', (e) => e.action === 'completed');
    Object.assign(runPayload.workflow_run, {
      id: runNumber,
      name: 'harness worker',
      path: '.github/workflows/harness-worker.yml',
      display_title: `harness ${specId}/${target}`,
      event: 'workflow_dispatch',
      status: 'completed',
      conclusion: 'success',
      head_branch: BASE_BRANCH,
      head_sha: github.branches.get(BASE_BRANCH),
      html_url: `https://github.com/${repository.full_name}/actions/runs/${runNumber}`,
    });
    runPayload.repository = opened.repository;
    await deliver('workflow_run', runPayload, 'workflow_run.completed');
    if (isPhase) {
      phasesVerified++;
      lastEnd = now;
      return;
    }
    const number = prNumber!;
    at(now + REVIEW_MINUTES * MINUTE, async () => {
      github.merge(number);
      const pr = github.pullRequests.find((p) => p.number === number)!;
      const closed = webhookExample<Payload>('pull_request', (e) => e.action === 'closed');
      Object.assign(closed.pull_request, {
        number,
        merged: true,
        state: 'closed',
        head: { ...closed.pull_request.head, ref: pr.head, sha: pr.closedHeadSha, repo: opened.repository },
        base: { ...closed.pull_request.base, ref: BASE_BRANCH, sha: github.branches.get(BASE_BRANCH), repo: opened.repository },
      });
      closed.repository = opened.repository;
      await deliver('pull_request', closed, 'pull_request.closed (plan PR merged)');
      merged.add(target);
      plansMerged++;
      lastEnd = now;
    });
  };

  /** Workers for the dispatches the App made since the last look. */
  const startWorkers = () => {
    for (; dispatchesSeen < github.dispatches.length; dispatchesSeen++) {
      const inputs = (github.dispatches[dispatchesSeen]!.body as { inputs: { plan: string } }).inputs;
      const target = inputs.plan;
      const id = ++runId;
      github.workflowRuns.push({ id, display_title: `harness ${specId}/${target}`, status: 'in_progress' });
      const minutes = target.startsWith('phase-') ? PHASE_MINUTES : (timeouts.get(target) ?? 30) * (0.3 + 0.6 * planDraw(options.seed ?? 7, target));
      options.onWorker?.({ target, start: now, minutes });
      started_.set(target, now);
      if (trace && !target.startsWith('phase-')) trace.dispatches.push({ at: now, windowUsd: windowUsd(now) });
      at(now + minutes * MINUTE, workerEnds(target, id));
    }
  };

  nock.disableNetConnect();
  github.install();
  let firstSync: HoursResult['firstSync'] | undefined;
  try {
    // The spec PR opened: the first sync.
    const from = github.requests.length;
    await deliver('pull_request', opened, 'pull_request.opened (spec PR: first sync)');
    firstSync = { requests: github.requests.length - from, minutes: (now - START) / MINUTE };
    // Execute everything once the sync is done.
    const comment = webhookExample<Payload>('issue_comment', (e) => e.action === 'created');
    // On the spec's tracking issue, which the sync opened.
    const tracking = github.issues.find((i) => i.labels.includes('harness:spec'));
    if (!tracking) throw new Error('the first sync opened no tracking issue');
    const { pull_request: _pr, ...issue } = comment.issue as Record<string, unknown>;
    comment.issue = { ...issue, number: tracking.number, title: tracking.title, labels: tracking.labels.map((name) => ({ name })) };
    comment.comment = {
      ...comment.comment,
      id: 77_000_001,
      body: `/harness execute ${specId}/all`,
      user: { ...comment.comment.user, login: 'Codertocat', type: 'User' },
    };
    comment.repository = opened.repository;
    await deliver('issue_comment', comment, 'issue_comment.created (/harness execute all)');
    startWorkers();
    // A person asking again later (the next morning of a busy day): the same comment, a new one.
    for (const [i, hours] of (options.nudges ?? []).entries()) {
      at(START + hours * HOUR, async () => {
        const again = { ...comment, comment: { ...comment.comment, id: 77_000_002 + i } };
        await deliver('issue_comment', again, 'issue_comment.created (/harness execute all, again)');
      });
    }

    const limit = START + (options.limitHours ?? 48) * HOUR;
    while (events.length > 0) {
      events.sort((a, b) => a.at - b.at || a.order - b.order);
      const next = events.shift()!;
      if (next.at > limit) break;
      if (next.at > now) now = next.at;
      await next.run();
      startWorkers();
    }
  } finally {
    nock.cleanAll();
    nock.enableNetConnect();
    globalThis.Date = RealDate;
    restartApp();
  }

  options.onEnd?.(github, stamps);
  if (trace) {
    for (const c of github.comments) if (c.body.startsWith('<!-- harness:held ')) trace.heldNotes.set(c.issue, (trace.heldNotes.get(c.issue) ?? 0) + 1);
  }
  const hours = Math.ceil((lastEnd - START) / HOUR) || 1;
  const perHour = Array.from({ length: Math.max(hours, 1) }, () => 0);
  const notModifiedPerHour = perHour.map(() => 0);
  const routes = new Map<string, number>();
  github.requests.forEach((r, i) => {
    const hour = Math.floor(((stamps[i] ?? now) - START) / HOUR);
    while (perHour.length <= hour) {
      perHour.push(0);
      notModifiedPerHour.push(0);
    }
    if (github.statuses[i] === 304) notModifiedPerHour[hour]!++;
    else perHour[hour]!++;
    const shape = routeShape(r.method, r.url);
    routes.set(shape, (routes.get(shape) ?? 0) + 1);
  });
  const counted = perHour.reduce((a, b) => a + b, 0);
  const phases = new Set(generated.ids.map((id) => id.slice(0, 2))).size;
  return {
    plans: options.plans,
    slots: options.slots,
    hours: Math.round(((lastEnd - START) / HOUR) * 100) / 100,
    finished: plansMerged === options.plans && phasesVerified === phases,
    plansMerged,
    phasesVerified,
    signalsFiled,
    perHour,
    notModifiedPerHour,
    peak: Math.max(...perHour),
    mean: Math.round(counted / ((lastEnd - START) / HOUR)),
    perPlan: Math.round((counted / options.plans) * 10) / 10,
    byRoute: [...routes].sort((a, b) => b[1] - a[1]),
    byEvent: Object.fromEntries(
      [...byEvent].map(([k, v]) => [
        k,
        {
          deliveries: v.length,
          requests: v.reduce((a, b) => a + b, 0),
          medianRequests: median(v),
          routes: Object.fromEntries([...(eventRoutes.get(k) ?? [])].sort((a, b) => b[1] - a[1])),
        },
      ]),
    ),
    firstSync: firstSync ?? { requests: 0, minutes: 0 },
    ...(trace ? { spend: trace } : {}),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const plans = Number(process.argv[2] ?? 1000);
  const slots = Number(process.argv[3] ?? 64);
  // `unpaced`: the App's demand with its pace off (HARNESS_APP_REQUESTS_PER_HOUR=0).
  const unpaced = process.argv[4] === 'unpaced';
  const started = performance.now();
  const result = await simulateHours({ plans, slots, ...(unpaced ? { requestsPerHour: 0 } : {}) });
  console.log(JSON.stringify({ ...result, byRoute: result.byRoute.slice(0, 40), seconds: (performance.now() - started) / 1000 }, null, 1));
}
