import { KNOWLEDGE_ROOT } from '../engine/forge/knowledge-draft.js';
import { environmentFault } from '../machine/environment-fault.js';
import { join, relative, sep } from 'node:path';
import { analyzeGraph } from '../engine/core/analysis/analyze.js';
import { graphJson } from '../engine/core/analysis/render.js';
import type { PhaseState, PlanState } from '../engine/core/state/plan-state.js';
import { progressOf } from '../engine/core/run/status-document.js';
import { loadSpec } from '../engine/core/spec/load.js';
import type { Spec } from '../engine/core/spec/model.js';
import type { RunSnapshot } from '../engine/core/run/snapshot.js';
import type { Problem } from '../engine/core/spec/problem.js';
import { systemClock } from '../machine/clock.js';
import { readSpecFiles } from '../machine/spec-files.js';
import type { RunContext, RunOptions } from './context.js';
import { commitDocuments, noteActivity, recordedCommit, snapshotOf } from './documents.js';
import { fileKnowledge } from './capture.js';
import { interruptedSignal } from '../engine/lifecycle/signals.js';
import { TRAILER_SPEC } from '../engine/core/agents/commit-message.js';
import { finalVerification } from './final-verification.js';
import { acquireRunLock } from './lock.js';
import { Mutex } from './mutex.js';
import { executePhase } from './phase-execution.js';
import { executePlan } from './plan-execution.js';
import { reflectDuringRun } from './reflection.js';
import { integrationBranch, planBranch, RunError, RunRepo } from './repo.js';
import { cannotRemove } from './worktree-pool.js';
import { executeResearch, phaseStarted } from './research-execution.js';
import { readRunState, type RunState } from './run-state.js';
import { followBase } from './base-moved.js';
import { runScheduler } from './run-scheduler.js';
import { filterWaits } from './filter-waits.js';
import { OrchestrationStore, type RunRecord } from './store.js';
import { PLAN_READING } from '../engine/importers/dialects.js';
import { WorktreeWatch } from './worktree-watch.js';
import { Heartbeat } from '../engine/lifecycle/heartbeat.js';
import type { RunReporter } from './progress.js';
import { containmentNotice } from '../machine/containment.js';
import { duePaused, nextResume } from './usage-pause.js';

export interface RunOutcome {
  spec: string;
  /** Every plan and phase verified. */
  complete: boolean;
  plans: Record<string, PlanState>;
  phases: Record<string, PhaseState>;
  integrationBranch: string;
  integrationWorktree: string;
  /** STATUS.md in the integration worktree. */
  statusFile: string;
  timing: { totalMs: number; agentMs: number; gitMs: number; verifyMs: number; plansRun: number };
  /** Set when the spec itself does not validate (nothing ran). */
  problems?: Problem[];
  stopped: boolean;
  /** With --plan or --phase: why plans it names did not run (runner/filter-waits.ts). */
  waits?: string[];
  /** The run stopped because the machine failed (a full disk, a worktree's .git removed): what and what to do, one line. */
  fault?: string;
  /**
   * Plans left paused at the model's usage limit (runner/usage-pause.ts), earliest first: the run
   * ended with nothing else to run and was not asked to wait (`wait`) for their reset.
   */
  paused?: { plan: string; resumeAt: string; reason: string }[];
}

/**
 * `harness run`: execute a spec locally as fast as its graph allows. The run is a loop
 * over the scheduler: start what is ready in free slots, verify phases as they complete,
 * research ahead with idle slots, and wait for the next thing to finish. All state is in
 * `.orchestration/` and on branches, so the loop can be killed and started again.
 */
