/**
 * `simulate` drives the real scheduler through time; `harness simulate` shows it. These
 * pin a hand-computed example, the rules every schedule must keep (also on generated
 * specs), and the command's output and errors.
 */
import fc from 'fast-check';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { globsOverlap } from '../../../../app/engine/core/graph/glob.js';
import type { ScheduleEntry } from '../../../../app/engine/core/schedule/entry.js';
import type { SchedulePlan, ScheduleSpec } from '../../../../app/engine/core/schedule/layout.js';
import { simulate, type Simulation } from '../../../../app/engine/core/schedule/simulate.js';
import { loadSpec } from '../../../../app/engine/core/spec/load.js';
import { runCli, tempDir, writeTree } from '../../../helpers/cli.js';
import { planMd, planPath, SPEC_MD, specOf, type PlanOptions } from '../../../helpers/spec.js';

/**
 * Two slots. Phase 01: 01-01 (4 min), 01-02 (1), 01-03 (2, after 01-02).
 * Phase 02: 02-01 (3), 02-02 (1, after 01-01).
 *
 * Critical path 01-01 → 02-02 = 5; work 11 over 2 slots = 5.5, so the bound is 5.5.
 * The scheduler: at 0, 01-01 (path 5) and 01-02 (3, before 02-01 by plan order); at 1,
 * 02-01; at 4, 01-03 (2) and 02-02 (1). Ends at 6 (work 11 in whole minutes on 2 slots
 * cannot end sooner).
 * Waves: phase 01 wave 1 {01-01, 01-02} 0–4, wave 2 {01-03} 4–6; phase 02 wave 1
 * {02-01, 02-02} (02-02's dependency is in another phase) 6–9. Ends at 9.
 */
const EXAMPLE: PlanOptions[] = [
  { id: '01-01' },
  { id: '01-02' },
  { id: '01-03', dependsOn: ['01-02'] },
  { id: '02-01' },
  { id: '02-02', dependsOn: ['01-01'] },
];
const EXAMPLE_MINUTES = { '01-01': 4, '01-02': 1, '01-03': 2, '02-01': 3, '02-02': 1 };
const EXAMPLE_SCHEDULE: ScheduleEntry[] = [
  { plan: '01-01', start: 0, end: 4, slot: 1 },
  { plan: '01-02', start: 0, end: 1, slot: 2 },
  { plan: '02-01', start: 1, end: 4, slot: 2 },
  { plan: '01-03', start: 4, end: 6, slot: 1 },
  { plan: '02-02', start: 4, end: 5, slot: 2 },
];

function loaded(plans: PlanOptions[]) {
  const result = loadSpec(specOf(plans));
  expect(result.valid).toBe(true);
  return result.spec!;
}

/** Every rule a schedule of `spec` on `slots` slots must keep. */
function checkSchedule(spec: ScheduleSpec, durations: Record<string, number>, slots: number, r: Simulation): void {
  const byPlan = new Map(r.schedule.map((e) => [e.plan, e]));
  // Every plan exactly once, for exactly its duration.
  expect(r.schedule).toHaveLength(spec.plans.length);
  expect(byPlan.size).toBe(spec.plans.length);
  for (const p of spec.plans) {
    const e = byPlan.get(p.id)!;
    expect(e.end - e.start).toBeCloseTo(durations[p.id] ?? 1, 9);
    // After every dependency has ended.
    for (const d of p.dependsOn) expect(e.start).toBeGreaterThanOrEqual(byPlan.get(d)!.end);
    expect(e.slot).toBeGreaterThanOrEqual(1);
    expect(e.slot).toBeLessThanOrEqual(slots);
  }
  const overlap = (a: ScheduleEntry, b: ScheduleEntry) => a.start < b.end && b.start < a.end;
  for (let i = 0; i < r.schedule.length; i++) {
    for (let j = i + 1; j < r.schedule.length; j++) {
      const a = r.schedule[i]!;
      const b = r.schedule[j]!;
      if (!overlap(a, b)) continue;
      // One plan per slot at a time, and never two writers of a common file.
      expect(a.slot).not.toBe(b.slot);
      const pa = spec.plans.find((p) => p.id === a.plan)!;
      const pb = spec.plans.find((p) => p.id === b.plan)!;
      const clash = pa.filesModified.some((x) => pb.filesModified.some((y) => globsOverlap(x, y)));
      expect(clash, `${a.plan} and ${b.plan} write a common file but overlap in time`).toBe(false);
    }
  }
  expect(r.makespan).toBe(Math.max(0, ...r.schedule.map((e) => e.end)));
  expect(r.makespan).toBeGreaterThanOrEqual(r.lowerBound - 1e-9);
  expect(r.makespan).toBeGreaterThanOrEqual(r.conflictLowerBound - 1e-9);
  expect(r.waveMakespan).toBeGreaterThanOrEqual(r.lowerBound - 1e-9);
}

