import type { Layout, ScheduleSpec } from './layout.js';
import { searchOrder } from './order-search.js';
import { PRIORITY_RULES, priorityBy, type PriorityRule } from './priority.js';
import { runSchedule } from './run-schedule.js';
import { Scheduler } from './scheduler.js';

export interface PrioritySearchOptions {
  slots: number;
  /** Expected minutes of a plan. */
  duration: (planId: string) => number;
  /**
   * How much simulating the search may do, in plans placed (one schedule of n plans
   * costs n). The default keeps a search of a few hundred plans to a few milliseconds
   * and a spec of 50,000 to the plain rule, so that it never holds up a run.
   */
  budget?: number;
  /**
   * The spec laid out already with these durations (a Scheduler's layout), to search with
   * rather than lay it out again: seconds, when most plans overlap.
   */
  layout?: Layout;
}

export interface PrioritySearch {
  /** Priority per plan id, higher first: give it to the Scheduler as `priority`. */
  priority: ReadonlyMap<string, number>;
  makespan: number;
  /**
   * When a start order beat every priority: the plans in it, to give the Scheduler as
   * `sequence` (with `priority`, which still ranks plans the order does not hold back).
   */
  sequence?: readonly string[];
  /** What produced the best schedule. */
  found: PriorityRule | 'randomised tie-breaks' | 'forward-backward pass' | 'start order search';
  /** Schedules simulated. */
  tried: number;
}

export const DEFAULT_SEARCH_BUDGET = 100_000;
/** Beyond a few hundred schedules the benchmark's small specs stop improving. */
const MAX_RUNS = 400;
/**
 * The start-order search builds serial schedules in O(n²) and dispatches in O(n) a pick:
 * beyond this many plans it would cost more than a scheduling round, and large specs have
 * enough ready work that a free slot rarely pays.
 */
export const ORDER_SEARCH_MAX_PLANS = 150;
/** Conflict-list entries that cost as much to schedule as one plan. */
const CONFLICTS_PER_PLAN_COST = 8;

/**
 * With durations known, a better schedule than any one rule gives is a few simulations
 * away: try each priority rule, then forward–backward passes (schedule the spec reversed
 * with the best schedule's end times as priorities, then forwards with the reversed
 * schedule's, which closes gaps a greedy rule leaves), then random perturbations of the
 * best priorities. Every candidate is run by the real Scheduler, so the winner is a
 * priority vector the runner, the App and `harness simulate` all apply as they are: one
 * policy, better informed. Deterministic: the same spec and durations give the same result.
 */