export async function runSpec(options: RunOptions): Promise<RunOutcome> {
  const now = options.now ?? (() => new Date());
  const startedAt = performance.now();
  const loaded = loadSpec(await readSpecFiles(options.specDir), PLAN_READING);
  const repo = await RunRepo.open(options.specDir);
  if (!loaded.valid || !loaded.spec) return invalidSpec(loaded.spec?.id ?? '', loaded.problems);
  const spec = loaded.spec;
  const specRel = specDirIn(repo, options.specDir);
  checkScope(spec, options);

  const store = OrchestrationStore.for(repo.root, spec.id);
  const release = await acquireRunLock(store.root);
  // Whatever the run prints, the heartbeat hears; its own lines are printed the same way.
  const heartbeat = options.ticker ? new Heartbeat((text) => reporter.event({ kind: 'heartbeat', text }), options.ticker) : undefined;
  const reporter = heard(options.reporter, heartbeat);
  const abort = new AbortController();
  const onAbort = () => abort.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const worktree = repo.worktreePath(spec.id, 'integration');
    const integration = { branch: integrationBranch(spec.id), worktree, specDir: join(worktree, specRel) };
    const start: RunStart = { spec, specRel, repo, store, options, reporter, heartbeat, abort, now, startedAt, integration };
    await prepareRepository(start);
    const { record, resumed } = await claimRun(start);
    const ctx = await runContext(start, record, resumed);
    await ctx.watch.watch('integration', worktree, { gitOnly: true });
    const plansRun = await loop(ctx, interruptedPlans(ctx.state));
    // The verified plans' worktrees no plan took: a run that ends leaves only the integration worktree (and failed plans', to look at).
    await repo.removeSpares();

    const snapshot = snapshotOf(ctx);
    const complete = progressOf(spec, snapshot).status === 'complete';
    if (!abort.signal.aborted) await concludeRun(ctx, complete);
    else if (options.signal?.aborted) await recordStop(ctx, snapshot);
    await store.writeActiveFiles({});
    reporter.close();
    return outcomeOf(ctx, snapshot, complete, plansRun);
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    // Its timer goes with the run, however the run ends: nothing keeps the process alive after it.
    heartbeat?.stop();
    reporter.close();
    await repo.close();
    await release();
  }
}

/** What the run has before its context: the spec, where it runs, and how it prints and stops. */
interface RunStart {
  spec: Spec;
  specRel: string;
  repo: RunRepo;
  store: OrchestrationStore;
  options: RunOptions;
  reporter: RunReporter;
  heartbeat: Heartbeat | undefined;
  abort: AbortController;
  now: () => Date;
  startedAt: number;
  integration: RunContext['integration'];
}

/** The outcome of a spec that does not validate: its problems, nothing run. */
function invalidSpec(spec: string, problems: Problem[]): RunOutcome {
  return {
    spec,
    complete: false,
    plans: {},
    phases: {},
    integrationBranch: '',
    integrationWorktree: '',
    statusFile: '',
    timing: { totalMs: 0, agentMs: 0, gitMs: 0, verifyMs: 0, plansRun: 0 },
    problems,
    stopped: false,
  };
}

/** The spec directory relative to the repository root, forward slashes; one outside the repository is refused. */
function specDirIn(repo: RunRepo, specDir: string): string {
  const specRel = relative(repo.root, specDir).split(sep).join('/') || '.';
  if (specRel.startsWith('..')) throw new RunError(`${specDir} is outside the repository ${repo.root}`);
  return specRel;
}

/** --plan and --phase name a plan and a phase of the spec. */
function checkScope(spec: Spec, options: RunOptions): void {
  for (const id of [options.plan].filter((x): x is string => x !== undefined)) {
    if (!spec.planById.has(id)) throw new RunError(`--plan ${id}: no such plan in ${spec.id}`);
  }
  if (options.phase !== undefined && !spec.phases.some((p) => p.id === options.phase)) {
    throw new RunError(`--phase ${options.phase}: no such phase in ${spec.id} (phases: ${spec.phases.map((p) => p.id).join(', ')})`);
  }
}

/** The repository made ready for the run: what killed runs left in the way cleared, each thing said. */
async function prepareRepository({ spec, repo, store, reporter }: RunStart): Promise<void> {
  await repo.excludeOrchestration();
  // Servers of checks a killed run left listening: stopped before anything else starts.
  for (const name of await repo.moveOldWorktrees(spec.id))
    reporter.event({ kind: 'info', text: `moved the worktree ${name} to ${repo.worktreePath(spec.id, name)}, out of the git directory` });
  for (const lock of await repo.clearStaleLocks(spec.id))
    reporter.event({ kind: 'info', text: `removed ${lock}, left by a git command of a run that was killed` });
  for (const what of await store.processes().reap()) reporter.event({ kind: 'info', text: `stopped check ${what}, left running by a run that was killed` });
  // Once a run: where agents and checks cannot be put in containers here, what that leaves.
  const notice = containmentNotice();
  if (notice !== undefined) reporter.event({ kind: 'info', text: notice });
}

/**
 * The run record, the last run's resumed or a new one, with the integration worktree ready: claimed
 * for this run (its holder, agent and scope) and written.
 */
