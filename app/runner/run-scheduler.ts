import { expectedDurations } from '../engine/core/schedule/expected-durations.js';
import { searchPriority } from '../engine/core/schedule/priority-search.js';
import { Scheduler } from '../engine/core/schedule/scheduler.js';
import type { Spec } from '../engine/core/spec/model.js';

/**
 * Placements the search at the start of a run may simulate: a few milliseconds for a spec
 * of hundreds of plans, the plain conflict-aware rule alone for tens of thousands, so the
 * first plans never wait on it longer than a scheduling round.
 */
const RUN_SEARCH_BUDGET = 50_000;

/**
 * The run's scheduler, its priorities informed by what the run already knows: each plan's
 * timeout_minutes, scaled by the time finished plans of this run actually took (their
 * recorded duration_minutes, `measured`). With those estimates a short search picks the
 * priority rule (and tie-breaks), or the start order, that simulates shortest, as
 * `harness simulate` does.
 */
export function runScheduler(spec: Spec, measured: ReadonlyMap<string, number>, slots: number): Scheduler {
  const estimates = expectedDurations(spec.plans, measured);
  const duration = (id: string) => estimates.get(id) ?? 1;
  const plain = new Scheduler(spec, { duration });
  // A spec with a dependency cycle cannot be simulated; validation stops such a run before
  // this, and the plain rule still orders what can run.
  if (plain.layout.order.length < spec.plans.length) return plain;
  const found = searchPriority(spec, { slots, duration, budget: RUN_SEARCH_BUDGET });
  const priority = Float64Array.from(spec.plans, (p) => found.priority.get(p.id)!);
  const sequence = found.sequence?.map((id) => plain.layout.graph.index.get(id)!);
  return new Scheduler(spec, { duration, from: { layout: plain.layout, priority, ...(sequence ? { sequence } : {}) } });
}
