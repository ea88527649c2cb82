import type { Plan, Spec } from '../spec/model.js';
import { concurrentWriters, writeIndex, type Conflict } from '../graph/conflicts.js';
import { buildGraph, criticalPath, topologicalOrder, type CriticalPath, type DependencyGraph } from '../graph/graph.js';

export interface GraphAnalysis {
  graph: DependencyGraph;
  /** Plan indices (into spec.plans) in topological order. */
  order: number[];
  critical: CriticalPath;
  /** Write-write conflicts between plans the graph lets run at once. */
  conflicts: Conflict[];
}

/** Everything `harness graph` shows, computed once. `weight` defaults to one unit per plan. */
export function analyzeGraph(spec: Spec, weight: (plan: Plan) => number = () => 1): GraphAnalysis {
  const graph = buildGraph(spec.plans);
  const { order } = topologicalOrder(graph);
  const critical = criticalPath(graph, order, (i) => weight(spec.plans[i]!));
  const conflicts = concurrentWriters(graph, order, writeIndex(spec.plans.map((p) => p.filesModified)));
  return { graph, order, critical, conflicts };
}