async function claimRun(start: RunStart): Promise<{ record: RunRecord; resumed: boolean }> {
  const { repo, store, options, now, integration } = start;
  let record = await store.readRun();
  const resumed = record !== undefined;
  record ??= await newRecord(start);
  await repo.ensureWorktree(integration.worktree, integration.branch, record.baseSha);
  if (resumed) record = await resumeRecord(start, record);
  // The plans are read from the checkout as it is; the code the agents start from is committed code.
  const uncommitted = await repo.uncommitted(start.specRel);
  if (uncommitted.length > 0) {
    start.reporter.event({
      kind: 'info',
      text: `uses uncommitted changes to ${uncommitted.join(', ')}: the spec is read from your checkout as it is, the code from commits`,
    });
  }
  const scope = { ...(options.plan !== undefined ? { plan: options.plan } : {}), ...(options.phase !== undefined ? { phase: options.phase } : {}) };
  record = {
    ...thisRun(record),
    updatedAt: now().toISOString(),
    holder: { pid: process.pid, since: now().toISOString() },
    ...(options.agent !== undefined ? { agent: options.agent } : {}),
    ...(Object.keys(scope).length > 0 ? { scope } : {}),
  };
  await store.writeRun(record);
  return { record, resumed };
}

/** The record of a spec's first run: based on the commit checked out. */
async function newRecord({ spec, specRel, repo, now, integration }: RunStart): Promise<RunRecord> {
  const baseSha = await repo.headCommit('harness run');
  return {
    spec: spec.id,
    specDir: specRel,
    baseBranch: (await repo.currentBranch()) ?? baseSha,
    baseSha,
    integrationBranch: integration.branch,
    integrationWorktree: integration.worktree,
    createdAt: now().toISOString(),
    updatedAt: now().toISOString(),
  };
}

/** A resumed run's integration worktree put back as the last run committed it, and its base followed (base-moved.ts). */
async function resumeRecord({ repo, options, reporter, specRel, integration }: RunStart, record: RunRecord): Promise<RunRecord> {
  const { branch, worktree } = integration;
  if (await repo.abortInterruptedMerge(worktree))
    reporter.event({ kind: 'info', text: `a merge into ${branch} that a killed run left unconcluded was aborted; its plan is merged again` });
  // Records a killed run wrote and never committed: written again as the run reaches them, and in the way of merges meanwhile.
  for (const f of await repo.discardUncommitted(worktree, specRel, KNOWLEDGE_ROOT))
    reporter.event({ kind: 'info', text: `put back ${f}, written by a run that was killed before it committed it; it is written again` });
  const say = (text: string) => reporter.event({ kind: 'info', text });
  return followBase(repo, record, worktree, { retry: options.retry === true, keepBase: options.keepBase === true, say });
}

/** Everything the parts of the run share: the graph analysed and written, the run's state read and its schedule resumed from it. */
async function runContext(start: RunStart, record: RunRecord, resumed: boolean): Promise<RunContext> {
  const { spec, repo, store, options, heartbeat, now } = start;
  const analysis = analyzeGraph(spec);
  await store.writeGraph(graphJson(spec, analysis));
  const state = await readState(start);
  const scheduler = runScheduler(spec, state.minutes, options.slots);
  // A plan paused at the usage limit stays held (as `checkpoint`) until its time; the loop starts it then (usage-pause.ts).
  const held = (id: string) => state.paused.has(id);
  const schedule = scheduler.state({
    plans: [...state.plans].map(([id, s]) => [id, (s === 'running' || s === 'checkpoint') && !held(id) ? 'pending' : s] as const),
    phases: state.phases,
    research: [...state.researched].map((p) => [p, 'done'] as const),
  });
  return {
    spec,
    resumed,
    analysis,
    specRel: start.specRel,
    repo,
    store,
    record,
    integration: start.integration,
    scheduler,
    schedule,
    state,
    activity: await store.readActivity(),
    options,
    reporter: start.reporter,
    ...(heartbeat ? { heartbeat } : {}),
    mutex: new Mutex(),
    watch: new WorktreeWatch(),
    timing: { startedAt: start.startedAt, agentMs: 0, verifyMs: 0 },
    abort: start.abort,
    now,
    clock: systemClock(now),
  };
}

