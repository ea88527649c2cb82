import { globInfo, globInfosOverlap, literalPrefix, normalizeGlob, type GlobInfo } from './glob.js';
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
  // Distinct globs, the plans that list each (in plan order, once), and each plan's globs by
  // id. (Each step's work for one plan or one glob is a function of its own, called once
  // each: see concurrentWriters.)
  const index: WriteIndex & { globId: Map<string, number> } = { globs: [], listedBy: [], planGlobs: [], overlaps: [], globId: new Map() };
  for (let plan = 0; plan < filesModified.length; plan++) index.planGlobs.push(globsOf(index, plan, filesModified[plan]!));
  const { globs, listedBy, planGlobs } = index;

  // overlaps[g]: the distinct globs that overlap g (g itself included when it names a file).
  const overlaps: number[][] = [];
  const info: GlobInfo[] = [];
  // Globs by literal prefix (as globsOverlap reads the glob: no leading "./", no "//"), then
  // by index: the distinct prefixes sorted by the engine's own string sort, each with its globs.
  const withPrefix = new Map<string, number[]>();
  for (let g = 0; g < globs.length; g++) {
    overlaps.push([]);
    info.push(globInfo(globs[g]!));
    addByPrefix(withPrefix, g, globs[g]!);
  }
  const prefixes = [...withPrefix.keys()].sort();
  const byPrefix: number[] = [];
  const prefixOf: string[] = [];
  for (const prefix of prefixes) {
    const list = withPrefix.get(prefix)!;
    for (let k = 0; k < list.length; k++) {
      byPrefix.push(list[k]!);
      prefixOf.push(prefix);
    }
  }
  const scan: PrefixScan = { byPrefix, prefixOf, info, overlaps };
  for (let i = 0; i < byPrefix.length; i++) overlapsFrom(scan, i);
  return { globs, listedBy, planGlobs, overlaps };
}

/** A plan's globs by id, each glob new to the index added to it. */
function globsOf(index: WriteIndex & { globId: Map<string, number> }, plan: number, list: readonly string[]): number[] {
  const ids: number[] = [];
  for (let k = 0; k < list.length; k++) {
    const glob = list[k]!;
    let g = index.globId.get(glob);
    if (g === undefined) {
      g = index.globs.length;
      index.globId.set(glob, g);
      index.globs.push(glob);
      index.listedBy.push([]);
    }
    if (ids.includes(g)) continue;
    ids.push(g);
    index.listedBy[g]!.push(plan);
  }
  return ids;
}

function addByPrefix(withPrefix: Map<string, number[]>, g: number, glob: string): void {
  const prefix = literalPrefix(normalizeGlob(glob));
  const list = withPrefix.get(prefix);
  if (list) list.push(g);
  else withPrefix.set(prefix, [g]);
}

interface PrefixScan {
  byPrefix: number[];
  prefixOf: string[];
  info: GlobInfo[];
  overlaps: number[][];
}

