import { comparePhaseIds, type GsdPlanKey } from './import-path.js';

/**
 * harness ids for GSD's phases and plans. harness numbers phases and plans with whole
 * numbers (`03-02`); GSD also inserts phases (`02.1`) and splits plans (`02A`, `02B`). Each
 * one keeps its number when it can; one that cannot (an inserted phase, a split plan, and what
 * follows them) takes the next free number, in GSD's own order, so that the order GSD meant
 * is the order harness reads. The same tree always gives the same ids.
 */

/** GSD phase id ("02", "02.1") → harness phase id ("02", "03"). */
export function phaseIds(gsdIds: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  // Some GSD projects start at phase 00.
  let last = -1;
  for (const id of [...new Set(gsdIds)].sort(comparePhaseIds)) {
    const [whole, decimal] = id.split('.');
    const wanted = decimal === undefined ? Number(whole) : last + 1;
    last = Math.max(last + 1, wanted);
    out.set(id, pad(last));
  }
  return out;
}

export interface PlanSlot {
  /** The GSD file it comes from; two files may share a key. */
  path: string;
  key: GsdPlanKey;
}

/** Each plan file of one phase → its harness plan number ("01"), in GSD's order (02 < 02A < 02B < 03). */
export function planNumbers(slots: readonly PlanSlot[]): Map<string, string> {
  const sorted = [...slots].sort(
    (a, b) => a.key.number - b.key.number || a.key.letter.localeCompare(b.key.letter) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  );
  const out = new Map<string, string>();
  let last = -1;
  for (const slot of sorted) {
    last = Math.max(last + 1, slot.key.number);
    out.set(slot.path, pad(last));
  }
  return out;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