/** The run's state, read after --retry forgot the failures; verified plans' worktrees a killed run left are kept as spares. */
async function readState({ spec, repo, store, options, integration }: RunStart): Promise<RunState> {
  if (options.retry)
    await forgetFailures(
      repo,
      store,
      spec.id,
      spec.plans.map((p) => p.id),
      spec.phases.map((p) => p.id),
    );
  const state = await readRunState(store, spec, integration.specDir);
  // A run killed between recording a plan verified and removing its worktree left it
  // behind: no later step of any run would visit that plan again. Kept as a spare for
  // this run's plans, and removed at its end with the others.
  for (const [id, s] of state.plans) if (s === 'verified') await repo.retireWorktree(repo.worktreePath(spec.id, id));
  return state;
}

/** The plans a killed run left mid-way, but for those paused at the usage limit (held until their time). */
function interruptedPlans(state: RunState): string[] {
  return [...state.plans].filter(([id, s]) => (s === 'running' || s === 'checkpoint') && !state.paused.has(id)).map(([id]) => id);
}

/**
 * A run that ended by itself: its documents committed (after the final verification and with
 * reflection when the spec is complete), and the record marked ended.
 */
async function concludeRun(ctx: RunContext, complete: boolean): Promise<void> {
  const finished = complete && (await recordedCommit(ctx, SPEC_VERIFIED)) !== undefined;
  // A finished spec run again: its completion is on the branch already, once.
  if (!finished) {
    await ctx.mutex.run(async () => {
      const files: Record<string, string> = {};
      if (complete) Object.assign(files, await finalVerification(ctx));
      await commitDocuments(ctx, files, complete ? 'all phases verified' : 'status', [], [], [], complete ? SPEC_VERIFIED : undefined);
    });
    if (complete) await reflectDuringRun(ctx, 'spec');
  }
  // Ended by itself: `harness status` says what it was asked to run finished, not that it stopped.
  await ctx.store.writeRun({ ...ctx.record, updatedAt: ctx.now().toISOString(), ended: ctx.now().toISOString() });
}

/** A person stopped the run (Ctrl-C): that is a signal, committed on its own; the plans it cut short resume next time. */
async function recordStop(ctx: RunContext, snapshot: RunSnapshot): Promise<void> {
  const { spec } = ctx;
  await ctx.mutex.run(async () => {
    const cut = spec.plans.filter((p) => snapshot.plans.get(p.id) === 'running');
    const knowledge = await fileKnowledge(ctx, {
      drafts: [interruptedSignal({ spec: spec.id, plans: cut, by: 'A person (Ctrl-C)' })],
      label: 'the stopped run',
    });
    if (knowledge.length > 0)
      await ctx.repo.commitPaths(ctx.integration.worktree, knowledge, {
        subject: `docs(${spec.id}): the run was stopped`,
        trailers: [{ key: TRAILER_SPEC, value: spec.id }],
      });
  });
}

/** What the run returns: where everything stands, why named plans did not run, and the plans left paused. */
function outcomeOf(ctx: RunContext, snapshot: RunSnapshot, complete: boolean, plansRun: number): RunOutcome {
  const { spec, options, abort, integration } = ctx;
  const waits = abort.signal.aborted ? [] : filterWaits(spec, ctx.schedule, options, ctx.state.reasons, options.specArg);
  const paused = [...ctx.state.paused]
    .sort(([, a], [, b]) => Date.parse(a.resumeAt) - Date.parse(b.resumeAt))
    .map(([plan, p]) => ({ plan, resumeAt: p.resumeAt, reason: p.reason }));
  return {
    ...(waits.length > 0 ? { waits } : {}),
    ...(paused.length > 0 && !abort.signal.aborted ? { paused } : {}),
    spec: spec.id,
    complete,
    plans: Object.fromEntries(snapshot.plans),
    phases: Object.fromEntries(snapshot.phases),
    integrationBranch: integration.branch,
    integrationWorktree: integration.worktree,
    statusFile: join(integration.specDir, 'STATUS.md'),
    timing: {
      totalMs: performance.now() - ctx.timing.startedAt,
      agentMs: ctx.timing.agentMs,
      gitMs: ctx.repo.watch.ms,
      verifyMs: ctx.timing.verifyMs,
      plansRun,
    },
    stopped: abort.signal.aborted,
    ...(ctx.fault === undefined ? {} : { fault: ctx.fault }),
  };
}

/** The run's reporter, with the heartbeat told of every event it prints. */
function heard(reporter: RunReporter, heartbeat: Heartbeat | undefined): RunReporter {
  if (!heartbeat) return reporter;
  return {
    event: (e) => {
      heartbeat.heard();
      reporter.event(e);
    },
    totals: (t) => reporter.totals(t),
    close: () => reporter.close(),
  };
}

