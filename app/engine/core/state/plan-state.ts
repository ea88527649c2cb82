/**
 * Plan and phase states, shared by the scheduler, the local runner and the GitHub app
 * (where each is a `status:` label).
 */
export const PLAN_STATES = ['pending', 'ready', 'running', 'checkpoint', 'verified', 'failed', 'blocked'] as const;
export type PlanState = (typeof PLAN_STATES)[number];

export const PHASE_STATES = ['pending', 'verifying', 'verified', 'failed', 'blocked'] as const;
export type PhaseState = (typeof PHASE_STATES)[number];

/** States the scheduler treats as "occupies a slot". */
export function isActive(state: PlanState): boolean {
  return state === 'running' || state === 'checkpoint';
}

/** States from which a plan will not change without a person (retry, respond). */
export function isSettled(state: PlanState): boolean {
  return state === 'verified' || state === 'failed' || state === 'blocked';
}
