import { describe, expect, it } from 'vitest';
import { capsDecision, dayReopensAt, DAY_MS, spentOnSpec, spentToday, type SpendRecord } from '../../../../app/engine/core/run/spend-caps.js';
import { parseConfig } from '../../../../app/engine/core/config/parse.js';

const t0 = new Date('2026-12-05T00:00:00Z').getTime();
const at = (hours: number) => new Date(t0 + hours * 60 * 60 * 1000);
const rec = (spec: string, plan: string, costUsd: number, hours: number): SpendRecord => ({ spec, plan, costUsd, at: at(hours) });

describe('the rolling 24-hour window', () => {
  const records = [rec('a', '01-01', 20, 0), rec('b', '01-01', 15, 6), rec('a', '01-02', 15, 12)];

  it('sums every spec spent in the 24 hours before now', () => {
    expect(spentToday(records, at(12))).toBe(50);
  });

  it('drops a record once it is exactly 24 hours old', () => {
    expect(spentToday(records, new Date(t0 + DAY_MS - 1))).toBe(50);
    expect(spentToday(records, new Date(t0 + DAY_MS))).toBe(30);
  });

  it('does not count a record later than now', () => {
    expect(spentToday(records, at(5))).toBe(20);
  });

  it('reopens when the oldest spend that keeps the day at the cap leaves the window', () => {
    expect(dayReopensAt(records, at(12), 50)?.toISOString()).toBe(at(24).toISOString());
    // Under a cap of 30, the first two records must both leave: 35 then 15 is the first under 30.
    expect(dayReopensAt(records, at(12), 30)?.toISOString()).toBe(at(30).toISOString());
  });

  it('sums one spec whenever it spent', () => {
    expect(spentOnSpec(records, 'a')).toBe(35);
    expect(spentOnSpec(records, 'b')).toBe(15);
  });
});

describe('whether a new plan may start', () => {
  const records = [rec('a', '01-01', 20, 0), rec('b', '01-01', 15, 6), rec('a', '01-02', 15, 12)];

  it('is open with no caps', () => {
    expect(capsDecision(undefined, records, 'a', at(12))).toEqual({ open: true, dayUsd: 50, specUsd: 35 });
  });

  it('holds every spec at the day cap and says when it reopens and what to change', () => {
    const d = capsDecision({ per_day_usd: 50 }, records, 'b', at(12));
    expect(d).toMatchObject({ open: false, cap: 'per_day_usd', capUsd: 50, spentUsd: 50, reopensAt: at(24) });
    expect(d.open || d.message).toBe(
      'the repository has spent $50.00 in the last 24 hours, at its cap of $50.00 (budget.per_day_usd in .github/harness.yml): no new plan starts until 2026-12-06T00:00:00.000Z, or raise budget.per_day_usd to go on now',
    );
  });

  it('opens again once the oldest spend leaves the window, with nothing else changed', () => {
    expect(capsDecision({ per_day_usd: 50 }, records, 'b', new Date(at(24).getTime() - 1)).open).toBe(false);
    expect(capsDecision({ per_day_usd: 50 }, records, 'b', at(24)).open).toBe(true);
  });

  it('opens again when the cap is raised above the spend', () => {
    expect(capsDecision({ per_day_usd: 50.01 }, records, 'b', at(12)).open).toBe(true);
  });

  it('holds only the spec at its cap, never reopening by time', () => {
    const caps = { per_spec_usd: 35 };
    expect(capsDecision(caps, records, 'a', at(100))).toMatchObject({ open: false, cap: 'per_spec_usd', spentUsd: 35 });
    expect(capsDecision(caps, records, 'a', at(100)).open || 'reopensAt' in capsDecision(caps, records, 'a', at(100))).toBe(false);
    expect(capsDecision(caps, records, 'b', at(12)).open).toBe(true);
  });
});

describe('budget in .github/harness.yml', () => {
  it('reads per_day_usd and per_spec_usd', () => {
    expect(parseConfig('budget:\n  per_day_usd: 50\n  per_spec_usd: 400\n').config?.budget).toEqual({ per_day_usd: 50, per_spec_usd: 400 });
  });

  it('names the file, the line and the fix for a cap that is not a positive number', () => {
    const { problems } = parseConfig('slots: 2\nbudget:\n  per_day_usd: -5\n');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: '.github/harness.yml', line: 3 });
    expect(problems[0]!.message).toBe('budget.per_day_usd is the number -5; it must be a number of US dollars above 0, such as 50');
  });

  it('names a misspelt cap', () => {
    const { problems } = parseConfig('budget:\n  per_day: 50\n');
    expect(problems[0]).toMatchObject({ file: '.github/harness.yml', line: 2 });
    expect(problems[0]!.message).toBe('unknown key "per_day" in budget; use one of per_day_usd, per_spec_usd');
  });
});
