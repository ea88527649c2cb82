import { cosine, type Vector } from './vectors.js';

/** Vectors (the lessons') found by the terms they carry, for the one most alike another vector. */
export class VectorIndex {
  private readonly byTerm = new Map<number, number[]>();
  /** Which search last tried each vector: one that shares several terms is compared once. */
  private readonly tried: Int32Array;
  private search = 0;

  constructor(private readonly vectors: readonly Vector[]) {
    this.tried = new Int32Array(vectors.length);
    vectors.forEach((v, i) => {
      for (const id of v.ids) {
        const list = this.byTerm.get(id);
        if (list) list.push(i);
        else this.byTerm.set(id, [i]);
      }
    });
  }

  /** The vector most alike `v`, when it is alike enough; the first of equals. `accept`: which vectors may be the answer. */
  best(v: Vector, threshold: number, accept?: (index: number) => boolean): { index: number; similarity: number } | undefined {
    if (this.vectors.length === 0) return undefined;
    this.search++;
    let best: { index: number; similarity: number } | undefined;
    for (const id of v.ids) {
      for (const i of this.byTerm.get(id) ?? []) {
        if (this.tried[i] === this.search) continue;
        this.tried[i] = this.search;
        if (accept && !accept(i)) continue;
        const similarity = cosine(v, this.vectors[i]!);
        if (similarity >= threshold && (best === undefined || similarity > best.similarity || (similarity === best.similarity && i < best.index)))
          best = { index: i, similarity };
      }
    }
    return best;
  }
}
