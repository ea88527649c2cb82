import type { Spec } from '../core/spec/model.js';

/** The least a window holds, whatever `slots` is: a first sync of this many plans stays well under GitHub's 500 content writes an hour. */
export const MIN_ISSUE_WINDOW = 100;

/** `issue_window` of .github/harness.yml, or its default: twice the slots, never fewer than MIN_ISSUE_WINDOW. */
export function issueWindowSize(config: { issue_window?: number | undefined; slots: number }): number {
  return config.issue_window ?? Math.max(MIN_ISSUE_WINDOW, 2 * config.slots);
}

/**
 * Which phases' plans have issues now: whole phases, in order, until `size` plans not yet
 * done are among them (the phase that reaches it included). A plan may depend only on plans
 * of its own or an earlier phase, so every plan in the window finds an issue for each of its
 * needs, and a round never sees part of a phase (which would look complete too early). Done
 * (`done(plan)`) is what the sync can tell from the issue list alone: its issue closed with the
 * App's record of why, or the spec marking it `completed:`; a phase of done plans adds
 * nothing to the count, so the window moves on as plans finish. Undefined: the whole spec,
 * which is what a spec of `size` plans or fewer gets.
 */
export function issueWindow(spec: Pick<Spec, 'phases' | 'plans'>, size: number, done: (plan: string) => boolean): Set<string> | undefined {
  if (spec.plans.length <= size) return undefined;
  const phases = new Set<string>();
  let open = 0;
  for (const phase of spec.phases) {
    if (open >= size) break;
    phases.add(phase.id);
    open += phase.plans.filter((p) => !done(p)).length;
  }
  return phases.size === spec.phases.length ? undefined : phases;
}
