/**
 * Priority rules: a number per plan, higher starts first among the plans ready at once.
 * The scheduler uses `conflictAware` unless given priorities a search found better (see
 * priority-search.ts).
 */

export interface PriorityInput {
  /** remaining[i]: the longest chain of work from i, itself included, to the end. */
  remaining: Float64Array;
  weight: (i: number) => number;
  /** conflicts[i]: the plans whose writes overlap i's. */
  conflicts: readonly (readonly number[])[];
}

export type PriorityRule = 'critical path' | 'conflict-aware' | 'blend' | 'short first among writers';

export const PRIORITY_RULES: readonly PriorityRule[] = ['conflict-aware', 'critical path', 'blend', 'short first among writers'];

/**
 * `contended[i]`: i's own work plus that of every plan writing a file i writes. Those plans
 * run one after another whatever the slots, like a chain of dependencies, so a plan in a
 * heavily written file group holds up the end of the spec as a long path does.
 */
export function contendedWork(input: PriorityInput): Float64Array {
  const { weight, conflicts } = input;
  const out = new Float64Array(conflicts.length);
  for (let i = 0; i < conflicts.length; i++) {
    if (conflicts[i]!.length === 0) continue;
    let sum = weight(i);
    for (const c of conflicts[i]!) sum += weight(c);
    out[i] = sum;
  }
  return out;
}

export function priorityBy(rule: PriorityRule, input: PriorityInput): Float64Array {
  const { remaining, weight, conflicts } = input;
  const n = remaining.length;
  const out = new Float64Array(n);
  if (rule === 'critical path') return Float64Array.from(remaining);
  const contended = contendedWork(input);
  for (let i = 0; i < n; i++) {
    const path = remaining[i]!;
    if (rule === 'conflict-aware') out[i] = Math.max(path, contended[i]!);
    else if (rule === 'blend') out[i] = path + contended[i]! / 2;
    // What follows i, not i itself: among writers of one file the shorter goes first and
    // frees the file sooner, as long as the work behind them is equal.
    else out[i] = conflicts[i]!.length > 0 ? path - weight(i) / 2 : path;
  }
  return out;
}
