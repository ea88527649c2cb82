/**
 * The repository's spend caps (`budget:` in .github/harness.yml): `per_day_usd` over a rolling
 * 24 hours and `per_spec_usd` over one spec's plans, summed from the costs the workers record
 * (a plan's result, with when it finished). At a cap no new plan starts; a plan already running
 * is never stopped by it. Pure: the caller gives the records and the time.
 */

export const DAY_MS = 24 * 60 * 60 * 1000;

/** Where the caps are set, as people are told to look for them. */
export const CAPS_SOURCE = 'budget in .github/harness.yml';

export interface SpendCaps {
  per_day_usd?: number;
  per_spec_usd?: number;
}

/** One plan's recorded cost: which spec, which plan, how much, and when it was spent (the plan's finish). */
export interface SpendRecord {
  spec: string;
  plan: string;
  costUsd: number;
  at: Date;
}

export type CapsDecision =
  | { open: true; dayUsd: number; specUsd: number }
  | {
      open: false;
      cap: 'per_day_usd' | 'per_spec_usd';
      capUsd: number;
      spentUsd: number;
      /** When the day window next frees enough to go under the cap; undefined for the spec cap (only a raise frees it). */
      reopensAt?: Date;
      message: string;
    };

const usd = (n: number) => `$${n.toFixed(2)}`;
const cents = (n: number) => Math.round(n * 100) / 100;

/** What the repository has spent in the 24 hours before `now` (a record exactly 24 hours old has left the window). */
export function spentToday(records: readonly SpendRecord[], now: Date): number {
  const from = now.getTime() - DAY_MS;
  let sum = 0;
  for (const r of records) if (r.at.getTime() > from && r.at.getTime() <= now.getTime()) sum += r.costUsd;
  return cents(sum);
}

/** What one spec's plans have spent, whenever. */
export function spentOnSpec(records: readonly SpendRecord[], spec: string): number {
  let sum = 0;
  for (const r of records) if (r.spec === spec) sum += r.costUsd;
  return cents(sum);
}

/**
 * The moment the day's spend falls under `capUsd` again with no new spend: the oldest records
 * leave the window, in order, until what is left is under the cap.
 */
export function dayReopensAt(records: readonly SpendRecord[], now: Date, capUsd: number): Date | undefined {
  const from = now.getTime() - DAY_MS;
  const inWindow = records.filter((r) => r.at.getTime() > from && r.at.getTime() <= now.getTime()).sort((a, b) => a.at.getTime() - b.at.getTime());
  let left = inWindow.reduce((s, r) => s + r.costUsd, 0);
  if (cents(left) < capUsd) return undefined;
  for (const r of inWindow) {
    left -= r.costUsd;
    if (cents(left) < capUsd) return new Date(r.at.getTime() + DAY_MS);
  }
  return undefined;
}

/** May a new plan of `spec` start at `now`? The day cap is checked first: it holds every spec. */
export function capsDecision(caps: SpendCaps | undefined, records: readonly SpendRecord[], spec: string, now: Date): CapsDecision {
  const dayUsd = spentToday(records, now);
  const specUsd = spentOnSpec(records, spec);
  const day = caps?.per_day_usd;
  if (day !== undefined && dayUsd >= day) {
    const reopensAt = dayReopensAt(records, now, day);
    return {
      open: false,
      cap: 'per_day_usd',
      capUsd: day,
      spentUsd: dayUsd,
      ...(reopensAt ? { reopensAt } : {}),
      message: `the repository has spent ${usd(dayUsd)} in the last 24 hours, at its cap of ${usd(day)} (budget.per_day_usd in .github/harness.yml): no new plan starts until ${reopensAt ? reopensAt.toISOString() : 'the window frees'}, or raise budget.per_day_usd to go on now`,
    };
  }
  const perSpec = caps?.per_spec_usd;
  if (perSpec !== undefined && specUsd >= perSpec) {
    return {
      open: false,
      cap: 'per_spec_usd',
      capUsd: perSpec,
      spentUsd: specUsd,
      message: `spec ${spec} has spent ${usd(specUsd)}, at its cap of ${usd(perSpec)} (budget.per_spec_usd in .github/harness.yml): no new plan of it starts; raise budget.per_spec_usd to go on`,
    };
  }
  return { open: true, dayUsd, specUsd };
}
