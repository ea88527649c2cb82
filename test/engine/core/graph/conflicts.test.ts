import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  concurrentConflicts,
  concurrentWriters,
  overlapLists,
  overlappingPairs,
  overlappingWriters,
  writeIndex,
  type Conflict,
} from '../../../../app/engine/core/graph/conflicts.js';
import { buildGraph, topologicalOrder } from '../../../../app/engine/core/graph/graph.js';

const FILES = ['src/a.ts', 'src/b.ts', 'src/**', 'src/a/*.ts', 'lib/x.ts', 'docs/**'];

/** Random DAGs (edges only to earlier plans, listed in a shuffled order) with random writes. */
const dagArb = fc.integer({ min: 1, max: 40 }).chain((n) =>
  fc.record({
    deps: fc.array(fc.uniqueArray(fc.nat(), { maxLength: 4 }), { minLength: n, maxLength: n }),
    files: fc.array(fc.subarray(FILES, { maxLength: 2 }), { minLength: n, maxLength: n }),
    shuffle: fc.array(fc.nat(), { minLength: n, maxLength: n }),
  }),
);

/** The definition, by brute force: does `from` reach `to` following dependants? */
function dependsOn(deps: number[][], later: number, earlier: number): boolean {
  const seen = new Set<number>();
  const stack = [later];
  while (stack.length > 0) {
    for (const d of deps[stack.pop()!]!) {
      if (d === earlier) return true;
      if (!seen.has(d)) {
        seen.add(d);
        stack.push(d);
      }
    }
  }
  return false;
}

