import { globsOverlap, literalPrefix, normalizeGlob } from './glob.js';
import type { DependencyGraph } from './graph.js';

export interface Conflict {
  /** Plan indices, a < b. */
  a: number;
  b: number;
  /** One overlapping pair of globs: a's, then b's. */
  globs: [string, string];
}

/** Who writes what, by distinct glob text: what conflicts and bounds are read from. */
export interface WriteIndex {
  /** Distinct files_modified entries, as written. */
  globs: string[];
  /** listedBy[g]: the plans that list glob g, in plan order, once each. */
  listedBy: number[][];
  /** planGlobs[i]: plan i's globs, by index into globs, in the order it lists them. */
  planGlobs: number[][];
  /** overlaps[g]: the globs that overlap g (g itself included when it names a file). */
  overlaps: number[][];
}

export function writeIndex(filesModified: readonly (readonly string[])[]): WriteIndex {
  // Distinct globs, the plans that list each (in plan order, once), and each plan's globs by id.
  const globId = new Map<string, number>();
  const globs: string[] = [];
  const listedBy: number[][] = [];
  const planGlobs: number[][] = filesModified.map((list, plan) => {
    const ids: number[] = [];
    for (const glob of list) {
      let g = globId.get(glob);
      if (g === undefined) {
        g = globs.length;
        globId.set(glob, g);
        globs.push(glob);
        listedBy.push([]);
      }
      if (ids.includes(g)) continue;
      ids.push(g);
      listedBy[g]!.push(plan);
    }
    return ids;
  });

  // overlaps[g]: the distinct globs that overlap g (g itself included when it names a file).
  const overlaps: number[][] = globs.map(() => []);
  // The prefix is taken as globsOverlap reads the glob (no leading "./", no "//").
  const byPrefix = globs.map((glob, g) => ({ g, prefix: literalPrefix(normalizeGlob(glob)) }));
  byPrefix.sort((x, y) => (x.prefix < y.prefix ? -1 : x.prefix > y.prefix ? 1 : x.g - y.g));
  for (let i = 0; i < byPrefix.length; i++) {
    const e = byPrefix[i]!;
    if (globsOverlap(globs[e.g]!, globs[e.g]!)) overlaps[e.g]!.push(e.g);
    // Every later glob whose prefix starts with e's prefix sits in a contiguous run.
    for (let j = i + 1; j < byPrefix.length; j++) {
      const f = byPrefix[j]!;
      if (!f.prefix.startsWith(e.prefix)) break;
      if (globsOverlap(globs[e.g]!, globs[f.g]!)) {
        overlaps[e.g]!.push(f.g);
        overlaps[f.g]!.push(e.g);
      }
    }
  }
  return { globs, listedBy, planGlobs, overlaps };
}

/**
 * Pairs of plans whose `files_modified` overlap (by glob intersection), each with the
 * first of a's globs that overlaps one of b's and the first of b's that overlaps it.
 *
 * Globs are compared once per distinct text, not once per pair of plans that list them:
 * specs repeat a few globs (`src/auth/**`, `docs/*.md`) across many plans, and comparing
 * every pair of occurrences was quadratic in occurrences (tens of seconds at 3,000 plans
 * that share globs). Candidates come from a sorted index of literal prefixes, so unrelated
 * paths are never compared: `src/auth/a.ts` is only tested against globs whose literal
 * start is a prefix of it, or that start with it. The pairs are then read off per plan,
 * in O(pairs + the occurrences of each overlapping glob).
 */
export function overlappingWriters(filesModified: readonly (readonly string[])[]): Conflict[] {
  return overlappingPairs(writeIndex(filesModified));
}

