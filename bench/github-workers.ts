/**
 * The workers' side of a spec's life on GitHub, and every GitHub limit checked on the App's and
 * the workers' requests together (gateway/limit-model.ts).
 *
 * The App's life is simulated by github-hours.ts; every worker its dispatches start is
 * replayed here on the same simulated clock, making the worker's real calls through the real
 * code against the stateful fake GitHub (test/helpers/github-repo.ts), seeded with the plan
 * issues and check runs the App made:
 *   - at its start, as runPlanWorker does: the spec's plan issues (listSpecIssues, paginated),
 *     the plan issue's comments, and the App's check run taken over (LiveCheck.start);
 *   - while the agent works, one report every 10-30 s (a seeded draw), each handed to the real
 *     LiveCheck, which writes progress at the pace the App's dispatch input `running` gives it;
 *   - at its end: the plan PR opened (openPullRequest), the final check run written, on the
 *     claimed commit and on the pushed head (LiveCheck.finish), and the plan issue moved from
 *     running to verified (moveStatus). A phase's verification takes
 *     its check run over and concludes it, with no PR.
 * Left out: git's own traffic (clone, fetch, push go to git, not the REST API), and the 30% of
 * workers that file a signal (the knowledge PR's writes: github-hours.ts plays their effect).
 */
import nock from 'nock';
import { classify, GITHUB_LIMITS } from '../app/gateway/limit-model.js';
import type { FakeGitHub } from '../test/helpers/github-repo.js';
import { FakeGitHub as Fake } from '../test/helpers/github-repo.js';
import { testOctokit } from '../test/helpers/octokit.js';
import { workerForge } from '../app/worker-action/worker-run.js';
import { LiveCheck, type Timer } from '../app/worker-action/live-check.js';
import { CONCLUDED_BY_WORKER } from '../app/engine/forge/worker-outcome.js';
import { planIssueOf } from '../app/worker-action/plan-worker.js';
import type { WorkerLog } from '../app/worker-action/job-log.js';
import { mulberry32, type Target } from './lib.js';
import { simulateHours } from './github-hours.js';
import { generateSpec } from './spec-gen.js';
import { loadSpec } from '../app/engine/core/spec/load.js';
import { simulate } from '../app/engine/core/schedule/simulate.js';
import { runSchedule } from '../app/engine/core/schedule/run-schedule.js';
import { runScheduler } from '../app/runner/run-scheduler.js';
import type { Spec } from '../app/engine/core/spec/model.js';

export interface WorkerSpan {
  target: string;
  /** Simulated epoch ms. */
  start: number;
  minutes: number;
  /** The dispatch's `running` input, as the App sent it. */
  running?: number;
}

