import { stemOf, type Term } from './terms.js';

/**
 * TF-IDF vectors over the terms of a set of documents (signals, lessons), compared by cosine.
 * A word most documents use weighs little; a word few use weighs much, so two signals that
 * share "sqlite" and "lock" are closer than two that share "test" and "fail". Tags are the
 * capture's own summary of what a signal is about, so each counts as several mentions.
 */

/** A document's terms as counts, before weighting: term id → count. */
export type TermCounts = Map<number, number>;

/** How many mentions of a word a tag is worth. */
export const TAG_WEIGHT = 3;

/** Terms a vector keeps: the heaviest few carry the meaning; the rest only cost time. */
export const MAX_TERMS = 32;

/** A normalised sparse vector: term ids ascending, weights matching, length 1 (or empty). */
export interface Vector {
  ids: Int32Array;
  weights: Float64Array;
}

export function termCounts(textTerms: readonly Term[], tagTerms: readonly Term[] = []): TermCounts {
  const counts: TermCounts = new Map();
  for (const t of textTerms) counts.set(t.id, (counts.get(t.id) ?? 0) + 1);
  for (const t of tagTerms) counts.set(t.id, (counts.get(t.id) ?? 0) + TAG_WEIGHT);
  return counts;
}

/** A document's terms as ids and counts. */
export interface IdCounts {
  ids: number[];
  counts: number[];
}

/** Document frequencies over one corpus, by term id (terms.ts numbers the stems densely, so arrays serve). */
export class Vocabulary {
  private df = new Int32Array(1024);
  private documents = 0;
  private idfs: Float64Array | undefined;

  /** Count one document's terms towards the document frequencies; its terms as ids. */
  add(counts: TermCounts): IdCounts {
    this.documents++;
    this.idfs = undefined;
    const out: IdCounts = { ids: [], counts: [] };
    for (const [id, count] of counts) {
      if (id >= this.df.length) {
        const grown = new Int32Array(Math.max(id + 1, this.df.length * 2));
        grown.set(this.df);
        this.df = grown;
      }
      this.df[id]!++;
      out.ids.push(id);
      out.counts.push(count);
    }
    return out;
  }

  stem(id: number): string {
    return stemOf(id);
  }

  /**
   * ln(1 + N/df): smoothed so that a word every document of a small set shares still
   * counts (three signals of one problem and nothing else must still look alike).
   */
  idf(id: number): number {
    if (!this.idfs) {
      this.idfs = new Float64Array(this.df.length);
      for (let i = 0; i < this.df.length; i++) this.idfs[i] = Math.log(1 + this.documents / Math.max(1, this.df[i]!));
    }
    return this.idfs[id]!;
  }

  /** The weighted, normalised vector of one document's terms (sublinear term frequency), its heaviest kept. */
  vector(terms: IdCounts, maxTerms: number = MAX_TERMS): Vector {
    const n = terms.ids.length;
    const weight = new Float64Array(n);
    for (let i = 0; i < n; i++) weight[i] = (1 + Math.log(terms.counts[i]!)) * this.idf(terms.ids[i]!);
    const all: number[] = [];
    for (let i = 0; i < n; i++) all.push(i);
    const order = n > maxTerms ? all.sort((a, b) => weight[b]! - weight[a]! || terms.ids[a]! - terms.ids[b]!).slice(0, maxTerms) : all;
    order.sort((a, b) => terms.ids[a]! - terms.ids[b]!);
    let norm = 0;
    for (const i of order) norm += weight[i]! * weight[i]!;
    norm = Math.sqrt(norm);
    const ids = new Int32Array(order.length);
    const weights = new Float64Array(order.length);
    for (let k = 0; k < order.length; k++) {
      ids[k] = terms.ids[order[k]!]!;
      weights[k] = norm === 0 ? 0 : weight[order[k]!]! / norm;
    }
    return { ids, weights };
  }
}

/** The dot product of two vectors (their cosine, both being normalised). */
export function cosine(a: Vector, b: Vector): number {
  let i = 0;
  let j = 0;
  let sum = 0;
  while (i < a.ids.length && j < b.ids.length) {
    const x = a.ids[i]!;
    const y = b.ids[j]!;
    if (x === y) sum += a.weights[i++]! * b.weights[j++]!;
    else if (x < y) i++;
    else j++;
  }
  return sum;
}

