/**
 * The priority search and the durations it works on: whatever priorities a rule or the
 * search produces, the schedule keeps dependencies, slots and conflicts; the search never
 * does worse than the plain rule; estimates follow what similar plans took.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { globsOverlap } from '../../../../app/engine/core/graph/glob.js';
import { expectedDurations } from '../../../../app/engine/core/schedule/expected-durations.js';
import type { SchedulePlan, ScheduleSpec } from '../../../../app/engine/core/schedule/layout.js';
import { searchPriority } from '../../../../app/engine/core/schedule/priority-search.js';
import { runSchedule, type ScheduleRun } from '../../../../app/engine/core/schedule/run-schedule.js';
import { Scheduler } from '../../../../app/engine/core/schedule/scheduler.js';

const FILES = ['src/a.ts', 'src/b.ts', 'src/*.ts', 'src/**', 'lib/x.js', 'docs/a.md'];

const specArb = fc
  .array(
    fc.record({
      deps: fc.array(fc.nat(), { maxLength: 3 }),
      files: fc.subarray(FILES, { maxLength: 2 }),
      minutes: fc.integer({ min: 1, max: 40 }),
      priority: fc.double({ min: -100, max: 100, noNaN: true }),
    }),
    { minLength: 1, maxLength: 20 },
  )
  .map((gen) => {
    const plans: SchedulePlan[] = gen.map((g, i) => ({
      id: `01-${String(i + 1).padStart(2, '0')}`,
      phase: '01',
      dependsOn: i === 0 ? [] : [...new Set(g.deps.map((d) => `01-${String((d % i) + 1).padStart(2, '0')}`))],
      filesModified: g.files,
    }));
    const spec: ScheduleSpec = { phases: [{ id: '01', plans: plans.map((p) => p.id) }], plans };
    return { spec, minutes: gen.map((g) => g.minutes), priority: gen.map((g) => g.priority) };
  });

function expectValid(spec: ScheduleSpec, minutes: number[], slots: number, run: ScheduleRun): void {
  const at = new Map(run.schedule.map((e) => [e.plan, e]));
  expect(at.size).toBe(spec.plans.length);
  spec.plans.forEach((p, i) => {
    const e = at.get(p.id)!;
    expect(e.end - e.start).toBe(minutes[i]);
    for (const d of p.dependsOn) expect(e.start).toBeGreaterThanOrEqual(at.get(d)!.end);
  });
  for (const a of run.schedule) {
    const together = run.schedule.filter((b) => b.start <= a.start && b.end > a.start);
    expect(together.length).toBeLessThanOrEqual(slots);
    expect(new Set(together.map((b) => b.slot)).size).toBe(together.length);
    for (const b of together) {
      if (b === a) continue;
      const pa = spec.plans.find((p) => p.id === a.plan)!;
      const pb = spec.plans.find((p) => p.id === b.plan)!;
      expect(
        pa.filesModified.some((x) => pb.filesModified.some((y) => globsOverlap(x, y))),
        `${a.plan} and ${b.plan} overlap`,
      ).toBe(false);
    }
  }
}

describe('priorities', () => {
  it('any priorities at all keep every schedule valid: dependencies, slots, conflicts', () => {
    fc.assert(
      fc.property(specArb, fc.integer({ min: 1, max: 5 }), ({ spec, minutes, priority }, slots) => {
        const index = new Map(spec.plans.map((p, i) => [p.id, i]));
        const s = new Scheduler(spec, { duration: (id) => minutes[index.get(id)!]!, priority: (id) => priority[index.get(id)!]! });
        expectValid(
          spec,
          minutes,
          slots,
          runSchedule(s, slots, (i) => minutes[i]!),
        );
      }),
      { numRuns: 150 },
    );
  });

  it('the search keeps schedules valid and never ends later than the plain conflict-aware rule', () => {
    fc.assert(
      fc.property(specArb, fc.integer({ min: 1, max: 5 }), ({ spec, minutes }, slots) => {
        const index = new Map(spec.plans.map((p, i) => [p.id, i]));
        const duration = (id: string) => minutes[index.get(id)!]!;
        const plain = runSchedule(new Scheduler(spec, { duration }), slots, (i) => minutes[i]!);
        const found = searchPriority(spec, { slots, duration, budget: 2_000 });
        const run = runSchedule(
          new Scheduler(spec, { duration, priority: (id) => found.priority.get(id)!, ...(found.sequence ? { sequence: found.sequence } : {}) }),
          slots,
          (i) => minutes[i]!,
        );
        expectValid(spec, minutes, slots, run);
        expect(run.makespan).toBe(found.makespan);
        expect(run.makespan).toBeLessThanOrEqual(plain.makespan);
      }),
      { numRuns: 60 },
    );
  });

  it('the search is deterministic: the same spec and durations, the same priorities', () => {
    const plans: SchedulePlan[] = Array.from({ length: 12 }, (_, i) => ({
      id: `01-${String(i + 1).padStart(2, '0')}`,
      phase: '01',
      dependsOn: i > 2 ? [`01-0${(i % 3) + 1}`] : [],
      filesModified: [i % 2 ? 'src/a.ts' : `src/m${i}.ts`],
    }));
    const spec = { phases: [{ id: '01', plans: plans.map((p) => p.id) }], plans };
    const duration = (id: string) => Number(id.slice(3)) * 3;
    expect(searchPriority(spec, { slots: 3, duration })).toEqual(searchPriority(spec, { slots: 3, duration }));
  });
});

describe('expectedDurations', () => {
  const plan = (id: string, phase: string, files: string[], timeoutMinutes = 60) => ({ id, phase, filesModified: files, timeoutMinutes });

  it('is the timeout when nothing has finished, and a finished plan its own measured time', () => {
    const plans = [plan('01-01', '01', ['src/a.ts'], 30), plan('01-02', '01', ['src/b.ts'], 45)];
    expect(expectedDurations(plans, new Map())).toEqual(
      new Map([
        ['01-01', 30],
        ['01-02', 45],
      ]),
    );
    expect(expectedDurations(plans, new Map([['01-01', 12]])).get('01-01')).toBe(12);
  });

  it('scales a timeout by the share similar plans used: same directory first, then the phase, then any', () => {
    const plans = [
      plan('01-01', '01', ['src/auth/login.ts']),
      plan('01-02', '01', ['src/auth/**']),
      plan('01-03', '01', ['src/billing/pay.ts']),
      plan('02-01', '02', ['docs/a.md'], 40),
      plan('02-02', '02', ['lib/x.ts'], 40),
    ];
    // 01-01 used 15 of 60 minutes (a quarter); 01-03 used 45 (three quarters); 02-01 used 20 of 40.
    const got = expectedDurations(
      plans,
      new Map([
        ['01-01', 15],
        ['01-03', 45],
        ['02-01', 20],
      ]),
    );
    expect(got.get('01-02')).toBe(15); // src/auth like 01-01
    expect(got.get('02-02')).toBe(20); // no shared directory: its phase, half of 40
    const other = expectedDurations(
      [...plans, plan('03-01', '03', ['etc/z.conf'], 100)],
      new Map([
        ['01-01', 15],
        ['01-03', 45],
        ['02-01', 20],
      ]),
    );
    expect(other.get('03-01')).toBe(50); // no directory, no phase: the median share of all, 0.5
  });
});
