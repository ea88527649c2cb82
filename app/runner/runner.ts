import { KNOWLEDGE_ROOT } from '../engine/forge/knowledge-draft.js';
import { environmentFault } from '../machine/environment-fault.js';
import { join, relative, sep } from 'node:path';
import { analyzeGraph } from '../engine/core/analysis/analyze.js';
import { graphJson } from '../engine/core/analysis/render.js';
import type { PhaseState, PlanState } from '../engine/core/state/plan-state.js';
import { progressOf } from '../engine/core/run/status-document.js';
import { loadSpec } from '../engine/core/spec/load.js';
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
import { readRunState } from './run-state.js';
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
  if (!loaded.valid || !loaded.spec) {
    return {
      spec: loaded.spec?.id ?? '',
      complete: false,
      plans: {},
      phases: {},
      integrationBranch: '',
      integrationWorktree: '',
      statusFile: '',
      timing: { totalMs: 0, agentMs: 0, gitMs: 0, verifyMs: 0, plansRun: 0 },
      problems: loaded.problems,
      stopped: false,
    };
  }
  const spec = loaded.spec;
  const specRel = relative(repo.root, options.specDir).split(sep).join('/') || '.';
  if (specRel.startsWith('..')) throw new RunError(`${options.specDir} is outside the repository ${repo.root}`);
  for (const id of [options.plan].filter((x): x is string => x !== undefined)) {
    if (!spec.planById.has(id)) throw new RunError(`--plan ${id}: no such plan in ${spec.id}`);
  }
  if (options.phase !== undefined && !spec.phases.some((p) => p.id === options.phase)) {
    throw new RunError(`--phase ${options.phase}: no such phase in ${spec.id} (phases: ${spec.phases.map((p) => p.id).join(', ')})`);
  }

  const store = OrchestrationStore.for(repo.root, spec.id);
  const release = await acquireRunLock(store.root);
  // Whatever the run prints, the heartbeat hears; its own lines are printed the same way.
  const heartbeat = options.ticker ? new Heartbeat((text) => reporter.event({ kind: 'heartbeat', text }), options.ticker) : undefined;
  const reporter = heard(options.reporter, heartbeat);
  const abort = new AbortController();
  const onAbort = () => abort.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
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
    let record = await store.readRun();
    const resumed = record !== undefined;
    const branch = integrationBranch(spec.id);
    const worktree = repo.worktreePath(spec.id, 'integration');
    if (!record) {
      const baseSha = await repo.headCommit('harness run');
      record = {
        spec: spec.id,
        specDir: specRel,
        baseBranch: (await repo.currentBranch()) ?? baseSha,
        baseSha,
        integrationBranch: branch,
        integrationWorktree: worktree,
        createdAt: now().toISOString(),
        updatedAt: now().toISOString(),
      };
    }
    await repo.ensureWorktree(worktree, branch, record.baseSha);
    if (resumed) {
      if (await repo.abortInterruptedMerge(worktree))
        reporter.event({ kind: 'info', text: `a merge into ${branch} that a killed run left unconcluded was aborted; its plan is merged again` });
      // Records a killed run wrote and never committed: written again as the run reaches them, and in the way of merges meanwhile.
      for (const f of await repo.discardUncommitted(worktree, specRel, KNOWLEDGE_ROOT))
        reporter.event({ kind: 'info', text: `put back ${f}, written by a run that was killed before it committed it; it is written again` });
      const say = (text: string) => reporter.event({ kind: 'info', text });
      record = await followBase(repo, record, worktree, { retry: options.retry === true, keepBase: options.keepBase === true, say });
    }
    // The plans are read from the checkout as it is; the code the agents start from is committed code.
    const uncommitted = await repo.uncommitted(specRel);
    if (uncommitted.length > 0) {
      reporter.event({
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
    const analysis = analyzeGraph(spec);
    await store.writeGraph(graphJson(spec, analysis));
    const integrationSpecDir = join(worktree, specRel);
    if (options.retry)
      await forgetFailures(
        repo,
        store,
        spec.id,
        spec.plans.map((p) => p.id),
        spec.phases.map((p) => p.id),
      );
    const state = await readRunState(store, spec, integrationSpecDir);
    // A run killed between recording a plan verified and removing its worktree left it
    // behind: no later step of any run would visit that plan again. Kept as a spare for
    // this run's plans, and removed at its end with the others.
    for (const [id, s] of state.plans) if (s === 'verified') await repo.retireWorktree(repo.worktreePath(spec.id, id));

    const scheduler = runScheduler(spec, state.minutes, options.slots);
    // A plan paused at the usage limit stays held (as `checkpoint`) until its time; the loop starts it then (usage-pause.ts).
    const held = (id: string) => state.paused.has(id);
    const schedule = scheduler.state({
      plans: [...state.plans].map(([id, s]) => [id, (s === 'running' || s === 'checkpoint') && !held(id) ? 'pending' : s] as const),
      phases: state.phases,
      research: [...state.researched].map((p) => [p, 'done'] as const),
    });
    const ctx: RunContext = {
      spec,
      resumed,
      analysis,
      specRel,
      repo,
      store,
      record,
      integration: { branch, worktree, specDir: integrationSpecDir },
      scheduler,
      schedule,
      state,
      activity: await store.readActivity(),
      options,
      reporter,
      ...(heartbeat ? { heartbeat } : {}),
      mutex: new Mutex(),
      watch: new WorktreeWatch(),
      timing: { startedAt, agentMs: 0, verifyMs: 0 },
      abort,
      now,
      clock: systemClock(now),
    };
    await ctx.watch.watch('integration', worktree, { gitOnly: true });
    const plansRun = await loop(
      ctx,
      [...state.plans].filter(([id, s]) => (s === 'running' || s === 'checkpoint') && !held(id)).map(([id]) => id),
    );
    // The verified plans' worktrees no plan took: a run that ends leaves only the integration worktree (and failed plans', to look at).
    await repo.removeSpares();

    const snapshot = snapshotOf(ctx);
    const progress = progressOf(spec, snapshot);
    const complete = progress.status === 'complete';
    if (!abort.signal.aborted) {
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
      await store.writeRun({ ...ctx.record, updatedAt: now().toISOString(), ended: now().toISOString() });
    } else if (options.signal?.aborted) {
      // A person stopped the run (Ctrl-C): that is a signal, committed on its own; the plans it cut short resume next time.
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
    await store.writeActiveFiles({});
    reporter.close();
    const waits = abort.signal.aborted ? [] : filterWaits(spec, schedule, options, ctx.state.reasons, options.specArg);
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
      integrationBranch: branch,
      integrationWorktree: worktree,
      statusFile: join(integrationSpecDir, 'STATUS.md'),
      timing: { totalMs: performance.now() - startedAt, agentMs: ctx.timing.agentMs, gitMs: repo.watch.ms, verifyMs: ctx.timing.verifyMs, plansRun },
      stopped: abort.signal.aborted,
      ...(ctx.fault === undefined ? {} : { fault: ctx.fault }),
    };
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    // Its timer goes with the run, however the run ends: nothing keeps the process alive after it.
    heartbeat?.stop();
    reporter.close();
    await repo.close();
    await release();
  }
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

/** The scheduling loop; returns how many plans it ran. */
async function loop(ctx: RunContext, interrupted: string[]): Promise<number> {
  const { spec, scheduler, schedule, options } = ctx;
  const inflight = new Map<string, Promise<void>>();
  const activePlans = new Set<string>();
  let plansRun = 0;
  const allowed = (id: string) =>
    (options.plan === undefined || options.plan === id) && (options.phase === undefined || spec.planById.get(id)!.phase === options.phase);

  const launch = (key: string, work: () => Promise<void>) => {
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
        inflight.delete(key);
        activePlans.delete(key);
      }
    })();
    inflight.set(key, task);
  };
  const startPlan = (id: string) => {
    schedule.setPlan(id, 'running');
    activePlans.add(id);
    plansRun++;
    launch(id, () => executePlan(ctx, spec.planById.get(id)!));
  };

  // Plans a killed run left mid-way go first: their slots were taken before the crash.
  for (const id of interrupted) startPlan(id);
  for (;;) {
    if (ctx.abort.signal.aborted) break;
    for (const b of scheduler.blockedBy(schedule)) {
      if (schedule.plan(b.plan) === 'blocked') continue;
      schedule.setPlan(b.plan, 'blocked');
      const because = 'plan' in b.because ? `${b.because.plan} failed` : `phase ${b.because.phase} failed its verification`;
      ctx.state.reasons.set(b.plan, because);
      noteActivity(ctx, `${b.plan} blocked: ${because}`);
      ctx.reporter.event({ kind: 'plan-blocked', plan: b.plan, because });
    }
    const research = [...inflight.keys()].filter((k) => k.startsWith('research:')).length;
    let free = options.slots - activePlans.size - research;
    // Paused plans whose usage limit has reset go first: they started before the others.
    for (const id of duePaused(ctx).filter(allowed).slice(0, Math.max(0, free))) {
      ctx.state.paused.delete(id);
      startPlan(id);
      free--;
    }
    if (free > 0) {
      const picks = scheduler.pick(schedule, free, allowed);
      for (const id of picks) startPlan(id);
      free -= picks.length;
    }
    for (const phaseId of scheduler.phaseReady(schedule)) {
      const key = `phase:${phaseId}`;
      if (!inflight.has(key))
        launch(key, () =>
          executePhase(
            ctx,
            spec.phases.find((p) => p.id === phaseId)!,
          ),
        );
    }
    if (free > 0 && options.plan === undefined) {
      const notBegun = scheduler.researchCandidates(schedule).filter(
        (id) =>
          !phaseStarted(
            ctx,
            spec.phases.find((p) => p.id === id)!,
          ),
      );
      for (const phaseId of notBegun.slice(0, free)) {
        const key = `research:${phaseId}`;
        if (!inflight.has(key))
          launch(key, () =>
            executeResearch(
              ctx,
              spec.phases.find((p) => p.id === phaseId)!,
            ),
          );
      }
    }
    await ctx.store.writeActiveFiles(Object.fromEntries([...activePlans].map((id) => [id, spec.planById.get(id)!.filesModified])));
    ctx.reporter.totals({
      plansVerified: spec.plans.filter((p) => schedule.plan(p.id) === 'verified').length,
      plansTotal: spec.plans.length,
      phasesVerified: spec.phases.filter((p) => schedule.phase(p.id) === 'verified').length,
      phasesTotal: spec.phases.length,
    });
    // With nothing running, a paused plan is waited for only when the run was asked to (--wait).
    const paused = [...ctx.state.paused.keys()].some(allowed);
    if (inflight.size === 0 && !(paused && options.wait)) break;
    const wake = paused ? resetTimer(ctx) : undefined;
    try {
      await Promise.race([...inflight.values(), ...(wake ? [wake.rang] : [])]);
    } finally {
      wake?.cancel();
    }
  }
  // Let what is running stop cleanly (it sees the abort) before the run returns.
  await Promise.allSettled(inflight.values());
  return plansRun;
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
