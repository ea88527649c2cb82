import { compareEntries, type ScheduleEntry } from './entry.js';
import type { ScheduleSpec } from './layout.js';
import { fileBound } from './lower-bound.js';
import { searchPriority, type PrioritySearch } from './priority-search.js';
import { runSchedule } from './run-schedule.js';
import { Scheduler } from './scheduler.js';
import { waveRun } from './wave-run.js';

export const DEFAULT_SLOTS = 4;
/** Minutes of a plan the durations do not mention. */
export const DEFAULT_MINUTES = 1;

export interface SimulateOptions {
  slots?: number;
  /** Minutes per plan id; missing plans take DEFAULT_MINUTES. */
  durations?: Readonly<Record<string, number>>;
  /** How much the priority search may simulate (see searchPriority). */
  budget?: number;
}

export interface Simulation {
  slots: number;
  /** When the last plan ends, the first starting at 0. */
  makespan: number;
  /** max(criticalPath, totalWork / slots): no schedule on these slots can end sooner. */
  lowerBound: number;
  /**
   * The lower bound that sees write conflicts too: also at least the work of the plans
   * that all write one file (busiestFile), which run one after another.
   */
  conflictLowerBound: number;
  /** The file (or glob) whose writers carry the most work, when two plans or more write one. */
  busiestFile: { file: string; plans: number; work: number } | null;
  criticalPath: number;
  totalWork: number;
  /** GSD's wave-based execution of the same input (see waveRun). */
  waveMakespan: number;
  /** Which priorities gave this schedule: a rule, or what the search improved it with. */
  priority: PrioritySearch['found'];
  /** One entry per plan, by start then slot. */
  schedule: ScheduleEntry[];
}

/**
 * A discrete-event run of the real Scheduler (runSchedule): every plan takes exactly its
 * duration and passes verification. The durations are known here, so the priorities are
 * the best a bounded search finds (searchPriority), as a run given the same estimates
 * would use. Phase verification and research take no slot here: the first gates nothing
 * while it passes, the second only ever uses idle slots.
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

  // One layout for the search and the run it chose: laying out a spec of thousands of overlapping plans takes seconds.
  const laid = new Scheduler(spec, { duration: minutes }).layout;
  const search = searchPriority(spec, { slots, duration: minutes, budget: options.budget, layout: laid });
  const scheduler = new Scheduler(spec, {
    from: {
      layout: laid,
      priority: Float64Array.from(laid.graph.ids, (id) => search.priority.get(id)!),
      ...(search.sequence ? { sequence: search.sequence.map((id) => laid.graph.index.get(id)!) } : {}),
    },
  });
  const { layout } = scheduler;
  const ids = layout.graph.ids;
  // By index, looked up once: the schedules ask for a plan's minutes on every conflict they weigh.
  const byIndex = Float64Array.from(ids, (id) => minutes(id));
  const weight = (i: number) => byIndex[i]!;
  const { makespan, schedule } = runSchedule(scheduler, slots, weight);

  const totalWork = spec.plans.reduce((sum, p) => sum + minutes(p.id), 0);
  const criticalPath = layout.criticalPath;
  const waves = waveRun(layout, slots, weight);
  const file = fileBound(layout.writes, weight);
  return {
    slots,
    makespan,
    lowerBound: Math.max(criticalPath, totalWork / slots),
    conflictLowerBound: Math.max(criticalPath, totalWork / slots, file?.work ?? 0),
    busiestFile: file ? { file: file.file, plans: file.plans, work: file.work } : null,
    criticalPath,
    totalWork,
    waveMakespan: waves.makespan,
    priority: search.found,
    schedule: schedule.sort(compareEntries),
  };
}