/** The overlaps of the glob at sorted place i: with itself, and with every later glob whose prefix starts with its own (a contiguous run). */
function overlapsFrom(scan: PrefixScan, i: number): void {
  const { byPrefix, prefixOf, info, overlaps } = scan;
  const e = byPrefix[i]!;
  const prefix = prefixOf[i]!;
  // A path always names itself; a glob may name nothing ("a/[]").
  if (!info[e]!.magic || globInfosOverlap(info[e]!, info[e]!)) overlaps[e]!.push(e);
  for (let j = i + 1; j < byPrefix.length; j++) {
    if (!prefixOf[j]!.startsWith(prefix)) break;
    const f = byPrefix[j]!;
    if (globInfosOverlap(info[e]!, info[f]!)) {
      overlaps[e]!.push(f);
      overlaps[f]!.push(e);
    }
  }
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
 * Reachability labels of a DAG (GRAIL: Yildirim, Chaoji and Zaki, 2010). Each of LABELINGS
 * depth-first walks over the dependencies gives every plan an interval [low, post]: post
 * its post-order rank, low the least rank under it. If a plan depends on another, directly
 * or not, the other's interval lies within its own in every walk; so an interval that does
 * not is a proof that it does not, found in O(1), and a search for a dependency need never
 * enter a plan whose interval cannot hold the target's. Only plans with a position in the
 * topological order are labelled: everything they depend on has one too, so the part of
 * the graph the labels describe is acyclic whatever cycles the rest has.
 */
const LABELINGS = 2;

interface Labels {
  /** low[k * n + i], post[k * n + i]: plan i's interval in walk k. */
  low: Int32Array;
  post: Int32Array;
}

function reachabilityLabels(graph: DependencyGraph, order: readonly number[]): Labels {
  const n = graph.ids.length;
  const low = new Int32Array(LABELINGS * n);
  const post = new Int32Array(LABELINGS * n).fill(-1);
  const nodes = new Int32Array(order.length);
  const next = new Int32Array(order.length);
  for (let k = 0; k < LABELINGS; k++) {
    const base = k * n;
    let rank = 0;
    // The walks start from the last plans, so that each covers as much as it can; the
    // second takes every plan's dependencies in reverse, for intervals of another shape.
    for (let r = order.length - 1; r >= 0; r--) {
      const root = order[r]!;
      if (post[base + root] !== -1) continue;
      let top = 0;
      nodes[0] = root;
      next[0] = 0;
      post[base + root] = -2;
      low[base + root] = 0x7fffffff;
      while (top >= 0) {
        const u = nodes[top]!;
        const ds = graph.deps[u]!;
        const i = next[top]!;
        if (i < ds.length) {
          next[top] = i + 1;
          const d = ds[k === 0 ? i : ds.length - 1 - i]!;
          const at = post[base + d]!;
          if (at === -1) {
            post[base + d] = -2;
            low[base + d] = 0x7fffffff;
            nodes[++top] = d;
            next[top] = 0;
          } else if (at >= 0 && low[base + d]! < low[base + u]!) low[base + u] = low[base + d]!;
          continue;
        }
        const rankU = rank++;
        post[base + u] = rankU;
        if (rankU < low[base + u]!) low[base + u] = rankU;
        top--;
        if (top >= 0 && low[base + u]! < low[base + nodes[top]!]!) low[base + nodes[top]!] = low[base + u]!;
      }
    }
  }
  return { low, post };
}

/** Partners from which one walk over a plan's ancestors is taken instead of a search per pair. */
const GROUP_SEARCH = 16;

/**
 * concurrentConflicts(graph, order, overlappingPairs(index)) in one pass, without listing
 * the pairs the graph orders: a plan's partners are read off the index, and only the pairs
 * it leaves unordered become Conflicts. Whether a plan depends on an earlier partner is
 * answered by reachability labels (reachabilityLabels) where they can, and otherwise by a
 * search up its dependencies that enters only plans placed above the partner whose labels
 * allow the partner below them, trying the furthest-reaching dependency first. A plan with
 * many partners instead marks, in one walk that stops below its earliest partner, the
 * ancestors that may lead to any of them, and stops once it has met every one. (One
 * exhaustive walk per plan down to its earliest partner was quadratic: a glob written
 * again thousands of plans later made each such plan walk thousands of ancestors.)
 * Memory is linear plus the conflicts themselves; the same pairs, globs and order as the
 * two steps.
 *
 * The work for each plan is done by functions of their own, called once a plan, rather
 * than in one loop here: the engine optimises those as it does any function called often,
 * and keeps them from one spec to the next.
 */
export function concurrentWriters(graph: DependencyGraph, order: readonly number[], index: WriteIndex): Conflict[] {
  const { globs, planGlobs, overlaps } = index;
  const n = planGlobs.length;
  const pos = new Int32Array(n).fill(-1);
  for (let k = 0; k < order.length; k++) pos[order[k]!] = k;
  const state: WalkState = {
    n,
    graph,
    order,
    index,
    pos,
    met: new Int32Array(n).fill(-1),
    seen: new Int32Array(n).fill(-1),
    mark: 0,
    partnersOf: new Array<number[] | undefined>(n),
    earlier: new Int32Array(n),
    stack: new Int32Array(n + 1),
    labelled: false,
    low: EMPTY,
    post: EMPTY,
    depStart: EMPTY,
    depList: EMPTY,
  };
  for (let late = 0; late < n; late++) visitPlan(state, late);
  // The globs that overlap a glob, as a set, built for the globs a conflict is reported on.
  const overlapping: (Set<number> | undefined)[] = new Array<Set<number> | undefined>(globs.length);
  const out: Conflict[] = [];
  for (let a = 0; a < n; a++) {
    const partners = state.partnersOf[a];
    if (!partners) continue;
    partners.sort((x, y) => x - y);
    for (const b of partners) out.push({ a, b, globs: firstOverlap(a, b) });
  }
  return out;

  // As overlappingPairs reports it: a's first glob (in a's order) that overlaps one of b's, and b's first that overlaps that one.
  function firstOverlap(a: number, b: number): [string, string] {
    for (const ga of planGlobs[a]!) {
      const set = (overlapping[ga] ??= new Set(overlaps[ga]));
      for (const gb of planGlobs[b]!) if (set.has(gb)) return [globs[ga]!, globs[gb]!];
    }
    throw new Error(`plans ${a} and ${b} were paired without an overlapping glob`);
  }
}

const EMPTY = new Int32Array(0);

/** What concurrentWriters's helpers share. */
interface WalkState {
  n: number;
  graph: DependencyGraph;
  order: readonly number[];
  index: WriteIndex;
  /** pos[i]: plan i's place in the topological order, -1 on or behind a cycle. */
  pos: Int32Array;
  /** met[p] === late: p is already among late's partners. */
  met: Int32Array;
  /** seen[d] === mark: d is reached in the current search or walk. */
  seen: Int32Array;
  mark: number;
  /** partnersOf[a]: the b > a that conflict with a (unsorted until the end), for the few plans that have any. */
  partnersOf: (number[] | undefined)[];
  /** The current plan's partners placed before it (so many of them as visitPlan counts). */
  earlier: Int32Array;
  /** A search's or walk's plans to go on from (each is put on it once). */
  stack: Int32Array;
  /** Labels and dependencies by position, made once a plan has an earlier partner. */
  labelled: boolean;
  low: Int32Array;
  post: Int32Array;
  /** Each plan's dependencies, by position, highest first (pushed in that order, the furthest is popped first): plan i's are depList[depStart[i]] to depList[depStart[i + 1] - 1]. */
  depStart: Int32Array;
  depList: Int32Array;
}

function conflict(state: WalkState, a: number, b: number): void {
  const list = state.partnersOf[a];
  if (list) list.push(b);
  else state.partnersOf[a] = [b];
}

/** The conflicts of `late` with the plans it overlaps: with each placed before it that it does not depend on, and with each on a cycle. */
function visitPlan(state: WalkState, late: number): void {
  const { listedBy, planGlobs, overlaps } = state.index;
  const { pos, met, earlier } = state;
  let count = 0;
  const globsOfLate = planGlobs[late]!;
  for (let i = 0; i < globsOfLate.length; i++) {
    const near = overlaps[globsOfLate[i]!]!;
    for (let j = 0; j < near.length; j++) {
      const writers = listedBy[near[j]!]!;
      for (let k = 0; k < writers.length; k++) {
        const p = writers[k]!;
        if (p === late || met[p] === late) continue;
        met[p] = late;
        if (pos[late]! < 0 || pos[p]! < 0) {
          // On a cycle: nothing orders the pair, so it is kept (once, from its lower index).
          if (late < p) conflict(state, late, p);
        } else if (pos[p]! < pos[late]!) {
          earlier[count++] = p;
        }
      }
    }
  }
  if (count === 0) return;
  if (!state.labelled) {
    const labels = reachabilityLabels(state.graph, state.order);
    state.low = labels.low;
    state.post = labels.post;
    const byPosition = depsByPosition(state.graph, pos);
    state.depStart = byPosition.depStart;
    state.depList = byPosition.depList;
    state.labelled = true;
  }
  // The partners the labels cannot rule out; the others are concurrent.
  let maybe = 0;
  for (let i = 0; i < count; i++) {
    const p = earlier[i]!;
    if (mayReach(state, late, p)) earlier[maybe++] = p;
    else if (p < late) conflict(state, p, late);
    else conflict(state, late, p);
  }
  if (maybe === 0) return;
  if (maybe < GROUP_SEARCH) {
    for (let i = 0; i < maybe; i++) {
      const p = earlier[i]!;
      if (dependsOn(state, late, p)) continue;
      if (p < late) conflict(state, p, late);
      else conflict(state, late, p);
    }
    return;
  }
  walkTo(state, late, earlier, maybe);
  for (let i = 0; i < maybe; i++) {
    const p = earlier[i]!;
    if (state.seen[p] === state.mark) continue;
    if (p < late) conflict(state, p, late);
    else conflict(state, late, p);
  }
}

/** Could `u` depend on `v`, by every labelling? (False is certain; true needs a search.) */
function mayReach(state: WalkState, u: number, v: number): boolean {
  const { low, post, n } = state;
  for (let base = 0; base < LABELINGS * n; base += n) {
    if (low[base + u]! > low[base + v]! || post[base + u]! < post[base + v]!) return false;
  }
  return true;
}

/** Does `late` depend on `early`, placed before it? */
function dependsOn(state: WalkState, late: number, early: number): boolean {
  if (!mayReach(state, late, early)) return false;
  const { pos, seen, stack, depStart, depList } = state;
  const floor = pos[early]!;
  const mark = ++state.mark;
  let top = 0;
  stack[top++] = late;
  while (top > 0) {
    const u = stack[--top]!;
    for (let k = depStart[u]!, end = depStart[u + 1]!; k < end; k++) {
      const d = depList[k]!;
      if (d === early) return true;
      if (pos[d]! <= floor || seen[d] === mark || !mayReach(state, d, early)) continue;
      seen[d] = mark;
      stack[top++] = d;
    }
  }
  return false;
}

/** The partners (of `late`, all placed before it: partners[0, count)) it depends on, marked in `seen` with one walk. */
function walkTo(state: WalkState, late: number, partners: Int32Array, count: number): void {
  const { low, post, n, pos, seen, stack, depStart, depList } = state;
  const wanted = ++state.mark;
  // Bounds over the partners, per labelling: a plan outside them leads to none of them.
  let floor = Infinity;
  const maxLow: number[] = [];
  const minPost: number[] = [];
  for (let base = 0; base < LABELINGS * n; base += n) {
    let lo = -1;
    let po = 0x7fffffff;
    for (let i = 0; i < count; i++) {
      const p = partners[i]!;
      if (low[base + p]! > lo) lo = low[base + p]!;
      if (post[base + p]! < po) po = post[base + p]!;
    }
    maxLow.push(lo);
    minPost.push(po);
  }
  for (let i = 0; i < count; i++) {
    const p = partners[i]!;
    if (pos[p]! < floor) floor = pos[p]!;
    seen[p] = -wanted - 1; // a partner not met yet
  }
  let left = count;
  let top = 0;
  stack[top++] = late;
  while (top > 0 && left > 0) {
    const u = stack[--top]!;
    for (let k = depStart[u]!, end = depStart[u + 1]!; k < end; k++) {
      const d = depList[k]!;
      if (pos[d]! < floor || seen[d] === wanted) continue;
      if (seen[d] === -wanted - 1) {
        left--;
      } else {
        let may = true;
        for (let l = 0, base = 0; l < LABELINGS; l++, base += n) {
          if (low[base + d]! > maxLow[l]! || post[base + d]! < minPost[l]!) {
            may = false;
            break;
          }
        }
        if (!may) continue;
      }
      seen[d] = wanted;
      stack[top++] = d;
    }
  }
}

/** Every plan's dependencies in one array, each plan's highest position first. */
function depsByPosition(graph: DependencyGraph, pos: Int32Array): { depStart: Int32Array; depList: Int32Array } {
  const n = graph.ids.length;
  const depStart = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) depStart[i + 1] = depStart[i]! + graph.deps[i]!.length;
  const depList = new Int32Array(depStart[n]!);
  for (let i = 0; i < n; i++) {
    const ds = graph.deps[i]!;
    const from = depStart[i]!;
    if (ds.length > 32) {
      depList.set(ds, from);
      depList.subarray(from, from + ds.length).sort((x, y) => pos[y]! - pos[x]!);
      continue;
    }
    // A few dependencies each, usually: insertion sort, without a comparator call per step.
    for (let k = 0; k < ds.length; k++) {
      const d = ds[k]!;
      let at = from + k;
      while (at > from && pos[depList[at - 1]!]! < pos[d]!) {
        depList[at] = depList[at - 1]!;
        at--;
      }
      depList[at] = d;
    }
  }
  return { depStart, depList };
}
