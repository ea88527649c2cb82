/** One plan in a simulated schedule: it holds slot `slot` (1-based) from `start` to `end`. */
export interface ScheduleEntry {
  plan: string;
  start: number;
  end: number;
  slot: number;
}

/** Entries as a timeline reads them: by start, then slot. */
export function compareEntries(a: ScheduleEntry, b: ScheduleEntry): number {
  return a.start - b.start || a.slot - b.slot;
}
