import { overlappingWriters } from '../graph/conflicts.js';
import { buildGraph, criticalPath, topologicalOrder, type DependencyGraph } from '../graph/graph.js';

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
  /** priority[i]: the remaining critical path from i, itself included, under the weights. */
  priority: Float64Array;
  /** Critical path length under the weights. */
  criticalPath: number;
  phaseIds: readonly string[];
  /** phaseOf[i]: index into phaseIds of plan i's phase, -1 when the phase is not listed. */
  phaseOf: Int32Array;
  /** phasePlans[p]: the plans of phase p, by index. */
  phasePlans: readonly (readonly number[])[];
}

/** `weight(i)` is plan i's expected duration; one unit per plan unless told. */
export function layout(spec: ScheduleSpec, weight: (i: number) => number = () => 1): Layout {
  const graph = buildGraph(spec.plans);
  const { order } = topologicalOrder(graph);
  const critical = criticalPath(graph, order, weight);

  const conflicts: number[][] = spec.plans.map(() => []);
  for (const c of overlappingWriters(spec.plans.map((p) => p.filesModified))) {
    conflicts[c.a]!.push(c.b);
    conflicts[c.b]!.push(c.a);
  }

  const phaseIds = spec.phases.map((p) => p.id);
  const phaseIndex = new Map(phaseIds.map((id, p) => [id, p]));
  const phaseOf = new Int32Array(spec.plans.length);
  const phasePlans: number[][] = phaseIds.map(() => []);
  spec.plans.forEach((plan, i) => {
    const p = phaseIndex.get(plan.phase) ?? -1;
    phaseOf[i] = p;
    if (p >= 0) phasePlans[p]!.push(i);
  });

  return { graph, order, conflicts, priority: critical.remaining, criticalPath: critical.length, phaseIds, phaseOf, phasePlans };
}