/** The ids of a vector's heaviest terms, heaviest first (ties by id): a selection, not a sort. */
export function topIds(v: Vector, count: number): number[] {
  const top: number[] = [];
  for (let i = 0; i < v.ids.length; i++) {
    const w = v.weights[i]!;
    const last = top.length === count ? top[count - 1]! : -1;
    // Ids ascend, so an equal weight later in the vector never goes before an earlier one.
    if (last !== -1 && w <= v.weights[last]!) continue;
    let at = top.length;
    while (at > 0 && v.weights[top[at - 1]!]! < w) at--;
    top.splice(at, 0, i);
    if (top.length > count) top.pop();
  }
  return top.map((i) => v.ids[i]!);
}

/** A running sum of vectors (a cluster's centroid before normalising), compared by cosine. */
export class Centroid {
  readonly sum = new Map<number, number>();
  private norm2 = 0;
  size = 0;

  /** The sum's dot product with a vector. */
  dot(v: Vector): number {
    let s = 0;
    for (let i = 0; i < v.ids.length; i++) s += (this.sum.get(v.ids[i]!) ?? 0) * v.weights[i]!;
    return s;
  }

  /** Cosine between the centroid's direction and a vector. */
  cosine(v: Vector): number {
    return this.norm2 === 0 ? 0 : this.dot(v) / Math.sqrt(this.norm2);
  }

  add(v: Vector): void {
    const d = this.dot(v);
    for (let i = 0; i < v.ids.length; i++) {
      const id = v.ids[i]!;
      this.sum.set(id, (this.sum.get(id) ?? 0) + v.weights[i]!);
    }
    // |s + v|² = |s|² + 2 s·v + |v|², and |v| is 1 (or 0 for an empty vector).
    let v2 = 0;
    for (let i = 0; i < v.weights.length; i++) v2 += v.weights[i]! * v.weights[i]!;
    this.norm2 += 2 * d + v2;
    this.size++;
  }

  /** Fold another centroid into this one. */
  merge(other: Centroid): void {
    let d = 0;
    for (const [id, w] of other.sum) d += (this.sum.get(id) ?? 0) * w;
    for (const [id, w] of other.sum) this.sum.set(id, (this.sum.get(id) ?? 0) + w);
    this.norm2 += 2 * d + other.norm2;
    this.size += other.size;
  }

  /** Cosine between two centroids' directions. */
  cosineWith(other: Centroid): number {
    if (this.norm2 === 0 || other.norm2 === 0) return 0;
    const [small, large] = this.sum.size <= other.sum.size ? [this.sum, other.sum] : [other.sum, this.sum];
    let d = 0;
    for (const [id, w] of small) d += (large.get(id) ?? 0) * w;
    return d / Math.sqrt(this.norm2 * other.norm2);
  }

  /** The ids of its heaviest terms, heaviest first (ties by id): a selection, not a sort of the whole sum. */
  topIds(count: number): number[] {
    const top: [number, number][] = [];
    for (const [id, w] of this.sum) {
      if (top.length === count && (w < top[count - 1]![1] || (w === top[count - 1]![1] && id > top[count - 1]![0]))) continue;
      let at = top.length;
      while (at > 0 && (top[at - 1]![1] < w || (top[at - 1]![1] === w && top[at - 1]![0] > id))) at--;
      top.splice(at, 0, [id, w]);
      if (top.length > count) top.pop();
    }
    return top.map(([id]) => id);
  }

  /** The normalised centroid, its heaviest terms kept. */
  vector(maxTerms: number = MAX_TERMS): Vector {
    const entries = [...this.sum].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, maxTerms);
    entries.sort((a, b) => a[0] - b[0]);
    let norm = 0;
    for (const [, w] of entries) norm += w * w;
    norm = Math.sqrt(norm);
    return { ids: Int32Array.from(entries.map(([id]) => id)), weights: Float64Array.from(entries.map(([, w]) => (norm === 0 ? 0 : w / norm))) };
  }
}