export function searchPriority(spec: ScheduleSpec, options: PrioritySearchOptions): PrioritySearch {
  const { slots, duration } = options;
  const n = spec.plans.length;
  const ids = spec.plans.map((p) => p.id);
  // By index, asked once per plan: the rules weigh a plan's minutes for every conflict it has.
  const byIndex = Float64Array.from(ids, (id) => duration(id));
  const minutes = (i: number) => byIndex[i]!;
  const base = options.layout
    ? new Scheduler(spec, { from: { layout: options.layout, priority: options.layout.priority } })
    : new Scheduler(spec, { duration });
  // A schedule costs its plans, or its conflicts where they are many more: every pick and
  // every status change walks a plan's conflicts, and when most plans overlap (thousands
  // each) a budget counted in plans alone ran a search of a minute.
  let degree = 0;
  for (const list of base.layout.conflicts) degree += list.length;
  const cost = Math.max(n, degree / CONFLICTS_PER_PLAN_COST);
  let runs = n === 0 ? 1 : Math.max(1, Math.min(MAX_RUNS, Math.floor((options.budget ?? DEFAULT_SEARCH_BUDGET) / cost)));

  const input = { remaining: base.layout.remaining, weight: minutes, conflicts: base.layout.conflicts };
  let best: { priority: Float64Array; makespan: number; starts: Float64Array; ends: Float64Array; found: PrioritySearch['found'] } | undefined;
  let tried = 0;
  const attempt = (priority: Float64Array, found: PrioritySearch['found']): boolean => {
    if (runs <= 0) return false;
    runs--;
    tried++;
    const scheduler = new Scheduler(spec, { from: { layout: base.layout, priority } });
    const run = runSchedule(scheduler, slots, minutes);
    if (best && run.makespan >= best.makespan) return false;
    const starts = new Float64Array(n);
    const ends = new Float64Array(n);
    for (const e of run.schedule) {
      const i = base.layout.graph.index.get(e.plan)!;
      starts[i] = e.start;
      ends[i] = e.end;
    }
    best = { priority, makespan: run.makespan, starts, ends, found };
    return true;
  };

  for (const rule of PRIORITY_RULES) attempt(priorityBy(rule, input), rule);
  const reversed = reverse(spec);
  const backLayout = runs > 1 ? new Scheduler(reversed, { duration }).layout : base.layout;
  for (let pass = 0; pass < 4 && runs > 1; pass++) {
    // Backwards: the plan that ended last goes first; then forwards: the plan that ends last
    // in the reversed schedule started first in real time.
    const b = best!;
    const back = new Scheduler(reversed, { from: { layout: backLayout, priority: b.ends } });
    runs--;
    tried++;
    const backRun = runSchedule(back, slots, minutes);
    const forward = new Float64Array(n);
    for (const e of backRun.schedule) forward[base.layout.graph.index.get(e.plan)!] = e.end;
    if (!attempt(forward, 'forward-backward pass')) break;
  }
  const random = lcg(0x5eed ^ n);
  while (runs > 0) {
    const from = best!.priority;
    // Perturbed within 15% of the spread: ties break differently, near-equal plans swap.
    const spread = Math.max(1, ...from.map(Math.abs));
    attempt(
      Float64Array.from(from, (p) => p + (random() - 0.5) * 0.3 * spread * random()),
      'randomised tie-breaks',
    );
  }
  const winner = best!;
  const priority = new Map(ids.map((id, i) => [id, winner.priority[i]!]));
  const result: PrioritySearch = { priority, makespan: winner.makespan, found: winner.found, tried };

  // The greedy dispatcher never leaves a slot free while a plan is ready; some specs end
  // sooner when one is kept for a plan about to be ready. Half the budget again goes to
  // searching start orders; an order is kept only if the real Scheduler, dispatching in it,
  // beats the best priority.
  // A serial schedule costs about n²/4 placements' worth (each plan against those placed).
  const orderRuns = Math.min(MAX_RUNS, Math.floor((options.budget ?? DEFAULT_SEARCH_BUDGET) / 2 / Math.max(1, (n * n) / 4)));
  if (n < 2 || n > ORDER_SEARCH_MAX_PLANS || orderRuns < 1 || base.layout.order.length < n) return result;
  const order = searchOrder({ layout: base.layout, slots, minutes, starts: winner.starts, runs: orderRuns, random });
  result.tried += order.tried;
  if (order.makespan >= winner.makespan) return result;
  const dispatched = runSchedule(new Scheduler(spec, { from: { layout: base.layout, priority: winner.priority, sequence: order.sequence } }), slots, minutes);
  if (dispatched.makespan >= winner.makespan) return result;
  return { ...result, sequence: order.sequence.map((i) => ids[i]!), makespan: dispatched.makespan, found: 'start order search' };
}

/** The spec with every dependency turned around: what ends last is scheduled first. */
function reverse(spec: ScheduleSpec): ScheduleSpec {
  const dependants = new Map<string, string[]>(spec.plans.map((p) => [p.id, []]));
  for (const p of spec.plans) for (const d of p.dependsOn) dependants.get(d)?.push(p.id);
  return { phases: spec.phases, plans: spec.plans.map((p) => ({ ...p, dependsOn: dependants.get(p.id)! })) };
}

/** A small seeded generator: the engine keeps no randomness of its own. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
