/**
 * The dependency graph over plans, by index. Index order is the plans' natural order
 * (phase, then number), which is also the tie-break wherever an order must be chosen.
 */
export interface DependencyGraph {
  ids: readonly string[];
  index: ReadonlyMap<string, number>;
  /** deps[i]: the plans i depends on (known ones, no duplicates). */
  deps: readonly number[][];
  /** dependants[i]: the plans that depend on i. */
  dependants: readonly number[][];
  edgeCount: number;
}

export interface GraphNode {
  id: string;
  dependsOn: readonly string[];
}

/** Unknown dependencies are left out here; validation reports them. */
export function buildGraph(nodes: readonly GraphNode[]): DependencyGraph {
  const ids = nodes.map((n) => n.id);
  const index = new Map<string, number>();
  ids.forEach((id, i) => {
    if (!index.has(id)) index.set(id, i);
  });
  const deps: number[][] = [];
  const dependants: number[][] = [];
  for (let i = 0; i < nodes.length; i++) {
    deps.push([]);
    dependants.push([]);
  }
  // seen[j] === i + 1: node i already depends on j (a stamp per node, not a set per node).
  const edges: EdgeBuild = { index, deps, dependants, seen: new Int32Array(nodes.length), count: 0 };
  for (let i = 0; i < nodes.length; i++) addEdges(edges, i, nodes[i]!.dependsOn);
  return { ids, index, deps, dependants, edgeCount: edges.count };
}

interface EdgeBuild {
  index: Map<string, number>;
  deps: number[][];
  dependants: number[][];
  seen: Int32Array;
  count: number;
}

/** Node i's edges, each known dependency once (a function called once a node: see concurrentWriters). */
function addEdges(e: EdgeBuild, i: number, dependsOn: readonly string[]): void {
  for (let k = 0; k < dependsOn.length; k++) {
    const j = e.index.get(dependsOn[k]!);
    if (j === undefined || e.seen[j] === i + 1) continue;
    e.seen[j] = i + 1;
    e.deps[i]!.push(j);
    e.dependants[j]!.push(i);
    e.count++;
  }
}

/**
 * Kahn's algorithm, lowest index first among the ready. Plans on a cycle (or behind
 * one) are returned as `blocked`.
 */
export function topologicalOrder(graph: DependencyGraph): { order: number[]; blocked: number[] } {
  const n = graph.ids.length;
  const indegree = new Int32Array(n);
  for (let i = 0; i < n; i++) indegree[i] = graph.deps[i]!.length;
  // The ready plans in a binary min-heap of indices, in place in a typed array.
  const heap = new Int32Array(n);
  let size = 0;
  const push = (value: number): void => {
    let i = size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]! <= value) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = value;
  };
  const pop = (): number => {
    const top = heap[0]!;
    const last = heap[--size]!;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= size) break;
      const m = l + 1 < size && heap[l + 1]! < heap[l]! ? l + 1 : l;
      if (last <= heap[m]!) break;
      heap[i] = heap[m]!;
      i = m;
    }
    if (size > 0) heap[i] = last;
    return top;
  };
  for (let i = 0; i < n; i++) if (indegree[i] === 0) push(i);
  const order: number[] = [];
  while (size > 0) {
    const i = pop();
    order.push(i);
    for (const d of graph.dependants[i]!) if (--indegree[d]! === 0) push(d);
  }
  const blocked: number[] = [];
  if (order.length < n) for (let i = 0; i < n; i++) if (indegree[i]! > 0) blocked.push(i);
  return { order, blocked };
}

/**
 * One cycle for every strongly connected component that has one (Tarjan's algorithm,
 * iterative so that deep graphs cannot overflow the stack). Each cycle starts at its
 * lowest index and follows dependency edges: a → b means a depends on b.
 */
export function findCycles(graph: DependencyGraph): number[][] {
  const n = graph.ids.length;
  const indexOf = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const cycles: number[][] = [];
  let counter = 0;
  const work: [number, number][] = [];

  for (let root = 0; root < n; root++) {
    if (indexOf[root] !== -1) continue;
    work.push([root, 0]);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const [v, next] = frame;
      if (next === 0 && indexOf[v] === -1) {
        indexOf[v] = low[v] = counter++;
        stack.push(v);
        onStack[v] = 1;
      }
      const edges = graph.deps[v]!;
      if (next < edges.length) {
        frame[1] = next + 1;
        const w = edges[next]!;
        if (indexOf[w] === -1) work.push([w, 0]);
        else if (onStack[w]) low[v] = Math.min(low[v]!, indexOf[w]!);
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]![0];
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
      if (low[v] === indexOf[v]) {
        const component: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          component.push(w);
        } while (w !== v);
        if (component.length > 1 || graph.deps[v]!.includes(v)) cycles.push(cycleWithin(graph, component));
      }
    }
  }
  return cycles.sort((a, b) => a[0]! - b[0]!);
}

/** A shortest cycle through the lowest node of a strongly connected component. */
function cycleWithin(graph: DependencyGraph, component: number[]): number[] {
  const members = new Set(component);
  const start = Math.min(...component);
  const parent = new Map<number, number>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head]!;
    for (const w of graph.deps[v]!) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [v];
        for (let p = v; p !== start;) {
          p = parent.get(p)!;
          path.push(p);
        }
        return path.reverse();
      }
      if (!parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

export interface CriticalPath {
  /** Plan indices from the first to do to the last. */
  path: number[];
  length: number;
  /** remaining[i]: the longest chain of work from i (itself included) to the end of the spec. */
  remaining: Float64Array;
}

/**
 * The longest weighted chain through the graph. `order` must be a topological order
 * (cyclic plans are simply absent from it and weigh nothing).
 */
export function criticalPath(graph: DependencyGraph, order: readonly number[], weight: (i: number) => number): CriticalPath {
  const n = graph.ids.length;
  const remaining = new Float64Array(n);
  const next = new Int32Array(n).fill(-1);
  for (let k = order.length - 1; k >= 0; k--) {
    const i = order[k]!;
    let best = 0;
    for (const d of graph.dependants[i]!) {
      if (remaining[d]! > best || (remaining[d] === best && next[i] !== -1 && d < next[i]!)) {
        best = remaining[d]!;
        next[i] = d;
      }
    }
    remaining[i] = weight(i) + best;
  }
  let start = -1;
  for (const i of order) if (start === -1 || remaining[i]! > remaining[start]!) start = i;
  const path: number[] = [];
  for (let i = start; i !== -1; i = next[i]!) path.push(i);
  return { path, length: start === -1 ? 0 : remaining[start]!, remaining };
}
