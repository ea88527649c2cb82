import { hasMagic } from '../graph/glob.js';
import type { WriteIndex } from '../graph/conflicts.js';

/** The heaviest set of plans that must run one at a time because they all write one file. */
export interface FileBound {
  /** Their total expected duration. */
  work: number;
  /** The file, or the glob they all list. */
  file: string;
  plans: number;
}

/**
 * No two plans that write the same file ever run at once, so the total work of the plans
 * writing one file is a lower bound on any schedule, however many slots. The groups
 * considered are exact: for a literal path, every plan one of whose entries matches it
 * (each writes that very file); for a glob, the plans that list that glob. Without this,
 * `max(critical path, work / slots)` reads a spec serialised by a shared file as far from
 * its bound when the schedule is in fact near the best possible.
 */
export function fileBound(index: WriteIndex, weight: (i: number) => number): FileBound | undefined {
  const { globs, listedBy, overlaps } = index;
  const stamp = new Int32Array(index.planGlobs.length).fill(-1);
  let best: FileBound | undefined;
  globs.forEach((glob, g) => {
    if (!overlaps[g]!.includes(g)) return; // names no file
    const sources = hasMagic(glob) ? [g] : overlaps[g]!;
    let work = 0;
    let plans = 0;
    for (const h of sources) {
      for (const i of listedBy[h]!) {
        if (stamp[i] === g) continue;
        stamp[i] = g;
        work += weight(i);
        plans++;
      }
    }
    if (plans > 1 && (!best || work > best.work)) best = { work, file: glob, plans };
  });
  return best;
}
