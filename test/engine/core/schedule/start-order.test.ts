/**
 * Start orders: when a search finds that keeping a slot or a file free for a plan about to
 * be ready ends the spec sooner, the Scheduler dispatches plans in that order. Whatever the
 * order, schedules stay valid and a run never stalls on a person or a failure; with the
 * durations the search assumed, the dispatched schedule is the one it found.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SchedulePlan, ScheduleSpec } from '../../../../app/engine/core/schedule/layout.js';
import { searchPriority } from '../../../../app/engine/core/schedule/priority-search.js';
import { runSchedule } from '../../../../app/engine/core/schedule/run-schedule.js';
import { Scheduler } from '../../../../app/engine/core/schedule/scheduler.js';
import { listByKey, serialSchedule } from '../../../../app/engine/core/schedule/serial-schedule.js';
import { simulate } from '../../../../app/engine/core/schedule/simulate.js';

const plan = (id: string, dependsOn: string[], files: string[]): SchedulePlan => ({ id, phase: '01', dependsOn, filesModified: files });
const specOf = (plans: SchedulePlan[]): ScheduleSpec => ({ phases: [{ id: '01', plans: plans.map((p) => p.id) }], plans });

/**
 * Two slots. 01-01 (1 min) unlocks 01-03 (10 min), which unlocks 01-04 (20 min); 01-02
 * (10 min) is ready at once and writes the file 01-03 writes. Starting what is ready puts
 * 01-02 on src/x.ts at 0 and the chain behind 01-03 waits for it.
 */
const contended = specOf([
  plan('01-01', [], ['src/a.ts']),
  plan('01-02', [], ['src/x.ts']),
  plan('01-03', ['01-01'], ['src/x.ts']),
  plan('01-04', ['01-03'], ['src/y.ts']),
]);
const contendedMinutes: Record<string, number> = { '01-01': 1, '01-02': 10, '01-03': 10, '01-04': 20 };

