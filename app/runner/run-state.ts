import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PhaseState, PlanState } from '../engine/core/state/plan-state.js';
import { Scheduler } from '../engine/core/schedule/scheduler.js';
import { researchPath } from '../engine/core/run/research.js';
import type { Spec } from '../engine/core/spec/model.js';
import type { PlanUse } from '../engine/core/run/spend.js';
import type { CheckpointRecord, OrchestrationStore, PauseRecord, SessionResult, SessionStatus } from './store.js';

/** Session key of a phase's own checkpoints (its human checks). */
export function phaseSession(phase: string): string {
  return `phase-${phase}`;
}

export interface RunState {
  plans: Map<string, PlanState>;
  phases: Map<string, PhaseState>;
  statuses: Map<string, SessionStatus>;
  results: Map<string, SessionResult>;
  checkpoints: Map<string, CheckpointRecord>;
  minutes: Map<string, number>;
  /** US dollars each plan's agent reported, for the plans that reported a cost. */
  costs: Map<string, number>;
  /** What each plan's agents reported they used over its attempts (engine/core/run/spend.ts), for the plans that reported anything. */
  uses: Map<string, PlanUse>;
  reasons: Map<string, string>;
  /**
   * Plans paused at the model's usage limit. The scheduler holds them as `checkpoint` (waiting,
   * not failed: their dependants wait, nothing blocks), and a run starts each again at its resumeAt.
   */
  paused: Map<string, PauseRecord>;
  researched: Set<string>;
}

/**
 * What the files of `.orchestration/` say about each plan and phase. A plan with a result
 * is verified (merged) or failed; a plan with only a status was interrupted mid-run and is
 * resumed; a plan with neither has not started.
 */
export function emptyRunState(): RunState {
  return {
    plans: new Map(),
    phases: new Map(),
    statuses: new Map(),
    results: new Map(),
    checkpoints: new Map(),
    minutes: new Map(),
    costs: new Map(),
    uses: new Map(),
    reasons: new Map(),
    paused: new Map(),
    researched: new Set(),
  };
}

export async function readRunState(store: OrchestrationStore, spec: Spec, integrationSpecDir?: string): Promise<RunState> {
  const state = emptyRunState();
  await Promise.all(
    spec.plans.map(async (plan) => {
      const [status, result, checkpoint] = await Promise.all([store.readStatus(plan.id), store.readResult(plan.id), store.readCheckpoint(plan.id)]);
      if (status) state.statuses.set(plan.id, status);
      if (checkpoint) state.checkpoints.set(plan.id, checkpoint);
      if (result) {
        state.results.set(plan.id, result);
        state.minutes.set(plan.id, result.durationMinutes);
        if (result.usage?.costUsd !== undefined) state.costs.set(plan.id, result.usage.costUsd);
        const use = planUseOf(result, status?.agent);
        if (use) state.uses.set(plan.id, use);
        if (result.outcome === 'verified' && result.mergedAs) state.plans.set(plan.id, 'verified');
        else if (result.outcome === 'failed') {
          state.plans.set(plan.id, 'failed');
          if (result.reason) state.reasons.set(plan.id, result.reason);
        } else state.plans.set(plan.id, 'running');
      } else if (status?.state === 'paused' && status.pause) {
        state.plans.set(plan.id, 'checkpoint');
        state.paused.set(plan.id, status.pause);
      } else if (status) {
        state.plans.set(plan.id, checkpoint ? 'checkpoint' : 'running');
      } else if (plan.completed !== undefined) {
        // Done before harness (an imported GSD plan): nothing to run, nothing to redo.
        state.plans.set(plan.id, 'verified');
      }
    }),
  );
  await Promise.all(
    spec.phases.map(async (phase) => {
      const record = await store.readPhase(phase.id);
      if (record) state.phases.set(phase.id, record.outcome);
      else if (phase.plans.length > 0 && phase.plans.every((id) => spec.planById.get(id)?.completed !== undefined)) state.phases.set(phase.id, 'verified');
      const checkpoint = await store.readCheckpoint(phaseSession(phase.id));
      if (checkpoint) state.checkpoints.set(phaseSession(phase.id), checkpoint);
      if (integrationSpecDir && existsSync(join(integrationSpecDir, researchPath(phase)))) state.researched.add(phase.id);
    }),
  );
  return state;
}

/**
 * Plans that cannot run because a plan or phase they need failed. The scheduler decides
 * this from the other states, so it is never stored: `harness status` derives it the same
 * way the run does.
 */
export function markBlocked(spec: Spec, state: RunState): void {
  const scheduler = new Scheduler(spec);
  const schedule = scheduler.state({ plans: state.plans, phases: state.phases });
  for (const b of scheduler.blockedBy(schedule)) {
    state.plans.set(b.plan, 'blocked');
    state.reasons.set(b.plan, 'plan' in b.because ? `${b.because.plan} failed` : `phase ${b.because.phase} failed its verification`);
  }
}

/** What a plan's result says it used over its attempts; undefined when no agent reported anything. */
export function planUseOf(result: SessionResult, agent: string | undefined): PlanUse | undefined {
  const usage = result.spent ?? result.usage;
  if (!usage || Object.keys(usage).length === 0) return undefined;
  return { usage, attempts: result.attempt ?? 1, engines: result.engines ?? (agent === undefined ? [] : [agent]) };
}
