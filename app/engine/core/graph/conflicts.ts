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
 * depends on the other, directly or through others. Reachability is computed only
 * for the plans that appear in some pair, as bit sets of that size.
 */
export function concurrentConflicts(graph: DependencyGraph, order: readonly number[], pairs: Conflict[]): Conflict[] {
  if (pairs.length === 0) return [];
  const involved = new Map<number, number>();
  for (const p of pairs) {
    if (!involved.has(p.a)) involved.set(p.a, involved.size);
    if (!involved.has(p.b)) involved.set(p.b, involved.size);
  }
  const words = Math.ceil(involved.size / 32);
  const n = graph.ids.length;
  // ancestors[i]: which involved plans i depends on, directly or not.
  const ancestors = new Array<Uint32Array | undefined>(n);
  for (const i of order) {
    let set: Uint32Array | undefined;
    for (const d of graph.deps[i]!) {
      const from = ancestors[d];
      const bit = involved.get(d);
      if (!from && bit === undefined) continue;
      set ??= new Uint32Array(words);
      if (from) for (let w = 0; w < words; w++) set[w]! |= from[w]!;
      if (bit !== undefined) set[bit >> 5]! |= 1 << (bit & 31);
    }
    ancestors[i] = set;
  }
  const reaches = (from: number, to: number) => {
    const set = ancestors[to];
    const bit = involved.get(from)!;
    return set !== undefined && (set[bit >> 5]! & (1 << (bit & 31))) !== 0;
  };
  return pairs.filter((p) => !reaches(p.a, p.b) && !reaches(p.b, p.a));
}
