import type { Spec } from '../spec/model.js';

/**
 * Plans a spec says were done before harness (`completed:`, as `harness import` writes for the
 * plans a GSD SUMMARY.md reports done), and the phases all of whose plans were. The scheduler
 * takes them as verified, so what depends on them can start; harness never ran or checked
 * them, so every count and every word a person reads keeps them apart from what it verified.
 */
export interface DoneBeforeImport {
  plans: ReadonlySet<string>;
  phases: ReadonlySet<string>;
}

export function doneBeforeImport(spec: Spec): DoneBeforeImport {
  const plans = new Set(spec.plans.filter((p) => p.completed !== undefined).map((p) => p.id));
  const phases = new Set(spec.phases.filter((ph) => ph.plans.length > 0 && ph.plans.every((id) => plans.has(id))).map((ph) => ph.id));
  return { plans, phases };
}

/** How people read it, in status, STATUS.md and a run's summary. */
export const DONE_BEFORE_IMPORT = 'done before import';
