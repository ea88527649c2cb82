import { rateLimitOf } from '../core/agents/rate-limit.js';

/**
 * The model's usage limit, as both runtimes take it: a pause to wait out, never the plan's
 * failure. Decided here once, from the agent's own failure (each adapter words the stop in its
 * reason, with "(resets <ISO time>)" where the CLI said when): the attempt ends `paused` (no
 * attempt counted, no signal, its dependants wait), the worker asks the pause's checkpoint on
 * the plan issue with `resume_at=`, and `harness run` keeps the plan paused in `.orchestration/`
 * and starts it again after the reset (docs/agents.md: "A usage limit pauses the plan").
 */
export interface UsagePause {
  /** When the limit resets, where the agent said. */
  resetsAt?: Date;
  /** The agent's own words for the stop. */
  evidence: string;
  /** The agent's failure as it reported it, in one line. */
  reason: string;
}

/** How long a pause whose reset the agent did not name lasts before the plan is tried again. */
export const UNKNOWN_RESET_WAIT_MS = 30 * 60_000;

/**
 * The pause an agent's failure is, or undefined when it is a failure: only the agent's own stop
 * (not a time-out, not a machine that cannot start it, not a verification) is read, so a check
 * whose output mentions a 429 fails its plan as before.
 */
export function usagePauseOf(failure: { error: string; timedOut: boolean; environment?: boolean }, now: Date): UsagePause | undefined {
  if (failure.timedOut || failure.environment) return undefined;
  const limit = rateLimitOf(failure.error, now);
  if (!limit) return undefined;
  return { ...(limit.resetsAt ? { resetsAt: limit.resetsAt } : {}), evidence: limit.evidence, reason: failure.error.split('\n')[0]!.trim() };
}

/** When a paused plan may run again: at the reset the agent named, else UNKNOWN_RESET_WAIT_MS after it paused. */
export function resumeAt(pause: Pick<UsagePause, 'resetsAt'>, pausedAt: Date): Date {
  return pause.resetsAt ?? new Date(pausedAt.getTime() + UNKNOWN_RESET_WAIT_MS);
}

/** The checkpoint's words for a pause, the same on a plan issue and in a terminal. */
export function pausePrompt(pause: Pick<UsagePause, 'resetsAt'>): string {
  return `The agent stopped at the model's rate or usage limit${pause.resetsAt ? `, which resets at ${pause.resetsAt.toISOString()}` : ''}. Answer \`continue\` once it has reset: the agent's session resumes where it stopped.`;
}
