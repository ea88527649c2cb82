import { globsOverlap, literalPrefix, normalizeGlob } from './glob.js';
import type { DependencyGraph } from './graph.js';

export interface Conflict {
  /** Plan indices, a < b. */
  a: number;
  b: number;
  /** One overlapping pair of globs: a's, then b's. */
  globs: [string, string];
}

interface Entry {
  plan: number;
  glob: string;
  prefix: string;
}

/**
 * Pairs of plans whose `files_modified` overlap (by glob intersection). Candidates come
 * from a sorted index of literal prefixes, so unrelated paths are never compared:
 * `src/auth/a.ts` is only tested against globs whose literal start is a prefix of it,
 * or that start with it.
 */
export function overlappingWriters(filesModified: readonly (readonly string[])[]): Conflict[] {
  const entries: Entry[] = [];
  filesModified.forEach((globs, plan) => {
    // The prefix is taken as globsOverlap reads the glob (no leading "./", no "//").
    for (const glob of globs) entries.push({ plan, glob, prefix: literalPrefix(normalizeGlob(glob)) });
  });
  entries.sort((x, y) => (x.prefix < y.prefix ? -1 : x.prefix > y.prefix ? 1 : x.plan - y.plan));

  const found = new Map<string, Conflict>();
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    // Every later entry whose prefix starts with e's prefix sits in a contiguous run.
    for (let j = i + 1; j < entries.length; j++) {
      const f = entries[j]!;
      if (!f.prefix.startsWith(e.prefix)) break;
      if (f.plan === e.plan) continue;
      const [a, b] = e.plan < f.plan ? [e, f] : [f, e];
      const key = `${a.plan}:${b.plan}`;
      if (found.has(key)) continue;
      if (globsOverlap(e.glob, f.glob)) found.set(key, { a: a.plan, b: b.plan, globs: [a.glob, b.glob] });
    }
  }
  return [...found.values()].sort((x, y) => x.a - y.a || x.b - y.b);
}

/**
 * Of the overlapping pairs, those the graph lets run at the same time: neither plan
 * depends on the other, directly or through others.
 *
 * Only the later plan in topological order can depend on the earlier one, and a path
 * between them runs through plans whose position lies between theirs. So for each plan
 * one walk up its dependencies, stopping below the position of its earliest partner,
 * answers all its pairs at once. That costs the ancestors between each plan and its
 * partners rather than a bit set of every involved plan per plan (quadratic memory, and
 * seconds at 50,000 plans or when many globs overlap). Plans on a cycle have no position:
 * nothing is known to order them, so their pairs are kept.
 */
export function concurrentConflicts(graph: DependencyGraph, order: readonly number[], pairs: Conflict[]): Conflict[] {
  if (pairs.length === 0) return [];
  const n = graph.ids.length;
  const pos = new Int32Array(n).fill(-1);
  order.forEach((i, k) => (pos[i] = k));
  // For each later plan, the lowest position among its partners: how far up its walk goes.
  const reach = new Int32Array(n).fill(-1);
  for (const p of pairs) {
    const [early, late] = pos[p.a]! < pos[p.b]! ? [p.a, p.b] : [p.b, p.a];
    if (pos[early]! < 0) continue;
    if (reach[late]! < 0 || pos[early]! < reach[late]!) reach[late] = pos[early]!;
  }
  const walked = new Int32Array(n).fill(-1);
  const stack: number[] = [];
  const ancestorsOf = (late: number) => {
    // walked[x] === late: x is an ancestor of late at or after its reach.
    const floor = reach[late]!;
    stack.push(late);
    while (stack.length > 0) {
      for (const d of graph.deps[stack.pop()!]!) {
        if (walked[d] === late || pos[d]! < floor) continue;
        walked[d] = late;
        stack.push(d);
      }
    }
  };
  // Pairs grouped by their later plan, so that each walk serves all of its pairs before
  // the next walk reuses the marks.
  const byLate = new Map<number, number[]>();
  const keep = new Uint8Array(pairs.length).fill(1);
  pairs.forEach((p, k) => {
    const late = pos[p.a]! < pos[p.b]! ? p.b : p.a;
    if (pos[p.a]! < 0 || pos[p.b]! < 0) return;
    let list = byLate.get(late);
    if (!list) byLate.set(late, (list = []));
    list.push(k);
  });
  for (const [late, ks] of byLate) {
    ancestorsOf(late);
    for (const k of ks) {
      const p = pairs[k]!;
      if (walked[p.a === late ? p.b : p.a] === late) keep[k] = 0;
    }
  }
  return pairs.filter((_, k) => keep[k] === 1);
}
