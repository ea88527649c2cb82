import type { Layout } from './layout.js';

export interface SerialSchedule {
  starts: Float64Array;
  ends: Float64Array;
  makespan: number;
}

/**
 * The serial schedule-generation scheme: plans taken in `list` order (dependencies before
 * dependants), each placed at the earliest moment its dependencies have ended, a slot is
 * free for its whole duration and no plan placed before it writes its files meanwhile. A
 * plan may land in a gap left before plans placed earlier, which the greedy dispatcher
 * (always start something when a slot is free) never does: some optimal schedules need a
 * slot kept free for a plan about to be ready, and every optimal schedule is one this
 * scheme generates from some list. O(n² · slots) for n plans: the order search uses it on
 * specs of a few hundred plans at most.
 */
export function serialSchedule(layout: Layout, slots: number, minutes: (i: number) => number, list: readonly number[]): SerialSchedule {
  const n = layout.graph.ids.length;
  const { deps } = layout.graph;
  const { conflicts } = layout;
  const starts = new Float64Array(n).fill(-1);
  const ends = new Float64Array(n);
  const placed: number[] = [];
  let makespan = 0;
  for (const j of list) {
    const d = minutes(j);
    let ready = 0;
    for (const p of deps[j]!) ready = Math.max(ready, ends[p]!);
    // The earliest start is `ready` or the end of some placed plan: only then does room appear.
    const times = [ready];
    for (const i of placed) if (ends[i]! > ready) times.push(ends[i]!);
    times.sort((a, b) => a - b);
    let at = ready;
    for (const t of times) {
      if (fits(t, t + d)) {
        at = t;
        break;
      }
    }
    starts[j] = at;
    ends[j] = at + d;
    placed.push(j);
    makespan = Math.max(makespan, at + d);
  }
  return { starts, ends, makespan };

  function fits(from: number, to: number): boolean {
    const overlapping: number[] = [];
    for (const i of placed) if (starts[i]! < to && ends[i]! > from) overlapping.push(i);
    if (overlapping.length === 0) return true;
    for (const c of conflicts[currentPlan()]!) if (starts[c]! >= 0 && starts[c]! < to && ends[c]! > from) return false;
    if (overlapping.length < slots) return true;
    // Slot use peaks at `from` or at the start of an overlapping plan.
    for (const at of [from, ...overlapping.map((i) => starts[i]!).filter((s) => s > from)]) {
      let used = 0;
      for (const i of overlapping) if (starts[i]! <= at && ends[i]! > at) used++;
      if (used >= slots) return false;
    }
    return true;
  }

  function currentPlan(): number {
    return list[placed.length]!;
  }
}

/**
 * A list the serial scheme can take (every plan after its dependencies): by `key`, higher
 * first, among the plans whose dependencies are listed. Plans on a cycle are left out.
 */
export function listByKey(layout: Layout, key: ArrayLike<number>): number[] {
  const { deps, dependants } = layout.graph;
  const n = deps.length;
  const waiting = Int32Array.from(deps, (d) => d.length);
  const ready: number[] = [];
  for (let i = 0; i < n; i++) if (waiting[i] === 0) ready.push(i);
  const out: number[] = [];
  while (ready.length > 0) {
    let best = 0;
    for (let r = 1; r < ready.length; r++) {
      const a = ready[r]!;
      const b = ready[best]!;
      if (key[a]! > key[b]! || (key[a] === key[b] && a < b)) best = r;
    }
    const j = ready[best]!;
    ready[best] = ready[ready.length - 1]!;
    ready.pop();
    out.push(j);
    for (const c of dependants[j]!) if (--waiting[c] === 0) ready.push(c);
  }
  return out;
}

/** Plans by start, then plan order: the sequence a dispatcher reproduces the schedule from. */
export function startOrder(starts: ArrayLike<number>): number[] {
  return Array.from({ length: starts.length }, (_, i) => i).sort((a, b) => starts[a]! - starts[b]! || a - b);
}
