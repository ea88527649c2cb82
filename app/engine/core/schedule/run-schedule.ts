import { MinHeap } from '../graph/heap.js';
import type { ScheduleEntry } from './entry.js';
import type { Scheduler } from './scheduler.js';

export interface ScheduleRun {
  makespan: number;
  /** In the order plans started. */
  schedule: ScheduleEntry[];
}

/**
 * A discrete-event run of a Scheduler: every plan takes exactly `minutes(i)` and passes
 * verification, and at each moment some plan ends the scheduler is asked again with the
 * slots that are free. Throws when plans can never start (a dependency cycle).
 */
export function runSchedule(scheduler: Scheduler, slots: number, minutes: (i: number) => number): ScheduleRun {
  const { layout } = scheduler;
  const ids = layout.graph.ids;
  const state = scheduler.state();
  const end = new Float64Array(ids.length);
  const slotOf = new Int32Array(ids.length);
  const running = new MinHeap((a, b) => end[a]! < end[b]! || (end[a] === end[b] && a < b));
  const free = new MinHeap();
  for (let s = 1; s <= slots; s++) free.push(s);

  const schedule: ScheduleEntry[] = [];
  let time = 0;
  for (;;) {
    for (const id of scheduler.pick(state, free.size)) {
      const i = layout.graph.index.get(id)!;
      slotOf[i] = free.pop()!;
      end[i] = time + minutes(i);
      state.setPlan(id, 'running');
      running.push(i);
      schedule.push({ plan: id, start: time, end: end[i]!, slot: slotOf[i]! });
    }
    const first = running.pop();
    if (first === undefined) break;
    time = end[first]!;
    // Every plan ending now is done before the next pick, so that the pick sees them all.
    const done = [first];
    for (let next = running.pop(); next !== undefined; next = running.pop()) {
      if (end[next]! > time) {
        running.push(next);
        break;
      }
      done.push(next);
    }
    for (const i of done) {
      state.setPlan(ids[i]!, 'verified');
      free.push(slotOf[i]!);
    }
  }
  if (schedule.length < ids.length) {
    throw new Error(`${ids.length - schedule.length} plans could never start: they are on or behind a dependency cycle`);
  }
  return { makespan: time, schedule };
}
