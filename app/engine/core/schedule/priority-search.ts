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
  const search = startSearch(spec, options);
  tryRules(search);
  forwardBackwardPasses(search);
  const random = lcg(0x5eed ^ search.n);
  perturbBest(search, random);
  const winner = search.best!;
  const priority = new Map(search.ids.map((id, i) => [id, winner.priority[i]!]));
  const result: PrioritySearch = { priority, makespan: winner.makespan, found: winner.found, tried: search.tried };
  return withStartOrder(search, winner, result, random);
}

/** A schedule simulated: its priorities, how long it took, when each plan (by index) started and ended, what produced it. */
interface Candidate {
  priority: Float64Array;
  makespan: number;
  starts: Float64Array;
  ends: Float64Array;
  found: PrioritySearch['found'];
}

/** The search under way: what it schedules, with what, the simulations it has left and has run, the best schedule so far. */
interface Search {
  spec: ScheduleSpec;
  ids: string[];
  n: number;
  slots: number;
  duration: (planId: string) => number;
  /** A plan's minutes by index. */
  minutes: (i: number) => number;
  layout: Layout;
  budget: number;
  runs: number;
  tried: number;
  best?: Candidate;
}

/** The spec laid out once, and as many simulations as the budget buys. */
function startSearch(spec: ScheduleSpec, options: PrioritySearchOptions): Search {
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
  const budget = options.budget ?? DEFAULT_SEARCH_BUDGET;
  const runs = n === 0 ? 1 : Math.max(1, Math.min(MAX_RUNS, Math.floor(budget / cost)));
  return { spec, ids, n, slots, duration, minutes, layout: base.layout, budget, runs, tried: 0 };
}

/** Simulates a schedule with these priorities, while the budget lasts; true when it beat the best so far (and is now the best). */
function attempt(search: Search, priority: Float64Array, found: PrioritySearch['found']): boolean {
  if (search.runs <= 0) return false;
  search.runs--;
  search.tried++;
  const scheduler = new Scheduler(search.spec, { from: { layout: search.layout, priority } });
  const run = runSchedule(scheduler, search.slots, search.minutes);
  if (search.best && run.makespan >= search.best.makespan) return false;
  const starts = new Float64Array(search.n);
  const ends = new Float64Array(search.n);
  for (const e of run.schedule) {
    const i = search.layout.graph.index.get(e.plan)!;
    starts[i] = e.start;
    ends[i] = e.end;
  }
  search.best = { priority, makespan: run.makespan, starts, ends, found };
  return true;
}

/** Each priority rule, as it ranks the plans. */
function tryRules(search: Search): void {
  const input = { remaining: search.layout.remaining, weight: search.minutes, conflicts: search.layout.conflicts };
  for (const rule of PRIORITY_RULES) attempt(search, priorityBy(rule, input), rule);
}

/** Up to four forward–backward passes from the best schedule, while each improves on it. */
function forwardBackwardPasses(search: Search): void {
  const { n, slots, minutes } = search;
  const reversed = reverse(search.spec);
  const backLayout = search.runs > 1 ? new Scheduler(reversed, { duration: search.duration }).layout : search.layout;
  for (let pass = 0; pass < 4 && search.runs > 1; pass++) {
    // Backwards: the plan that ended last goes first; then forwards: the plan that ends last
    // in the reversed schedule started first in real time.
    const b = search.best!;
    const back = new Scheduler(reversed, { from: { layout: backLayout, priority: b.ends } });
    search.runs--;
    search.tried++;
    const backRun = runSchedule(back, slots, minutes);
    const forward = new Float64Array(n);
    for (const e of backRun.schedule) forward[search.layout.graph.index.get(e.plan)!] = e.end;
    if (!attempt(search, forward, 'forward-backward pass')) break;
  }
}

/** The rest of the budget on random perturbations of the best priorities. */
function perturbBest(search: Search, random: () => number): void {
  while (search.runs > 0) {
    const from = search.best!.priority;
    // Perturbed within 15% of the spread: ties break differently, near-equal plans swap.
    const spread = Math.max(1, ...from.map(Math.abs));
    attempt(
      search,
      Float64Array.from(from, (p) => p + (random() - 0.5) * 0.3 * spread * random()),
      'randomised tie-breaks',
    );
  }
}

/**
 * The greedy dispatcher never leaves a slot free while a plan is ready; some specs end
 * sooner when one is kept for a plan about to be ready. Half the budget again goes to
 * searching start orders; an order is kept only if the real Scheduler, dispatching in it,
 * beats the best priority.
 */
function withStartOrder(search: Search, winner: Candidate, result: PrioritySearch, random: () => number): PrioritySearch {
  const { n, ids, slots, minutes, layout } = search;
  // A serial schedule costs about n²/4 placements' worth (each plan against those placed).
  const orderRuns = Math.min(MAX_RUNS, Math.floor(search.budget / 2 / Math.max(1, (n * n) / 4)));
  if (n < 2 || n > ORDER_SEARCH_MAX_PLANS || orderRuns < 1 || layout.order.length < n) return result;
  const order = searchOrder({ layout, slots, minutes, starts: winner.starts, runs: orderRuns, random });
  result.tried += order.tried;
  if (order.makespan >= winner.makespan) return result;
  const dispatched = runSchedule(new Scheduler(search.spec, { from: { layout, priority: winner.priority, sequence: order.sequence } }), slots, minutes);
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