describe('simulate', () => {
  it('computes the hand-worked example exactly', () => {
    const r = simulate(loaded(EXAMPLE), { slots: 2, durations: EXAMPLE_MINUTES });
    expect(r).toEqual({
      slots: 2,
      makespan: 6,
      lowerBound: 5.5,
      conflictLowerBound: 5.5,
      busiestFile: null,
      criticalPath: 5,
      totalWork: 11,
      waveMakespan: 9,
      priority: 'conflict-aware',
      schedule: EXAMPLE_SCHEDULE,
    });
  });

  it('gives one minute to plans the durations leave out, and uses 4 slots unless told', () => {
    // Waves: 01-01 … 01-05 take two rounds of the 4 slots, then 01-06; the scheduler starts
    // 01-01 first and runs 01-06 beside 01-05.
    const plans: PlanOptions[] = ['01', '02', '03', '04', '05'].map((k) => ({ id: `01-${k}` }));
    const r = simulate(loaded([...plans, { id: '01-06', dependsOn: ['01-01'] }]));
    expect(r.slots).toBe(4);
    expect(r).toMatchObject({ makespan: 2, lowerBound: 2, criticalPath: 2, totalWork: 6, waveMakespan: 3 });
  });

  it('reports a lower bound that sees the work of the plans that all write one file', () => {
    // Three writers of src/shared.ts, 3 + 4 + 5 minutes: 12 whatever the slots, while the
    // plain bound reads max(path 5, 14 / 4).
    const plans: PlanOptions[] = [
      { id: '01-01', filesModified: ['src/shared.ts'] },
      { id: '01-02', filesModified: ['src/**'] },
      { id: '01-03', filesModified: ['src/shared.ts', 'src/a.ts'] },
      { id: '01-04', filesModified: ['lib/b.ts'] },
    ];
    const durations = { '01-01': 3, '01-02': 4, '01-03': 5, '01-04': 2 };
    const spec = loaded(plans);
    const r = simulate(spec, { slots: 4, durations });
    checkSchedule(spec, durations, 4, r);
    expect(r.lowerBound).toBe(5);
    expect(r.conflictLowerBound).toBe(12);
    expect(r.busiestFile).toEqual({ file: 'src/shared.ts', plans: 3, work: 12 });
    expect(r.makespan).toBe(12);
  });

  it('never runs plans that write a common file at the same time', () => {
    const plans: PlanOptions[] = [
      { id: '01-01', filesModified: ['src/shared/**'] },
      { id: '01-02', filesModified: ['src/shared/a.ts'] },
      { id: '01-03', filesModified: ['src/shared/{a,b}.ts'] },
      { id: '01-04', filesModified: ['src/other.ts'] },
      { id: '01-05', filesModified: ['src/shared/b.ts'], extra: 'files_read: ["src/other.ts"]' },
    ];
    const durations = { '01-01': 3, '01-02': 2, '01-03': 1, '01-04': 5, '01-05': 2 };
    const spec = loaded(plans);
    const r = simulate(spec, { slots: 4, durations });
    checkSchedule(spec, durations, 4, r);
    // 01-02 and 01-05 touch different files: they may share time; 01-01 and 01-03 run alone among the writers.
    expect(r.makespan).toBe(6);
  });

  it('keeps every plan once, within the slots, on a wider spec', () => {
    const plans: PlanOptions[] = [];
    for (let k = 1; k <= 12; k++) plans.push({ id: `01-${String(k).padStart(2, '0')}`, dependsOn: k > 3 ? [`01-${String(k - 3).padStart(2, '0')}`] : [] });
    const durations = Object.fromEntries(plans.map((p, k) => [p.id, (k % 5) + 1]));
    const spec = loaded(plans);
    for (const slots of [1, 2, 3, 5]) checkSchedule(spec, durations, slots, simulate(spec, { slots, durations }));
  });

  it('rejects bad slots and durations', () => {
    const spec = loaded([{ id: '01-01' }]);
    expect(() => simulate(spec, { slots: 0 })).toThrow(/slots must be a positive integer/);
    expect(() => simulate(spec, { durations: { '01-01': -1 } })).toThrow(/duration of 01-01/);
  });

  it('keeps dependencies, slots and conflicts, and never beats the lower bound, on generated specs', () => {
    const FILES = ['src/a.ts', 'src/b.ts', 'src/*.ts', 'src/**', 'lib/{x,y}.js', 'lib/x.js', 'docs/**/*.md', 'docs/a.md', 'test/a.test.ts'];
    const planArb = fc.record({
      phaseGap: fc.integer({ min: 0, max: 2 }),
      deps: fc.array(fc.nat(), { maxLength: 3 }),
      files: fc.subarray(FILES, { maxLength: 2 }),
      minutes: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.double({ min: 0, max: 10, noNaN: true })),
    });
    fc.assert(
      fc.property(fc.array(planArb, { minLength: 1, maxLength: 25 }), fc.integer({ min: 1, max: 6 }), (gen, slots) => {
        // Phases grow by phaseGap between plans (0: same phase); dependencies point backwards.
        const plans: SchedulePlan[] = [];
        const durations: Record<string, number> = {};
        let phase = 1;
        let number = 0;
        gen.forEach((g, i) => {
          if (i > 0 && g.phaseGap > 0) {
            phase += 1;
            number = 0;
          }
          const id = `${String(phase).padStart(2, '0')}-${String(++number).padStart(2, '0')}`;
          const deps = i === 0 ? [] : [...new Set(g.deps.map((d) => plans[d % i]!.id))];
          plans.push({ id, phase: id.slice(0, 2), dependsOn: deps, filesModified: g.files.length ? g.files : [`own/${id}.ts`] });
          durations[id] = g.minutes;
        });
        const phases = [...new Set(plans.map((p) => p.phase))].map((id) => ({ id, plans: plans.filter((p) => p.phase === id).map((p) => p.id) }));
        const spec: ScheduleSpec = { phases, plans };
        checkSchedule(spec, durations, slots, simulate(spec, { slots, durations }));
      }),
      { numRuns: 300 },
    );
  });
});