/** The run record as this run starts it: what the last run was asked to run, and that it ended, are the last run's. */
function thisRun(record: RunRecord): RunRecord {
  const next = { ...record };
  delete next.scope;
  delete next.ended;
  return next;
}

/** The event the commit of a spec's completion records (see commitDocuments' `once`). */
const SPEC_VERIFIED = 'all phases verified';

/** What the scheduling loop keeps between its turns. */
interface Loop {
  ctx: RunContext;
  /** What runs, by key: a plan's id, `phase:<id>` (its verification) or `research:<id>`. */
  inflight: Map<string, Promise<void>>;
  activePlans: Set<string>;
  plansRun: number;
  /** The plans --plan and --phase let the run start. */
  allowed: (id: string) => boolean;
}

/** The scheduling loop; returns how many plans it ran. */
async function loop(ctx: RunContext, interrupted: string[]): Promise<number> {
  const { spec, options } = ctx;
  const run: Loop = {
    ctx,
    inflight: new Map(),
    activePlans: new Set(),
    plansRun: 0,
    allowed: (id) => (options.plan === undefined || options.plan === id) && (options.phase === undefined || spec.planById.get(id)!.phase === options.phase),
  };
  // Plans a killed run left mid-way go first: their slots were taken before the crash.
  for (const id of interrupted) startPlan(run, id);
  for (;;) {
    if (ctx.abort.signal.aborted) break;
    blockPlans(ctx);
    const free = startPlans(run);
    startPhases(run);
    if (free > 0 && options.plan === undefined) startResearch(run, free);
    await ctx.store.writeActiveFiles(Object.fromEntries([...run.activePlans].map((id) => [id, spec.planById.get(id)!.filesModified])));
    reportTotals(ctx);
    // With nothing running, a paused plan is waited for only when the run was asked to (--wait).
    const paused = [...ctx.state.paused.keys()].some(run.allowed);
    if (run.inflight.size === 0 && !(paused && options.wait)) break;
    const wake = paused ? resetTimer(ctx) : undefined;
    try {
      await Promise.race([...run.inflight.values(), ...(wake ? [wake.rang] : [])]);
    } finally {
      wake?.cancel();
    }
  }
  // Let what is running stop cleanly (it sees the abort) before the run returns.
  await Promise.allSettled(run.inflight.values());
  return run.plansRun;
}

/**
 * Runs `work` as the task `key`. A task that throws stops the run (unless it was stopped already):
 * the machine failing is said in one line, anything else as an internal error.
 */
function launch(run: Loop, key: string, work: () => Promise<void>): void {
  const { ctx } = run;
  const task = (async () => {
    try {
      await work();
    } catch (e) {
      if (!ctx.abort.signal.aborted) {
        // The machine failing is said in one line, not as a bug (environment-fault.ts).
        const fault = environmentFault(e, (where) => ctx.watch.removedGitOf(where));
        if (fault !== undefined) ctx.fault ??= `${key}: ${fault}`;
        ctx.reporter.event({
          kind: 'info',
          text: fault !== undefined ? `${key} stopped: ${fault}` : `${key}: internal error: ${(e as Error).stack ?? (e as Error).message}`,
        });
        ctx.abort.abort();
      }
    } finally {
      run.inflight.delete(key);
      run.activePlans.delete(key);
    }
  })();
  run.inflight.set(key, task);
}

/** Marks the plan running and runs it (plan-execution.ts). */
function startPlan(run: Loop, id: string): void {
  run.ctx.schedule.setPlan(id, 'running');
  run.activePlans.add(id);
  run.plansRun++;
  launch(run, id, () => executePlan(run.ctx, run.ctx.spec.planById.get(id)!));
}

/** Plans that a failed plan or phase blocks are marked blocked, once each, and why is said. */
function blockPlans(ctx: RunContext): void {
  const { scheduler, schedule } = ctx;
  for (const b of scheduler.blockedBy(schedule)) {
    if (schedule.plan(b.plan) === 'blocked') continue;
    schedule.setPlan(b.plan, 'blocked');
    const because = 'plan' in b.because ? `${b.because.plan} failed` : `phase ${b.because.phase} failed its verification`;
    ctx.state.reasons.set(b.plan, because);
    noteActivity(ctx, `${b.plan} blocked: ${because}`);
    ctx.reporter.event({ kind: 'plan-blocked', plan: b.plan, because });
  }
}