/** overlappingWriters, from an index already built. */
export function overlappingPairs(index: WriteIndex): Conflict[] {
  const { globs, listedBy, planGlobs, overlaps } = index;
  const overlapping = overlaps.map((list) => new Set(list));

  const out: Conflict[] = [];
  // met[b] === a + 1: the pair (a, b) is already out.
  const met = new Int32Array(planGlobs.length);
  for (let a = 0; a < planGlobs.length; a++) {
    const found: Conflict[] = [];
    for (const ga of planGlobs[a]!) {
      for (const gb of overlaps[ga]!) {
        for (const b of listedBy[gb]!) {
          if (b <= a || met[b] === a + 1) continue;
          met[b] = a + 1;
          // The first of b's globs, as b lists them, that overlaps a's.
          const first = planGlobs[b]!.find((g) => overlapping[ga]!.has(g))!;
          found.push({ a, b, globs: [globs[ga]!, globs[first]!] });
        }
      }
    }
    found.sort((x, y) => x.b - y.b);
    for (const c of found) out.push(c);
  }
  return out;
}

/**
 * Of the overlapping pairs, those the graph lets run at the same time: neither plan
 * depends on the other, directly or through others.
 *
 * Only the later plan in topological order can depend on the earlier one, and a path
 * between them runs only through plans whose positions lie between theirs. So each pair
 * is one walk up the later plan's dependencies that never goes below the earlier plan's
 * position, trying the furthest-reaching dependency first and stopping as soon as it
 * arrives. A plan with many partners (globs that overlap widely) instead marks all its
 * ancestors above its earliest partner in one walk and answers each pair by a lookup, so
 * the work is bounded by plans × range whatever the number of pairs. Memory stays linear (a bit set of every involved plan per plan was quadratic:
 * most of `graph`'s memory at 50,000 plans, gigabytes when many globs overlap). Plans on
 * a cycle have no position: nothing is known to order them, so their pairs are kept.
 */
/** Partners from which one walk over a plan's ancestors beats a walk per pair. */
const GROUP_WALK = 8;

export function concurrentConflicts(graph: DependencyGraph, order: readonly number[], pairs: Conflict[]): Conflict[] {
  if (pairs.length === 0) return [];
  const n = graph.ids.length;
  const pos = new Int32Array(n).fill(-1);
  order.forEach((i, k) => (pos[i] = k));
  // Dependencies by position, highest first: popped from the stack lowest (furthest) first.
  const deps = graph.deps.map((ds) => [...ds].sort((x, y) => pos[y]! - pos[x]!));
  const seen = new Int32Array(n);
  const stack: number[] = [];
  let walk = 0;
  const dependsOn = (late: number, early: number): boolean => {
    walk++;
    const floor = pos[early]!;
    stack.length = 0;
    stack.push(late);
    while (stack.length > 0) {
      for (const d of deps[stack.pop()!]!) {
        if (d === early) return true;
        if (pos[d]! <= floor || seen[d] === walk) continue;
        seen[d] = walk;
        stack.push(d);
      }
    }
    return false;
  };
  // Pairs by their later plan; the ones with few partners are walked pair by pair.
  const byLate = new Map<number, number[]>();
  const keep = new Uint8Array(pairs.length).fill(1);
  pairs.forEach((p, k) => {
    if (pos[p.a]! < 0 || pos[p.b]! < 0) return;
    const late = pos[p.a]! < pos[p.b]! ? p.b : p.a;
    let list = byLate.get(late);
    if (!list) byLate.set(late, (list = []));
    list.push(k);
  });
  for (const [late, ks] of byLate) {
    const earlyOf = (k: number) => (pairs[k]!.a === late ? pairs[k]!.b : pairs[k]!.a);
    if (ks.length < GROUP_WALK) {
      for (const k of ks) if (dependsOn(late, earlyOf(k))) keep[k] = 0;
      continue;
    }
    walk++;
    let floor = Infinity;
    for (const k of ks) floor = Math.min(floor, pos[earlyOf(k)]!);
    stack.length = 0;
    stack.push(late);
    while (stack.length > 0) {
      for (const d of deps[stack.pop()!]!) {
        if (pos[d]! < floor || seen[d] === walk) continue;
        seen[d] = walk;
        stack.push(d);
      }
    }
    for (const k of ks) if (seen[earlyOf(k)] === walk) keep[k] = 0;
  }
  return pairs.filter((_, k) => keep[k] === 1);
}

