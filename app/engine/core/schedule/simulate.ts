import { MinHeap } from '../graph/heap.js';
import { compareEntries, type ScheduleEntry } from './entry.js';
import type { ScheduleSpec } from './layout.js';
import { Scheduler } from './scheduler.js';
import { waveRun } from './wave-run.js';

export const DEFAULT_SLOTS = 4;
/** Minutes of a plan the durations do not mention. */
export const DEFAULT_MINUTES = 1;

export interface SimulateOptions {
  slots?: number;
  /** Minutes per plan id; missing plans take DEFAULT_MINUTES. */
  durations?: Readonly<Record<string, number>>;
}

export interface Simulation {
  slots: number;
  /** When the last plan ends, the first starting at 0. */
  makespan: number;
  /** max(criticalPath, totalWork / slots): no schedule on these slots can end sooner. */
  lowerBound: number;
  criticalPath: number;
  totalWork: number;
  /** GSD's wave-based execution of the same input (see waveRun). */
  waveMakespan: number;
  /** One entry per plan, by start then slot. */
  schedule: ScheduleEntry[];
}

/**
 * A discrete-event run of the real Scheduler: every plan takes exactly its duration and
 * passes verification, and at each moment some plan ends the scheduler is asked again
 * with the slots that are free. Phase verification and research take no slot here: the
 * first gates nothing while it passes, the second only ever uses idle slots.
 */
export function simulate(spec: ScheduleSpec, options: SimulateOptions = {}): Simulation {
  const slots = options.slots ?? DEFAULT_SLOTS;
  if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`slots must be a positive integer, not ${slots}`);
  const durations = options.durations ?? {};
  const minutes = (id: string): number => (Object.hasOwn(durations, id) ? durations[id]! : DEFAULT_MINUTES);
  for (const plan of spec.plans) {
    const m = minutes(plan.id);
    if (!Number.isFinite(m) || m < 0) throw new RangeError(`duration of ${plan.id} must be a number of minutes >= 0, not ${m}`);
  }

  const scheduler = new Scheduler(spec, { duration: minutes });
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
      end[i] = time + minutes(id);
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

  const totalWork = spec.plans.reduce((sum, p) => sum + minutes(p.id), 0);
  const criticalPath = layout.criticalPath;
  const waves = waveRun(layout, slots, (i) => minutes(ids[i]!));
  return {
    slots,
    makespan: time,
    lowerBound: Math.max(criticalPath, totalWork / slots),
    criticalPath,
    totalWork,
    waveMakespan: waves.makespan,
    schedule: schedule.sort(compareEntries),
  };
}
