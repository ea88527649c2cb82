import { MinHeap } from '../graph/heap.js';
import type { ScheduleEntry } from './entry.js';
import type { Layout } from './layout.js';

export interface WaveRun {
  makespan: number;
  schedule: ScheduleEntry[];
}

/**
 * GSD's wave-based execution of the same plans, the baseline `harness simulate` compares
 * against: phases one after another; inside a phase, plans grouped into waves by their
 * depth among same-phase dependencies (wave = 1 + the highest wave of a same-phase
 * dependency); each wave list-scheduled in plan order on the same slots, conflicting plans
 * never at once; a barrier after every wave and every phase. Dependencies on earlier
 * phases need no care: those phases are finished by then.
 */
export function waveRun(layout: Layout, slots: number, duration: (i: number) => number): WaveRun {
  const { graph, order, phaseOf, phaseIds } = layout;
  const n = graph.ids.length;
  // Plans whose phase is not listed run after the listed ones, as one more phase.
  const groupOf = (i: number) => (phaseOf[i]! >= 0 ? phaseOf[i]! : phaseIds.length);
  const wave = new Int32Array(n);
  const waves: number[][][] = Array.from({ length: phaseIds.length + 1 }, () => []);
  for (const i of order) {
    let w = 1;
    for (const d of graph.deps[i]!) if (groupOf(d) === groupOf(i)) w = Math.max(w, wave[d]! + 1);
    wave[i] = w;
    (waves[groupOf(i)]![w - 1] ??= []).push(i);
  }

  const schedule: ScheduleEntry[] = [];
  let time = 0;
  for (const phaseWaves of waves) {
    for (const members of phaseWaves) {
      if (!members) continue;
      time = listSchedule(
        layout,
        members.sort((a, b) => a - b),
        slots,
        duration,
        time,
        schedule,
      );
    }
  }
  return { makespan: time, schedule };
}

/** Run independent plans from `start`, in the order given, as slots and conflicts allow; returns when the last ends. */
function listSchedule(layout: Layout, plans: number[], slots: number, duration: (i: number) => number, start: number, out: ScheduleEntry[]): number {
  const { conflicts, graph } = layout;
  // Counters by plan index: a plan in a spec of overlapping writers conflicts with thousands.
  const busy = new Int32Array(graph.ids.length);
  const end = new Map<number, number>();
  const slotOf = new Map<number, number>();
  const running = new MinHeap((a, b) => end.get(a)! - end.get(b)! < 0 || (end.get(a) === end.get(b) && a < b));
  const free = new MinHeap();
  for (let s = 1; s <= slots; s++) free.push(s);
  let waiting = plans;
  let time = start;
  let last = start;
  while (waiting.length > 0 || running.size > 0) {
    const left: number[] = [];
    for (let k = 0; k < waiting.length; k++) {
      const i = waiting[k]!;
      if (free.size === 0) {
        // No slot left: the rest wait as they are (scanning them was most of a large wave's time).
        for (let j = k; j < waiting.length; j++) left.push(waiting[j]!);
        break;
      }
      if (busy[i]! > 0) {
        left.push(i);
        continue;
      }
      const slot = free.pop()!;
      end.set(i, time + duration(i));
      slotOf.set(i, slot);
      running.push(i);
      for (const c of conflicts[i]!) busy[c]!++;
      out.push({ plan: graph.ids[i]!, start: time, end: end.get(i)!, slot });
    }
    waiting = left;
    const first = running.pop();
    if (first === undefined) break;
    time = end.get(first)!;
    last = Math.max(last, time);
    const done = [first];
    for (let next = running.pop(); next !== undefined; next = running.pop()) {
      if (end.get(next) !== time) {
        running.push(next);
        break;
      }
      done.push(next);
    }
    for (const i of done) {
      free.push(slotOf.get(i)!);
      for (const c of conflicts[i]!) busy[c]!--;
    }
  }
  return last;
}
