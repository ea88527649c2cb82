import { overlapLists, writeIndex, type WriteIndex } from '../graph/conflicts.js';
import { buildGraph, criticalPath, topologicalOrder, type DependencyGraph } from '../graph/graph.js';
import { priorityBy } from './priority.js';

/**
 * What scheduling needs of a plan. A full `Plan` fits; the benchmark and tests build
 * these directly without writing PLAN.md files.
 */
export interface SchedulePlan {
  id: string;
  phase: string;
  dependsOn: readonly string[];
  filesModified: readonly string[];
}

export interface SchedulePhase {
  id: string;
  plans: readonly string[];
}

/** What scheduling needs of a spec: a `Spec` fits. Phases in order, plans in plan order. */
export interface ScheduleSpec {
  phases: readonly SchedulePhase[];
  plans: readonly SchedulePlan[];
}

/**
 * Everything about a spec that does not change while it runs, by plan index. Built once
 * in O(V + E + conflicts); every read the scheduler does afterwards is an array access.
 */
export interface Layout {
  graph: DependencyGraph;
  /** Plan indices in topological order (plans on a cycle are absent). */
  order: readonly number[];
  /** conflicts[i]: the plans whose files_modified overlap i's. Readers are never listed. */
  conflicts: readonly (readonly number[])[];
  /**
   * priority[i]: higher starts first. Unless given, the conflict-aware rule: the larger of
   * the remaining critical path from i and the work of the plans writing i's files.
   */
  priority: Float64Array;
  /**
   * When set, plans start in this order (plan indices): a search found that keeping a slot
   * or a file free for the next plan in it beats starting whatever is ready (see
   * Scheduler.pick). Absent: the greedy rule by priority.
   */
  sequence?: readonly number[];
  /** remaining[i]: the remaining critical path from i, itself included, under the weights. */
  remaining: Float64Array;
  /** The weights the layout was built with: each plan's expected duration. */
  weight: (i: number) => number;
  /** Who writes what, for the conflict-aware lower bound. */
  writes: WriteIndex;
  /** Critical path length under the weights. */
  criticalPath: number;
  phaseIds: readonly string[];
  /** phaseOf[i]: index into phaseIds of plan i's phase, -1 when the phase is not listed. */
  phaseOf: Int32Array;
  /** phasePlans[p]: the plans of phase p, by index. */
  phasePlans: readonly (readonly number[])[];
}

/**
 * `weight(i)` is plan i's expected duration; one unit per plan unless told. `priority`,
 * when given, replaces the conflict-aware rule (a search's result, or a test's).
 */
export function layout(spec: ScheduleSpec, weight: (i: number) => number = () => 1, priority?: (i: number) => number): Layout {
  const graph = buildGraph(spec.plans);
  const { order } = topologicalOrder(graph);
  const critical = criticalPath(graph, order, weight);

  const writes = writeIndex(spec.plans.map((p) => p.filesModified));
  // Adjacency straight from the index: an object per overlapping pair was most of simulate's time when most plans overlap.
  const conflicts = overlapLists(writes);

  const phaseIds = spec.phases.map((p) => p.id);
  const phaseIndex = new Map(phaseIds.map((id, p) => [id, p]));
  const phaseOf = new Int32Array(spec.plans.length);
  const phasePlans: number[][] = phaseIds.map(() => []);
  spec.plans.forEach((plan, i) => {
    const p = phaseIndex.get(plan.phase) ?? -1;
    phaseOf[i] = p;
    if (p >= 0) phasePlans[p]!.push(i);
  });

  const remaining = critical.remaining;
  const ranked = priority ? Float64Array.from(spec.plans, (_, i) => unknownLast(priority(i))) : priorityBy('conflict-aware', { remaining, weight, conflicts });
  return { graph, order, conflicts, priority: ranked, remaining, weight, writes, criticalPath: critical.length, phaseIds, phaseOf, phasePlans };
}

/** A priority that is not a number ranks below every real one (and sorts consistently). */
function unknownLast(p: number): number {
  return Number.isFinite(p) ? p : -Number.MAX_VALUE;
}
