import { Centroid, cosine, topIds, type Vector } from './vectors.js';

/**
 * Groups of alike documents, by cosine similarity of their vectors. One pass in the order
 * given (signals oldest first) joins each document to the closest group when it is at least
 * `threshold` alike, or starts a group; then groups that ended up alike are merged, which
 * undoes what the order split (two early signals of a problem too unlike each other to join,
 * until a third shows what they share).
 *
 * Candidates come from an inverted index over each group's members' heaviest terms, so a
 * document is compared with the few groups that share a telling word with it, never with
 * all of them: the cost grows with the number of documents, not its square. A word in the
 * telling terms of very many groups tells nothing apart and is not used to find candidates
 * (it still counts in the similarity).
 */

/** A document's heaviest terms, by which groups are found. */
const INDEX_TERMS = 8;
/** Groups one index term may point to before it is too common to find candidates by. */
const MAX_POSTING = 400;

interface Group {
  /** Most groups stay of one: their centre is their vector, compared without a centroid's hashing. */
  single: Vector | undefined;
  centroid: Centroid | undefined;
  members: number[];
  indexed: Set<number>;
  alive: boolean;
}

function similarity(group: Group, v: Vector): number {
  return group.single ? cosine(group.single, v) : group.centroid!.cosine(v);
}

/** The group's centre as a centroid, made from its one vector when it first grows. */
function centroidOf(group: Group): Centroid {
  if (!group.centroid) {
    group.centroid = new Centroid();
    group.centroid.add(group.single!);
    // Cleared, not deleted: every group keeps one shape, which keeps property reads fast.
    group.single = undefined;
  }
  return group.centroid;
}

/** The clusters among `vectors`: lists of indexes, each in the order given. `family` keeps unlike kinds apart. */
export function cluster(vectors: readonly Vector[], family: readonly string[], threshold: number): number[][] {
  const c: Clustering = { groups: [], index: new Map(), met: new Int32Array(vectors.length), search: 0, threshold };
  vectors.forEach((v, i) => joinClosest(c, v, i, postingsOf(c, family[i]!)));
  mergeSplit(c, family);
  return c.groups.filter((g) => g.alive).map((g) => g.members.sort((a, b) => a - b));
}

/** One clustering as it goes: the groups, and the inverted index of their telling terms. */
interface Clustering {
  groups: Group[];
  /** By family, each term's groups. */
  index: Map<string, Map<number, number[]>>;
  /** Which search last met each group: a group shared by several postings is compared once. */
  met: Int32Array;
  search: number;
  threshold: number;
}

/** A family's postings: each term's groups. */
function postingsOf(c: Clustering, f: string): Map<number, number[]> {
  let p = c.index.get(f);
  if (!p) c.index.set(f, (p = new Map()));
  return p;
}

/** A group found by these terms from now on (those it is found by already aside). */
function indexTerms(c: Clustering, g: number, ids: readonly number[], postings: Map<number, number[]>): void {
  const group = c.groups[g]!;
  for (const id of ids) {
    if (group.indexed.has(id)) continue;
    group.indexed.add(id);
    const list = postings.get(id);
    if (list) list.push(g);
    else postings.set(id, [g]);
  }
}

/** The live groups that share a telling term with `ids`, each once, in index order (`self` left out). */
function candidates(c: Clustering, ids: readonly number[], postings: Map<number, number[]>, self?: number): number[] {
  const search = ++c.search;
  const found: number[] = [];
  for (const id of ids) {
    const list = postings.get(id);
    if (!list || list.length > MAX_POSTING) continue;
    for (const g of list) {
      if (g === self || c.met[g] === search || !c.groups[g]!.alive) continue;
      c.met[g] = search;
      found.push(g);
    }
  }
  return found;
}

/** The one pass: a document joins the closest group at least `threshold` alike, or starts one. */
function joinClosest(c: Clustering, v: Vector, i: number, postings: Map<number, number[]>): void {
  const { groups } = c;
  const top = topIds(v, INDEX_TERMS);
  let best = -1;
  let bestSim = -Infinity;
  // Candidates come in index order, which is the same for the same input: ties go to the first.
  for (const g of candidates(c, top, postings)) {
    const sim = similarity(groups[g]!, v);
    if (sim >= c.threshold && sim > bestSim) {
      best = g;
      bestSim = sim;
    }
  }
  if (best === -1) {
    groups.push({ single: v, centroid: undefined, members: [i], indexed: new Set(), alive: true });
    best = groups.length - 1;
  } else {
    centroidOf(groups[best]!).add(v);
    groups[best]!.members.push(i);
  }
  indexTerms(c, best, top, postings);
}

/**
 * Merge what the order split: largest groups first, each taking in the groups alike to it.
 * Two groups of one never merge here: the later was compared with the earlier when it came.
 */
function mergeSplit(c: Clustering, family: readonly string[]): void {
  const { groups } = c;
  const order = groups
    .map((_, g) => g)
    .filter((g) => groups[g]!.members.length > 1)
    .sort((a, b) => groups[b]!.members.length - groups[a]!.members.length || a - b);
  for (const g of order) {
    const group = groups[g]!;
    if (!group.alive) continue;
    const postings = postingsOf(c, family[group.members[0]!]!);
    while (takeInAlike(c, g, postings));
  }
}

/** The groups alike to group `g`'s centre merged into it: whether any was (its centre moved, so there may be more). */
function takeInAlike(c: Clustering, g: number, postings: Map<number, number[]>): boolean {
  const group = c.groups[g]!;
  let merged = false;
  const centre = centroidOf(group);
  const top = centre.topIds(INDEX_TERMS);
  for (const other of candidates(c, top, postings, g).sort((a, b) => a - b)) {
    const o = c.groups[other]!;
    if ((o.single ? centre.cosine(o.single) : centre.cosineWith(o.centroid!)) < c.threshold) continue;
    centre.merge(centroidOf(o));
    group.members.push(...o.members);
    o.alive = false;
    indexTerms(c, g, [...o.indexed], postings);
    merged = true;
  }
  return merged;
}