describe('start orders', () => {
  it('hold a file for the plan about to be ready when that ends the spec sooner than starting what is ready', () => {
    const duration = (id: string) => contendedMinutes[id]!;
    const greedy = runSchedule(new Scheduler(contended, { duration }), 2, (i) => duration(contended.plans[i]!.id));
    // Greedy: 01-02 takes x.ts at 0, 01-03 waits for it until 10, 01-04 ends at 40.
    expect(greedy.makespan).toBe(40);
    const s = simulate(contended, { slots: 2, durations: contendedMinutes });
    // Kept for 01-03: it runs 1–11, 01-04 11–31, 01-02 after 01-03 on the free slot (11–21).
    expect(s.makespan).toBe(31);
    expect(s.priority).toBe('start order search');
    expect(s.schedule.find((e) => e.plan === '01-02')!.start).toBe(11);
  });

  it('pass over a plan whose file is held by a plan waiting for a person: nothing stalls on a checkpoint', () => {
    const scheduler = new Scheduler(contended, { sequence: ['01-01', '01-03', '01-04', '01-02'] });
    // 01-02 is at a checkpoint holding x.ts; 01-01 verified: 01-03 is ready but x.ts is held.
    const state = scheduler.state({ plans: { '01-01': 'verified', '01-02': 'checkpoint' } });
    expect(scheduler.pick(state, 2)).toEqual([]);
    // The same, but 01-02 running (it will end on its own): 01-03 keeps its place.
    const running = scheduler.state({ plans: { '01-01': 'verified', '01-02': 'running' } });
    expect(scheduler.pick(running, 2)).toEqual([]);
  });

  it('hold for a plan about to be ready, and pass over one waiting on a person or a failure', () => {
    const plans = specOf([
      plan('01-01', [], ['src/a.ts']),
      plan('01-02', ['01-01'], ['src/b.ts']),
      plan('01-03', [], ['src/c.ts']),
      plan('01-04', [], ['src/d.ts']),
    ]);
    const scheduler = new Scheduler(plans, { sequence: ['01-01', '01-02', '01-03', '01-04'] });
    // 01-01 running: 01-02 is about to be ready, so 01-03 and 01-04 wait behind it.
    expect(scheduler.pick(scheduler.state({ plans: { '01-01': 'running' } }), 3)).toEqual([]);
    // 01-01 at a checkpoint: 01-02 waits on a person and holds nothing.
    expect(scheduler.pick(scheduler.state({ plans: { '01-01': 'checkpoint' } }), 3)).toEqual(['01-03', '01-04']);
    // 01-01 failed: 01-02 will never be ready.
    expect(scheduler.pick(scheduler.state({ plans: { '01-01': 'failed' } }), 3)).toEqual(['01-03', '01-04']);
    // A run limited to some plans (--plan) passes over the others.
    expect(scheduler.pick(scheduler.state(), 3, (id) => id !== '01-01')).toEqual(['01-03', '01-04']);
  });

  it('any order at all keeps schedules valid and every plan started, even one listing dependants first', () => {
    const arb = fc
      .array(fc.record({ deps: fc.array(fc.nat(), { maxLength: 2 }), file: fc.integer({ min: 0, max: 4 }), minutes: fc.integer({ min: 1, max: 30 }) }), {
        minLength: 1,
        maxLength: 16,
      })
      .chain((gen) =>
        fc.tuple(
          fc.constant(gen),
          fc.shuffledSubarray(
            gen.map((_, i) => i),
            { minLength: gen.length, maxLength: gen.length },
          ),
          fc.integer({ min: 1, max: 4 }),
        ),
      );
    fc.assert(
      fc.property(arb, ([gen, perm, slots]) => {
        const id = (i: number) => `01-${String(i + 1).padStart(2, '0')}`;
        const spec = specOf(gen.map((g, i) => plan(id(i), i === 0 ? [] : [...new Set(g.deps.map((d) => id(d % i)))], [`src/f${g.file}.ts`])));
        const run = runSchedule(new Scheduler(spec, { sequence: perm.map(id) }), slots, (i) => gen[i]!.minutes);
        const at = new Map(run.schedule.map((e) => [e.plan, e]));
        expect(at.size).toBe(gen.length);
        spec.plans.forEach((p, i) => {
          for (const d of p.dependsOn) expect(at.get(p.id)!.start).toBeGreaterThanOrEqual(at.get(d)!.end);
          for (const q of run.schedule) {
            if (q.plan === p.id || spec.plans.find((o) => o.id === q.plan)!.filesModified[0] !== p.filesModified[0]) continue;
            const e = at.get(p.id)!;
            expect(q.end <= e.start || q.start >= e.end, `${p.id} and ${q.plan} write one file at once`).toBe(true);
          }
          void i;
        });
        for (const a of run.schedule) expect(run.schedule.filter((b) => b.start <= a.start && b.end > a.start).length).toBeLessThanOrEqual(slots);
      }),
      { numRuns: 150 },
    );
  });

  it('with the durations the search assumed, dispatching in its order gives the makespan it reported', () => {
    const plans = Array.from({ length: 14 }, (_, i) =>
      plan(`01-${String(i + 1).padStart(2, '0')}`, i > 1 ? [`01-${String(i - 1).padStart(2, '0')}`] : [], [i % 3 === 0 ? 'src/hot.ts' : `src/m${i}.ts`]),
    );
    const spec = specOf(plans);
    const duration = (id: string) => ((Number(id.slice(3)) * 7) % 11) + 2;
    const found = searchPriority(spec, { slots: 2, duration });
    const run = runSchedule(
      new Scheduler(spec, { duration, priority: (id) => found.priority.get(id)!, ...(found.sequence ? { sequence: found.sequence } : {}) }),
      2,
      (i) => duration(plans[i]!.id),
    );
    expect(run.makespan).toBe(found.makespan);
  });

  it('the serial scheme places a plan in a gap before plans placed earlier', () => {
    const spec = specOf([plan('01-01', [], ['src/a.ts']), plan('01-02', ['01-01'], ['src/b.ts']), plan('01-03', [], ['src/c.ts'])]);
    const scheduler = new Scheduler(spec);
    const minutes = [5, 5, 3];
    // 01-01 and 01-02 on one slot's worth of time; 01-03 listed last still starts at 0 on the other.
    const s = serialSchedule(scheduler.layout, 2, (i) => minutes[i]!, listByKey(scheduler.layout, [3, 2, 1]));
    expect([...s.starts]).toEqual([0, 5, 0]);
    expect(s.makespan).toBe(10);
  });
});