/**
 * Every plan's overlapping writers as adjacency lists, without a Conflict per pair: what
 * the scheduler reads. When most plans overlap (a shared `docs/*.md`, a tenth writing
 * `src/**`), the pairs are most of n²/2, and an object with its glob pair for each was
 * seconds and gigabytes at 3,000 plans.
 */
export function overlapLists(index: WriteIndex): number[][] {
  const { listedBy, planGlobs, overlaps } = index;
  const n = planGlobs.length;
  const out: number[][] = planGlobs.map(() => []);
  const met = new Int32Array(n).fill(-1);
  for (let a = 0; a < n; a++) {
    const list = out[a]!;
    for (const ga of planGlobs[a]!) {
      for (const gb of overlaps[ga]!) {
        for (const b of listedBy[gb]!) {
          if (b === a || met[b] === a) continue;
          met[b] = a;
          list.push(b);
        }
      }
    }
    list.sort((x, y) => x - y);
  }
  return out;
}

/**
 * concurrentConflicts(graph, order, overlappingPairs(index)) in one pass, without listing
 * the pairs the graph orders: a plan's partners are read off the index, its ancestors are
 * marked in one walk that stops below its earliest partner, and only the pairs it leaves
 * unordered become Conflicts. Work is O(plans × (partners + ancestors walked)), memory is
 * the conflicts themselves; the same pairs, globs and order as the two steps.
 */
export function concurrentWriters(graph: DependencyGraph, order: readonly number[], index: WriteIndex): Conflict[] {
  const { globs, listedBy, planGlobs, overlaps } = index;
  const n = planGlobs.length;
  const pos = new Int32Array(n).fill(-1);
  order.forEach((i, k) => (pos[i] = k));
  const met = new Int32Array(n).fill(-1);
  const seen = new Int32Array(n).fill(-1);
  /** partnersOf[a]: the b > a that conflict with a (unsorted until the end). */
  const partnersOf: number[][] = planGlobs.map(() => []);
  const earlier: number[] = [];
  const stack: number[] = [];
  for (let late = 0; late < n; late++) {
    earlier.length = 0;
    let floor = Infinity;
    for (const ga of planGlobs[late]!) {
      for (const gb of overlaps[ga]!) {
        for (const p of listedBy[gb]!) {
          if (p === late || met[p] === late) continue;
          met[p] = late;
          if (pos[late]! < 0 || pos[p]! < 0) {
            // On a cycle: nothing orders the pair, so it is kept (once, from its lower index).
            if (late < p) partnersOf[late]!.push(p);
          } else if (pos[p]! < pos[late]!) {
            earlier.push(p);
            if (pos[p]! < floor) floor = pos[p]!;
          }
        }
      }
    }
    if (earlier.length === 0) continue;
    // Only a plan placed earlier can be an ancestor, and paths to it run above its position.
    seen[late] = late;
    stack.length = 0;
    stack.push(late);
    while (stack.length > 0) {
      for (const d of graph.deps[stack.pop()!]!) {
        if (pos[d]! < floor || seen[d] === late) continue;
        seen[d] = late;
        stack.push(d);
      }
    }
    for (const p of earlier) {
      if (seen[p] === late) continue;
      if (p < late) partnersOf[p]!.push(late);
      else partnersOf[late]!.push(p);
    }
  }
  const overlapping = overlaps.map((list) => new Set(list));
  const out: Conflict[] = [];
  for (let a = 0; a < n; a++) {
    const partners = partnersOf[a]!;
    if (partners.length === 0) continue;
    partners.sort((x, y) => x - y);
    for (const b of partners) out.push({ a, b, globs: firstOverlap(a, b) });
  }
  return out;

  // As overlappingPairs reports it: a's first glob (in a's order) that overlaps one of b's, and b's first that overlaps that one.
  function firstOverlap(a: number, b: number): [string, string] {
    for (const ga of planGlobs[a]!) {
      const set = overlapping[ga]!;
      for (const gb of planGlobs[b]!) if (set.has(gb)) return [globs[ga]!, globs[gb]!];
    }
    throw new Error(`plans ${a} and ${b} were paired without an overlapping glob`);
  }
}