export interface Stamped {
  at: number;
  method: string;
  url: string;
  /** A GraphQL request's document: whether it writes, and whether it makes content (limit-model.ts, classify). */
  body?: unknown;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
const BASE_BRANCH = 'master';
/** Minutes from a plan PR opened to merged, as github-hours.ts has it. */
const REVIEW_MINUTES = 5;
const silent: WorkerLog = { info: () => undefined, warning: () => undefined, group: (_name, work) => work() };

interface Event {
  at: number;
  order: number;
  run: () => Promise<void> | void;
}

/**
 * Replay `spans` against a fake seeded with what the App left in `app`; the requests the
 * workers made, stamped with their simulated time.
 */
export async function simulateWorkers(
  app: FakeGitHub,
  spec: string,
  spans: readonly WorkerSpan[],
  seed = 11,
): Promise<{ requests: Stamped[]; progressWrites: number; reports: number; maxConcurrent: number }> {
  const random = mulberry32(seed);
  const github = new Fake();
  github.issues.push(...structuredClone(app.issues));
  github.labels.push(...structuredClone(app.labels));
  github.defaultBranch = BASE_BRANCH;
  let now = Math.min(...spans.map((s) => s.start));
  github.now = () => new Date(now);
  const stamps: number[] = [];
  github.beforeServe = () => void stamps.push(now);

  const events: Event[] = [];
  let order = 0;
  const at = (time: number, run: Event['run']) => void events.push({ at: time, order: order++, run });
  // The timers LiveCheck waits on: events in the same queue.
  const cancelled = new Set<number>();
  const timer: Timer = {
    set: (run, ms) => {
      const id = order;
      at(now + ms, () => {
        if (!cancelled.has(id)) run();
      });
      return id;
    },
    clear: (handle) => void cancelled.add(handle as number),
  };

  const forge = workerForge(testOctokit('ghs_worker').request, { owner: github.owner, repo: github.repo });
  let progressWrites = 0;
  let reports = 0;
  let running = 0;
  let maxConcurrent = 0;
  let nextRun = 900_000;
  const active = new Set<LiveCheck>();

  for (const span of spans) {
    const isPhase = span.target.startsWith('phase-');
    const appRun = [...app.checkRuns].find((r) => r.external_id === `${spec}/${span.target}`);
    if (!appRun) throw new Error(`the App made no check run for ${spec}/${span.target}`);
    const end = span.start + span.minutes * MINUTE;
    let issueNumber: number | undefined;
    const live = new LiveCheck({
      forge,
      owner: 'app',
      name: appRun.name,
      externalId: `${spec}/${span.target}`,
      log: silent,
      now: () => now,
      timer,
      ...(span.running === undefined ? {} : { sharing: span.running }),
    });
    at(span.start, async () => {
      active.add(live);
      running++;
      maxConcurrent = Math.max(maxConcurrent, running);
      // The App's check run as it left it at dispatch: queued on the claimed commit.
      github.checkRuns.push({ ...structuredClone(appRun), id: nextRun++, status: 'queued', conclusion: null });
      const branch = `harness/${spec}/${span.target}`;
      github.branches.set(branch, appRun.head_sha);
      if (!isPhase) {
        const issue = await planIssueOf(forge, spec, span.target.slice(0, 2), span.target);
        if (!issue) throw new Error(`no plan issue for ${span.target} among the App's`);
        issueNumber = issue.number;
        await forge.comments(issue.number);
      }
      await live.start(appRun.head_sha, `${spec} / ${span.target}`);
      // The agent's reports, one every 10-30 s until the end.
      for (let t = span.start + (10 + 20 * random()) * 1000; t < end; t += (10 + 20 * random()) * 1000) {
        at(t, () => {
          reports++;
          live.event({ kind: 'progress', message: `working at ${new Date(t).toISOString()}` });
        });
      }
    });
    at(end, async () => {
      await live.settled();
      const branch = `harness/${spec}/${span.target}`;
      let head: string | undefined;
      if (!isPhase) {
        head = github.pushTo(branch, { [`src/${span.target}.txt`]: `${span.target}\n` }, `Plan ${span.target}`);
        await forge.openPullRequest({ head: branch, base: BASE_BRANCH, title: `[${span.target}] plan`, body: `Plan ${span.target} of ${spec}.` });
      }
      await live.finish(
        { conclusion: 'success', title: isPhase ? 'Phase verified' : 'Plan verified', summary: `All checks passed.\n\n${CONCLUDED_BY_WORKER}` },
        head,
      );
      // The plan issue marked as the plan ended (plan-worker.ts, endStatus).
      if (!isPhase && issueNumber !== undefined) await forge.moveStatus(issueNumber, 'running', 'verified');
      progressWrites += live.writes - 1;
      active.delete(live);
      running--;
    });
  }

  nock.disableNetConnect();
  github.install();
  try {
    while (events.length > 0) {
      events.sort((a, b) => a.at - b.at || a.order - b.order);
      const next = events.shift()!;
      if (next.at > now) now = next.at;
      await next.run();
      // A paced write started by a timer is answered before time moves on.
      await Promise.all([...active].map((l) => l.settled()));
    }
  } finally {
    nock.cleanAll();
    nock.enableNetConnect();
  }
  return {
    requests: github.requests.map((r, i) => ({ at: stamps[i] ?? now, method: r.method, url: r.url, ...(r.url === '/graphql' ? { body: r.body } : {}) })),
    progressWrites,
    reports,
    maxConcurrent,
  };
}

export interface LimitCheck {
  name: string;
  limit: number;
  peak: number;
  /** Where the peak is: the minute or hour from the start, and the endpoint. */
  where: string;
}

/**
 * Every limit of GitHub's, checked per simulated minute and hour on `requests` (the App's and
 * the workers' together: one installation's token), from `start`.
 */
export function checkLimits(requests: readonly Stamped[], start: number, maxConcurrent: number): LimitCheck[] {
  const minuteEndpoint = new Map<string, number>();
  const contentMinute = new Map<number, number>();
  const contentHour = new Map<number, number>();
  const primaryHour = new Map<number, number>();
  const add = <K>(m: Map<K, number>, k: K, n: number) => m.set(k, (m.get(k) ?? 0) + n);
  for (const r of requests) {
    const c = classify(r.method, r.url, r.body);
    const minute = Math.floor((r.at - start) / MINUTE);
    const hour = Math.floor((r.at - start) / HOUR);
    add(minuteEndpoint, `${minute} ${c.endpoint}`, c.points);
    add(primaryHour, hour, 1);
    if (c.content) {
      add(contentMinute, minute, 1);
      add(contentHour, hour, 1);
    }
  }
  const peak = <K>(m: Map<K, number>): [K | undefined, number] => [...m].reduce<[K | undefined, number]>((a, b) => (b[1] > a[1] ? b : a), [undefined, 0]);
  const [endpointAt, endpointPeak] = peak(minuteEndpoint);
  const [cmAt, cmPeak] = peak(contentMinute);
  const [chAt, chPeak] = peak(contentHour);
  const [phAt, phPeak] = peak(primaryHour);
  const [epMinute, ...epName] = (endpointAt ?? '').split(' ');
  return [
    {
      name: 'primary: requests an hour (App and workers, one installation)',
      limit: GITHUB_LIMITS.installationPerHour,
      peak: phPeak,
      where: `hour ${phAt ?? '-'}`,
    },
    {
      name: 'points a minute on one endpoint',
      limit: GITHUB_LIMITS.endpointPointsPerMinute,
      peak: endpointPeak,
      where: `minute ${epMinute}, ${epName.join(' ')}`,
    },
    { name: 'content-generating requests a minute', limit: GITHUB_LIMITS.contentPerMinute, peak: cmPeak, where: `minute ${cmAt ?? '-'}` },
    { name: 'content-generating requests an hour', limit: GITHUB_LIMITS.contentPerHour, peak: chPeak, where: `hour ${chAt ?? '-'}` },
    {
      name: 'concurrent requests (each worker and the App ask one at a time)',
      limit: GITHUB_LIMITS.concurrent,
      peak: maxConcurrent + 1,
      where: `${maxConcurrent} workers at once and the App`,
    },
  ];
}

/**
 * The makespan of the scheduler the App and the local runner use, started at once with no
 * GitHub between (runSchedule), on the durations the plans turned out to take, its
 * priorities chosen as a run chooses them before any plan ran (runScheduler: a search on each
 * plan's timeout_minutes). `harness simulate` given the same durations in advance searches on
 * them instead: the best any schedule could know. The gap between the two is the price of
 * not knowing how long plans take; the gap between this and the App's run, what GitHub and
 * the App add.
 */
export function policyMakespan(spec: Spec, slots: number, durations: Readonly<Record<string, number>>): number {
  const scheduler = runScheduler(spec, new Map(), slots);
  return runSchedule(scheduler, slots, (i) => durations[scheduler.layout.graph.ids[i]!] ?? 1).makespan;
}

/** What the workers section reports (bench/github.bench.ts, SECTIONS). */
export interface WorkersReport {
  plans: number;
  slots: number;
  hours: number;
  simulatedHours: number;
  /** The same scheduler at once on the same durations, knowing only what the App knows before a plan runs (policyMakespan). */
  policyHours: number;
  appPerPlan: number;
  workerPerPlan: number;
  progressWritesPerPlan: number;
  reportsPerPlan: number;
  checks: LimitCheck[];
}

/** The spec's shape, as github.bench.ts's day-long section has it. */
export const WORKERS_SHAPE = { plans: 1_000, slots: 64, edges: 500 };
/** The App's requests a plan at the least (issue 25): the issue, one claim or status write, the dispatch, one check run, the dependency and sub-issue links. */
export const APP_FLOOR_PER_PLAN = 4.6;

/**
 * A spec's life with its workers: the App through github-hours.ts, the workers replayed here,
 * every limit checked on both together, and the makespan against `harness simulate`'s on the
 * same durations (each plan's work and the 5 minutes to merge its PR).
 */
export async function workersSection(
  log: (line: string) => void,
  shape = WORKERS_SHAPE,
): Promise<{ notes: string[]; targets: Target[]; results: WorkersReport }> {
  const spans: WorkerSpan[] = [];
  let app: FakeGitHub | undefined;
  let appStamps: readonly number[] = [];
  const started = performance.now();
  const hours = await simulateHours({ ...shape, onWorker: (r) => spans.push({ ...r }), onEnd: (g, s) => ((app = g), (appStamps = s)) });
  if (!app) throw new Error('the simulation ended without its fake GitHub');
  const appFake: FakeGitHub = app;
  // The App's dispatches, in the order their workers started: each worker's `running` is what the App told it.
  appFake.dispatches.forEach((d, i) => {
    const running = Number((d.body as { inputs?: { running?: string } }).inputs?.running);
    if (spans[i] && Number.isInteger(running) && running > 0) spans[i].running = running;
  });
  const spec = /SPC-\d+/.exec((appFake.dispatches[0]?.body as { inputs?: { spec?: string } } | undefined)?.inputs?.spec ?? '')?.[0];
  if (!spec) throw new Error('the App dispatched no worker');
  const replayed = spans.filter((s) => appFake.checkRuns.some((r) => r.external_id === `${spec}/${s.target}`));
  const workers = await simulateWorkers(appFake, spec, replayed);
  log(
    `${shape.plans} plans: App ${appFake.requests.length} requests, ${replayed.length} workers replayed with ${workers.requests.length} requests in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );

  const start = Math.min(...appStamps);
  const appCounted: Stamped[] = appFake.requests
    .map((r, i) => ({ at: appStamps[i] ?? start, method: r.method, url: r.url, ...(r.url === '/graphql' ? { body: r.body } : {}) }))
    .filter((_r, i) => appFake.statuses[i] !== 304);
  const checks = checkLimits([...appCounted, ...workers.requests], start, workers.maxConcurrent);

  // harness simulate on the same spec and durations.
  const generated = generateSpec({ plans: shape.plans, phases: Math.max(2, Math.round(shape.plans / 50)), edges: shape.edges });
  const loaded = loadSpec([...generated.files].map(([path, text]) => ({ path, bytes: new TextEncoder().encode(text) })));
  if (!loaded.spec)
    throw new Error(
      `the generated spec does not load: ${loaded.problems
        .slice(0, 3)
        .map((p) => p.message)
        .join('; ')}`,
    );
  const durations = Object.fromEntries(spans.filter((s) => !s.target.startsWith('phase-')).map((s) => [s.target, s.minutes + REVIEW_MINUTES]));
  const simulated = simulate(loaded.spec, { slots: shape.slots, durations });
  const policy = policyMakespan(loaded.spec, shape.slots, durations);
  const planRuns = spans.filter((s) => !s.target.startsWith('phase-')).length;

  const results: WorkersReport = {
    plans: shape.plans,
    slots: shape.slots,
    hours: hours.hours,
    simulatedHours: Math.round((simulated.makespan / 60) * 100) / 100,
    policyHours: Math.round((policy / 60) * 100) / 100,
    appPerPlan: Math.round((appCounted.length / shape.plans) * 10) / 10,
    workerPerPlan: Math.round((workers.requests.length / shape.plans) * 10) / 10,
    progressWritesPerPlan: Math.round((workers.progressWrites / Math.max(planRuns, 1)) * 10) / 10,
    reportsPerPlan: Math.round((workers.reports / Math.max(planRuns, 1)) * 10) / 10,
    checks,
  };
  const ratio = results.hours / results.simulatedHours;
  const overPolicy = results.hours / results.policyHours;
  return {
    notes: [
      '',
      `The workers too (bench/github-workers.ts): every worker the App dispatched replayed on the same simulated clock, making the worker's real calls`,
      `(plan issues, comments, LiveCheck start/progress/finish, the plan PR) against the fake, an agent report every 10-30 s; progress paced by the dispatch's \`running\`.`,
      `Requests a plan: App ${results.appPerPlan} (floor ~${APP_FLOOR_PER_PLAN}), workers ${results.workerPerPlan} (of which ${results.progressWritesPerPlan} progress writes for ${results.reportsPerPlan} reports).`,
      `Makespan ${results.hours} h against harness simulate's ${results.simulatedHours} h on the same durations, known in advance (x${ratio.toFixed(2)}),`,
      `and against ${results.policyHours} h for the same scheduler started at once with only the timeouts known, as the App knows them (x${overPolicy.toFixed(2)}: what GitHub and the App add).`,
      ...checks.map((c) => `${c.peak <= c.limit ? 'within' : 'OVER'}: ${c.name}: peak ${c.peak} of ${c.limit} (${c.where})`),
    ],
    targets: [
      ...checks.map((c) => ({
        name: `${shape.plans} plans on ${shape.slots} slots, App and workers: ${c.name} within ${c.limit}`,
        met: c.peak <= c.limit,
        detail: `peak ${c.peak} (${c.where})`,
      })),
      {
        name: `App requests a plan at most 2.5x the floor (${APP_FLOOR_PER_PLAN})`,
        met: results.appPerPlan <= 2.5 * APP_FLOOR_PER_PLAN,
        detail: `${results.appPerPlan} a plan (x${(results.appPerPlan / APP_FLOOR_PER_PLAN).toFixed(1)})`,
      },
      {
        name: "makespan within 5% of harness simulate's, knowing what the App knows (timeouts, not the durations to come)",
        met: overPolicy <= 1.05,
        detail: `${results.hours} h against ${results.policyHours} h (x${overPolicy.toFixed(2)}); with every duration known in advance ${results.simulatedHours} h (x${ratio.toFixed(2)})`,
      },
    ],
    results,
  };
}