describe('harness simulate', () => {
  let dir: string;
  let broken: string;

  beforeAll(async () => {
    dir = await tempDir();
    const files: Record<string, string> = { 'spec/SPEC.md': SPEC_MD };
    for (const p of EXAMPLE) files[`spec/${planPath(p.id)}`] = planMd(p);
    files['minutes.json'] = JSON.stringify(EXAMPLE_MINUTES);
    files['bad.json'] = '{"01-01": 4,';
    files['list.json'] = '[4, 1]';
    files['negative.json'] = '{"01-01": -2}';
    files['text.json'] = '{"01-01": "4m"}';
    files['unknown.json'] = '{"01-10": 4}';
    await writeTree(dir, files);
    broken = join(dir, 'broken');
    await writeTree(broken, { 'SPEC.md': SPEC_MD, [planPath('01-01')]: planMd({ id: '01-01', dependsOn: ['01-09'] }) });
  });

  it('prints the stable JSON report with --json', async () => {
    const r = await runCli(['simulate', 'spec', '--slots', '2', '--durations', 'minutes.json', '--json'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      spec: 'SPC-042',
      slots: 2,
      makespan: 6,
      lowerBound: 5.5,
      conflictLowerBound: 5.5,
      busiestFile: null,
      criticalPath: 5,
      totalWork: 11,
      waveMakespan: 9,
      priority: 'conflict-aware',
      schedule: EXAMPLE_SCHEDULE,
    });
  });

  it('prints the three figures and a timeline per slot', async () => {
    const r = await runCli(['simulate', 'spec', '--slots', '2', '--durations', 'minutes.json'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'SPC-042: 5 plans on 2 slots',
        '  makespan      6 min',
        '  lower bound 5.5 min  (critical path 5, work 11 over 2 slots)',
        '  wave-based    9 min  (this schedule is 33% shorter)',
        '',
        'slot 1  01-01 0–4 · 01-03 4–6',
        'slot 2  01-02 0–1 · 02-01 1–4 · 02-02 4–5',
        '',
      ].join('\n'),
    );
  });

  it('prints the bound write conflicts set when it is above the plain one', async () => {
    const root = await tempDir();
    await writeTree(root, {
      'spec/SPEC.md': SPEC_MD,
      [`spec/${planPath('01-01')}`]: planMd({ id: '01-01', filesModified: ['src/shared.ts'] }),
      [`spec/${planPath('01-02')}`]: planMd({ id: '01-02', filesModified: ['src/shared.ts'] }),
      [`spec/${planPath('01-03')}`]: planMd({ id: '01-03', filesModified: ['src/other.ts'] }),
    });
    const r = await runCli(['simulate', 'spec', '--slots', '3'], root);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      '  lower bound    1 min  (critical path 1, work 3 over 3 slots)\n  with conflicts 2 min  (2 plans write src/shared.ts: 2 one after another)\n',
    );
  });

  it('exits 1 and prints the problems when the spec has errors (with --json, as a JSON error on stdout)', async () => {
    const plain = await runCli(['simulate', broken]);
    expect(plain.code).toBe(1);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toContain('01-01-PLAN.md:4: depends_on "01-09" is not a plan in this spec');
    expect(plain.stderr).toContain('has 1 error that keeps its graph from being read; fix it first');
    // The issue: with --json, stdout was empty on error; a script reading it now gets JSON.
    const r = await runCli(['simulate', broken, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error.problems[0].message).toBe('depends_on "01-09" is not a plan in this spec');
  });

  it.each([
    [['--slots', '0'], '--slots must be a whole number from 1 to 10,000, not "0"'],
    [['--slots', 'four'], '--slots must be a whole number from 1 to 10,000, not "four"'],
    [['--slots', '2.5'], '--slots must be a whole number from 1 to 10,000, not "2.5"'],
    [['--durations', 'missing.json'], '--durations missing.json: cannot read it: no such file'],
    [['--durations', 'bad.json'], '--durations bad.json: not valid JSON'],
    [['--durations', 'list.json'], '--durations list.json: must be a JSON object from plan id to minutes'],
    [['--durations', 'negative.json'], '--durations negative.json: "01-01" must be a number of minutes >= 0, not -2'],
    [['--durations', 'text.json'], '--durations text.json: "01-01" must be a number of minutes >= 0, not "4m"'],
    [['--durations', 'unknown.json'], '--durations unknown.json: "01-10" is not a plan of SPC-042; did you mean "01-01"?'],
    [['--bogus'], 'unknown option --bogus; the options are --slots, --durations, --json, -h, --help'],
  ])('exits 2 on usage errors: %j', async (args, message) => {
    const r = await runCli(['simulate', 'spec', ...args], dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`harness simulate: ${message}`);
    expect(r.stderr).toContain('Usage: harness simulate <spec-dir>');
  });

  it('exits 2 without a spec directory', async () => {
    const r = await runCli(['simulate'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('missing <spec-dir>');
  });
});