describe('concurrentConflicts', () => {
  it('keeps exactly the overlapping pairs where neither plan depends on the other, directly or not', () => {
    fc.assert(
      fc.property(dagArb, ({ deps, files, shuffle }) => {
        const n = deps.length;
        // Plan k may depend only on plans created before it; ids are listed in a shuffled order so
        // that topological position and index differ.
        const rank = shuffle
          .map((s, k) => [s, k] as const)
          .sort((x, y) => x[0] - y[0] || x[1] - y[1])
          .map(([, k]) => k);
        const plans = rank.map((k) => ({ id: `p${k}`, dependsOn: k === 0 ? [] : deps[k]!.map((d) => `p${d % k}`), filesModified: files[k]! }));
        const graph = buildGraph(plans);
        const { order } = topologicalOrder(graph);
        expect(order).toHaveLength(n);
        const pairs = overlappingWriters(plans.map((p) => p.filesModified));
        const got = concurrentConflicts(graph, order, pairs);
        const expected = pairs.filter((p: Conflict) => !dependsOn(graph.deps as number[][], p.a, p.b) && !dependsOn(graph.deps as number[][], p.b, p.a));
        expect(got).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the pairs of plans on a dependency cycle: nothing orders them', () => {
    const plans = [
      { id: 'a', dependsOn: ['b'], filesModified: ['src/x.ts'] },
      { id: 'b', dependsOn: ['a'], filesModified: ['src/x.ts'] },
      { id: 'c', dependsOn: [], filesModified: ['src/x.ts'] },
    ];
    const graph = buildGraph(plans);
    const { order } = topologicalOrder(graph);
    const got = concurrentConflicts(graph, order, overlappingWriters(plans.map((p) => p.filesModified)));
    expect(got.map((c) => [c.a, c.b])).toEqual([
      [0, 1],
      [0, 2],
      [1, 2],
    ]);
  });

  it('drops a pair joined through a long chain, whatever the plans between write', () => {
    const n = 200;
    const plans = Array.from({ length: n }, (_, k) => ({
      id: `p${k}`,
      dependsOn: k > 0 ? [`p${k - 1}`] : [],
      filesModified: k === 0 || k === n - 1 ? ['src/x.ts'] : [`src/m${k}.ts`],
    }));
    const graph = buildGraph(plans);
    const { order } = topologicalOrder(graph);
    const pairs = overlappingWriters(plans.map((p) => p.filesModified));
    expect(pairs.map((c) => [c.a, c.b])).toEqual([[0, n - 1]]);
    expect(concurrentConflicts(graph, order, pairs)).toEqual([]);
  });
});

describe('concurrentWriters and overlapLists (one pass, no object per overlapping pair)', () => {
  const MORE = [...FILES, 'docs/*.md', 'src/{a,b}.ts', 'src/*', '**/*.ts'];
  const arb = fc.integer({ min: 1, max: 40 }).chain((n) =>
    fc.record({
      deps: fc.array(fc.uniqueArray(fc.nat(), { maxLength: 4 }), { minLength: n, maxLength: n }),
      files: fc.array(fc.subarray(MORE, { maxLength: 3 }), { minLength: n, maxLength: n }),
      cycle: fc.boolean(),
    }),
  );

  it('find the same conflicts, globs and order as overlappingWriters then concurrentConflicts, cycles included', () => {
    fc.assert(
      fc.property(arb, ({ deps, files, cycle }) => {
        const n = deps.length;
        const plans = deps.map((ds, k) => ({
          id: `p${k}`,
          dependsOn: k === 0 ? (cycle && n > 1 ? [`p${n - 1}`] : []) : ds.map((d) => `p${d % k}`),
          filesModified: files[k]!,
        }));
        const graph = buildGraph(plans);
        const { order } = topologicalOrder(graph);
        const index = writeIndex(plans.map((p) => p.filesModified));
        const pairs = overlappingPairs(index);
        expect(concurrentWriters(graph, order, index)).toEqual(concurrentConflicts(graph, order, pairs));
        const lists: number[][] = plans.map(() => []);
        for (const c of pairs) {
          lists[c.a]!.push(c.b);
          lists[c.b]!.push(c.a);
        }
        expect(overlapLists(index)).toEqual(lists.map((l) => l.sort((x, y) => x - y)));
      }),
      { numRuns: 300 },
    );
  });
});

describe('concurrentWriters on larger graphs (reachability labels, searches per pair and shared walks)', () => {
  // Up to 160 plans, each writing a few of a few files: some plans have one or two partners
  // (a search per pair), others dozens (one walk for all), in shuffled index order, with and
  // without a cycle among some of them.
  const arb = fc.integer({ min: 2, max: 160 }).chain((n) =>
    fc.record({
      deps: fc.array(fc.uniqueArray(fc.nat(), { maxLength: 4 }), { minLength: n, maxLength: n }),
      files: fc.array(fc.subarray(['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/**', 'docs/*.md', 'lib/x.ts'], { maxLength: 2 }), { minLength: n, maxLength: n }),
      unique: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
      shuffle: fc.array(fc.nat(), { minLength: n, maxLength: n }),
      cycle: fc.boolean(),
    }),
  );

  it('keep exactly the overlapping pairs neither of which depends on the other', () => {
    fc.assert(
      fc.property(arb, ({ deps, files, unique, shuffle, cycle }) => {
        const n = deps.length;
        const rank = shuffle
          .map((s, k) => [s, k] as const)
          .sort((x, y) => x[0] - y[0] || x[1] - y[1])
          .map(([, k]) => k);
        const plans = rank.map((k) => ({
          id: `p${k}`,
          dependsOn: k === 0 ? (cycle ? [`p${n - 1}`] : []) : deps[k]!.map((d) => `p${k - 1 - (d % Math.min(k, 12))}`),
          // Most plans write a file of their own, so that partners are a few or many.
          filesModified: unique[k] ? [`src/own${k}.ts`] : files[k]!,
        }));
        const graph = buildGraph(plans);
        const { order } = topologicalOrder(graph);
        const index = writeIndex(plans.map((p) => p.filesModified));
        const pairs = overlappingPairs(index);
        const d = graph.deps as number[][];
        // Plans on a cycle, or behind one, have no place in the order: nothing orders their pairs.
        const placed = new Set(order);
        const expected = pairs.filter((p) => !placed.has(p.a) || !placed.has(p.b) || (!dependsOn(d, p.a, p.b) && !dependsOn(d, p.b, p.a)));
        expect(concurrentWriters(graph, order, index)).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });
});