/** Starts plans in the slots that plans and research leave free; returns how many slots are still free. */
function startPlans(run: Loop): number {
  const { ctx } = run;
  const research = [...run.inflight.keys()].filter((k) => k.startsWith('research:')).length;
  let free = ctx.options.slots - run.activePlans.size - research;
  // Paused plans whose usage limit has reset go first: they started before the others.
  for (const id of duePaused(ctx).filter(run.allowed).slice(0, Math.max(0, free))) {
    ctx.state.paused.delete(id);
    startPlan(run, id);
    free--;
  }
  if (free > 0) {
    const picks = ctx.scheduler.pick(ctx.schedule, free, run.allowed);
    for (const id of picks) startPlan(run, id);
    free -= picks.length;
  }
  return free;
}

/** Starts the verification of each phase whose plans are all verified, unless it runs already. */
function startPhases(run: Loop): void {
  const { spec, scheduler, schedule } = run.ctx;
  for (const phaseId of scheduler.phaseReady(schedule)) {
    const key = `phase:${phaseId}`;
    if (!run.inflight.has(key))
      launch(run, key, () =>
        executePhase(
          run.ctx,
          spec.phases.find((p) => p.id === phaseId)!,
        ),
      );
  }
}

/** With `free` slots idle, researches ahead the phases not begun yet, one a slot. */
function startResearch(run: Loop, free: number): void {
  const { ctx } = run;
  const { spec, scheduler, schedule } = ctx;
  const notBegun = scheduler.researchCandidates(schedule).filter(
    (id) =>
      !phaseStarted(
        ctx,
        spec.phases.find((p) => p.id === id)!,
      ),
  );
  for (const phaseId of notBegun.slice(0, free)) {
    const key = `research:${phaseId}`;
    if (!run.inflight.has(key))
      launch(run, key, () =>
        executeResearch(
          ctx,
          spec.phases.find((p) => p.id === phaseId)!,
        ),
      );
  }
}

/** The run's totals, as the reporter shows them. */
function reportTotals(ctx: RunContext): void {
  const { spec, schedule } = ctx;
  ctx.reporter.totals({
    plansVerified: spec.plans.filter((p) => schedule.plan(p.id) === 'verified').length,
    plansTotal: spec.plans.length,
    phasesVerified: spec.phases.filter((p) => schedule.phase(p.id) === 'verified').length,
    phasesTotal: spec.phases.length,
  });
}

/** The longest a timer is set for (setTimeout's limit, about 24 days): a later reset is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Resolves when the first paused plan's usage limit resets (or the run is stopped): the run's
 * timers (options.timers, the machine's by default) set for it, so a test drives it with its own.
 */
function resetTimer(ctx: RunContext): { rang: Promise<void>; cancel: () => void } {
  const next = nextResume(ctx)!;
  const timers = ctx.options.timers ?? ctx.clock;
  let cancel = () => {};
  const rang = new Promise<void>((resolve) => {
    if (ctx.abort.signal.aborted) return resolve();
    const ms = Math.min(MAX_TIMER_MS, Math.max(0, next.getTime() - ctx.now().getTime()));
    const stop = timers.after(ms, resolve);
    const onAbort = () => resolve();
    ctx.abort.signal.addEventListener('abort', onAbort, { once: true });
    cancel = () => {
      stop();
      ctx.abort.signal.removeEventListener('abort', onAbort);
    };
  });
  return { rang, cancel };
}

/** --retry: failed plans, the plans they blocked and failed phases get a fresh attempt from the current integration branch. */
async function forgetFailures(repo: RunRepo, store: OrchestrationStore, spec: string, plans: string[], phases: string[]): Promise<void> {
  for (const plan of plans) {
    const result = await store.readResult(plan);
    const status = await store.readStatus(plan);
    if (result?.outcome !== 'failed' && status?.state !== 'failed') continue;
    await repo.removeWorktree(repo.worktreePath(spec, plan)).catch(cannotRemove);
    if (await repo.branchExists(planBranch(spec, plan))) await repo.git().run(['branch', '-D', planBranch(spec, plan)]);
    await store.resetSession(plan);
  }
  for (const phase of phases) {
    const record = await store.readPhase(phase);
    if (record?.outcome === 'failed') await store.forgetPhase(phase);
  }
}
