import { describe, expect, it } from 'vitest';
import type { Signal } from '../../../../app/engine/knowledge/documents/schema.js';
import { holdoutReport, planRecords, RETIRE_AFTER, verdictOf } from '../../../../app/engine/knowledge/holdout/comparison.js';
import { holdoutText } from '../../../../app/engine/knowledge/holdout/report-text.js';
import type { AttemptTrial, PlanOutcome } from '../../../../app/engine/knowledge/signals/plan-outcome.js';

const L = 'lessons/testing/sqlite-busy.lesson.md';
const S = 'skills/seed-before-tests/SKILL.md';
const G = 'genes/gene-20260301-0a1b2c3d.gene.md';

let clock = Date.parse('2026-04-01T09:00:00Z');
function signal(s: Omit<Signal, 'severity' | 'project' | 'timestamp' | 'tags'> & { project?: string }): Signal {
  clock += 60_000;
  return { severity: 'low', project: 'app', timestamp: new Date(clock).toISOString(), tags: [], ...s };
}

function completion(spec: string, phase: string, outcomes: PlanOutcome[]): Signal {
  return signal({ type: 'completion', spec, phase, metadata: { plans: outcomes.length, outcomes } });
}

function failed(spec: string, plan: string, attempt: number, trial: AttemptTrial | undefined, type: 'struggle' | 'stuck' | 'timeout' = 'struggle'): Signal {
  return signal({ type, spec, phase: plan.slice(0, 2), plan, metadata: { attempt, outcome: 'failed', failure: 'checks:tests', ...(trial ? { trial } : {}) } });
}

function outcome(plan: string, attempts: number, cost: number | undefined, knowledge: string[], heldOut = false): PlanOutcome {
  return { plan, held_out: heldOut, attempts, first_pass: attempts === 1, ...(cost === undefined ? {} : { cost_usd: cost }), knowledge };
}

/**
 * A store by hand. With knowledge: SPC-001 01-01..01-04 verified (01-03 after one failure, with G
 * only in the brief of its retry), SPC-002 01-02 failed once and not passed yet. Held out:
 * SPC-001 01-05 (first time) and 01-06 (third time; its second attempt timed out and was stuck),
 * SPC-002 01-01 failing twice, its first attempt without a cost. Around them: an older completion
 * of phase 01, a failure from before the holdout (no trial), a use signal.
 */
function store(): Signal[] {
  return [
    completion('SPC-001', '01', [outcome('01-01', 2, 9, [])]),
    failed('SPC-001', '01-03', 1, { held_out: false, cost_usd: 0.1, knowledge: [L] }),
    failed('SPC-001', '01-06', 1, { held_out: true, cost_usd: 0.2, knowledge: [] }),
    failed('SPC-001', '01-06', 2, { held_out: true, cost_usd: 0.3, knowledge: [] }, 'timeout'),
    failed('SPC-001', '01-06', 2, { held_out: true, cost_usd: 0.3, knowledge: [] }, 'stuck'),
    completion('SPC-001', '01', [
      outcome('01-01', 1, 0.2, [L]),
      outcome('01-02', 1, 0.3, [L, S]),
      outcome('01-03', 2, 0.25, [L, G]),
      outcome('01-04', 1, 0.4, []),
      outcome('01-05', 1, 0.5, [], true),
      outcome('01-06', 3, 0.1, [], true),
    ]),
    failed('SPC-002', '01-01', 1, { held_out: true, knowledge: [] }),
    failed('SPC-002', '01-01', 2, { held_out: true, cost_usd: 0.1, knowledge: [] }),
    failed('SPC-002', '01-02', 1, { held_out: false, cost_usd: 0.05, knowledge: [S] }),
    failed('SPC-002', '01-03', 1, undefined),
    signal({ type: 'use', spec: 'SPC-001', phase: '01', plan: '01-01', metadata: { attempt: 1, entries: [L] } }),
  ];
}

describe('the plans the holdout comparison counts', () => {
  it('one record per plan: the newest completion, its failed attempts, their costs summed, the first brief', () => {
    const records = planRecords(store());
    expect(records.map((r) => [r.spec, r.plan, r.heldOut, r.verified, r.firstPass, r.attempts, r.costUsd, r.knowledge])).toEqual([
      ['SPC-001', '01-01', false, true, true, 1, 0.2, [L]],
      ['SPC-001', '01-02', false, true, true, 1, 0.3, [L, S]],
      ['SPC-001', '01-03', false, true, false, 2, 0.35, [L]],
      ['SPC-001', '01-04', false, true, true, 1, 0.4, []],
      ['SPC-001', '01-05', true, true, true, 1, 0.5, []],
      ['SPC-001', '01-06', true, true, false, 3, 0.6, []],
      // Never passed: counted by its failures, with no cost (its first attempt reported none).
      ['SPC-002', '01-01', true, false, false, 2, undefined, []],
      ['SPC-002', '01-02', false, false, false, 1, 0.05, [S]],
    ]);
  });
});

describe('the holdout report', () => {
  it('gives each group its figures and each difference its 95% interval (Newcombe, Welch), overall, per spec and per item', () => {
    const report = holdoutReport(store());
    expect(report.plans).toBe(8);
    const { overall } = report;
    expect(overall.withKnowledge).toEqual({ plans: 5, firstPass: 3, passRate: 0.6, meanAttempts: 1.2, costed: 5, meanCostUsd: expect.closeTo(0.26, 12) });
    expect(overall.heldOut).toEqual({ plans: 3, firstPass: 1, passRate: 1 / 3, meanAttempts: 2, costed: 2, meanCostUsd: expect.closeTo(0.55, 12) });
    // python3 with scipy 1.17: Newcombe (3/5 against 1/3) 0.266667 (-0.322445 to 0.658631).
    expect(overall.passRate!.estimate).toBeCloseTo(0.266667, 5);
    expect(overall.passRate!.low).toBeCloseTo(-0.322, 3);
    expect(overall.passRate!.high).toBeCloseTo(0.659, 3);
    // Welch: attempts [1,1,2,1,1] against [1,3,2]: -0.8 (-2.990 to 1.390); cost [0.2,0.3,0.35,0.4,0.05] against [0.5,0.6]: -0.29 (-0.510 to -0.070).
    expect(overall.attempts!.estimate).toBeCloseTo(-0.8, 9);
    expect(overall.attempts!.low).toBeCloseTo(-2.99, 3);
    expect(overall.attempts!.high).toBeCloseTo(1.39, 3);
    expect(overall.costUsd!.estimate).toBeCloseTo(-0.29, 9);
    expect(overall.costUsd!.low).toBeCloseTo(-0.51, 3);
    expect(overall.costUsd!.high).toBeCloseTo(-0.07, 3);
    expect(overall.verdict).toBe('too-few');
    expect(overall.says).toBe('3 held-out plans: too few to tell; the interval is −0.32 to +0.66');

    expect(report.specs.map((s) => [s.spec, s.withKnowledge.plans, s.heldOut.plans, s.passRate!.low, s.passRate!.high])).toEqual([
      ['SPC-001', 4, 2, expect.closeTo(-0.355, 3), expect.closeTo(0.704, 3)],
      ['SPC-002', 1, 1, expect.closeTo(-0.793, 3), expect.closeTo(0.793, 3)],
    ]);
    // G was only in the brief of 01-03's retry: the comparison is of first attempts.
    expect(report.items.map((i) => [i.kind, i.path, i.withKnowledge.plans, i.withKnowledge.firstPass, i.passRate!.low, i.passRate!.high])).toEqual([
      ['lesson', L, 3, 2, expect.closeTo(-0.316, 3), expect.closeTo(0.718, 3)],
      ['skill', S, 2, 1, expect.closeTo(-0.446, 3), expect.closeTo(0.655, 3)],
    ]);
    expect(report.retire).toEqual([]);
  });

  it('counts a held-out plan as held out: not with the plans offered knowledge', () => {
    const only = holdoutReport([
      completion('SPC-001', '01', [outcome('01-01', 1, undefined, [], true), outcome('01-02', 2, undefined, [], true), outcome('01-03', 2, undefined, [L])]),
    ]);
    expect(only.overall.heldOut).toMatchObject({ plans: 2, firstPass: 1 });
    expect(only.overall.withKnowledge).toMatchObject({ plans: 1, firstPass: 0 });
  });

  it('says plainly what its interval allows: a clear difference either way, none to tell, or too few plans', () => {
    expect(verdictOf({ estimate: 0.2, low: 0.05, high: 0.31 }, { subject: 80, heldOut: 20 })).toEqual({
      verdict: 'helps',
      says: 'plans with knowledge passed on their first attempt more often: +0.20 in first-attempt pass rate (95% interval +0.05 to +0.31)',
    });
    expect(verdictOf({ estimate: -0.2, low: -0.3, high: -0.02 }, { subject: 80, heldOut: 20 }).verdict).toBe('hurts');
    expect(verdictOf({ estimate: 0.01, low: -0.04, high: 0.06 }, { subject: 800, heldOut: 200 })).toEqual({
      verdict: 'no-difference',
      says: 'no difference to tell: the interval is −0.04 to +0.06, within 0.1 of none',
    });
    expect(verdictOf({ estimate: 0.07, low: -0.31, high: 0.45 }, { subject: 40, heldOut: 12 }).says).toBe(
      '12 held-out plans: too few to tell; the interval is −0.31 to +0.45',
    );
    expect(verdictOf(undefined, { subject: 3, heldOut: 0 })).toEqual({
      verdict: 'no-comparison',
      says: 'no held-out plans on record yet: nothing to compare with',
    });
  });

  it('proposes an item for retirement only past RETIRE_AFTER plans, and only when the interval says its plans did no better', () => {
    expect(RETIRE_AFTER).toBe(10);
    const held = Array.from({ length: 10 }, (_, i) => outcome(`09-${String(i + 1).padStart(2, '0')}`, i === 0 ? 2 : 1, undefined, [], true));
    const plans = (prefix: string, item: string, n: number, passed: number) =>
      Array.from({ length: n }, (_, i) => outcome(`${prefix}-${String(i + 1).padStart(2, '0')}`, i < passed ? 1 : 2, undefined, [item]));
    const worse = 'lessons/a/four-of-ten.lesson.md';
    const even = 'lessons/a/five-of-ten.lesson.md';
    const few = 'skills/none-of-nine/SKILL.md';
    const report = holdoutReport([
      completion('SPC-009', '09', held),
      // 4 of 10 against 9 of 10: -0.5 (-0.746 to -0.082): retired.
      completion('SPC-001', '01', plans('01', worse, 10, 4)),
      // 5 of 10: -0.4 (-0.676 to +0.002): the interval reaches above zero, kept.
      completion('SPC-002', '02', plans('02', even, 10, 5)),
      // 0 of 9: -0.9 (-0.982 to -0.473), but in fewer than 10 plans: kept.
      completion('SPC-003', '03', plans('03', few, 9, 0)),
    ]);
    const byPath = new Map(report.items.map((i) => [i.path, i]));
    expect(byPath.get(worse)!.passRate!.high).toBeCloseTo(-0.082, 3);
    expect(byPath.get(even)!.passRate!.high).toBeCloseTo(0.002, 3);
    expect(byPath.get(few)!.passRate!.high).toBeCloseTo(-0.473, 3);
    expect(report.retire).toEqual([
      {
        path: worse,
        kind: 'lesson',
        reason:
          'surfaced into 10 plans, of which 4 passed on their first attempt (40%), against 9 of 10 held-out plans (90%): the difference is −0.50 (95% interval −0.75 to −0.08), so the plans it was in did no better without it',
      },
    ]);
    // One plan more, passing at once, and the nine-plan skill qualifies too.
    const more = holdoutReport([
      completion('SPC-009', '09', held),
      completion('SPC-003', '03', [...plans('03', few, 9, 0), outcome('03-10', 1, undefined, [few])]),
    ]);
    expect(more.retire.map((r) => r.path)).toEqual([few]);
  });

  it('writes the report as text', () => {
    const text = holdoutText(holdoutReport(store()), { fraction: 0.3, seed: 'harness' });
    expect(text).toBe(
      [
        'The holdout (knowledge.holdout 0.3, seed "harness"): 8 plans on record, 3 held out.',
        '',
        '                  plans  first-attempt pass  mean attempts  mean cost',
        '  with knowledge      5  3 (60%)             1.20           $0.26',
        '  held out            3  1 (33%)             2.00           $0.55 (2 of them)',
        '  difference             +0.27 (−0.32 to +0.66) −0.80 (−2.99 to +1.39) −$0.29 (−$0.51 to −$0.07)',
        '  3 held-out plans: too few to tell; the interval is −0.32 to +0.66.',
        '',
        'Per spec:',
        '  SPC-001: 4 with knowledge (75% first time), 2 held out (50%); 2 held-out plans: too few to tell; the interval is −0.36 to +0.70',
        '  SPC-002: 1 with knowledge (0% first time), 1 held out (0%); 1 held-out plan: too few to tell; the interval is −0.79 to +0.79',
        '',
        'Per piece of knowledge (the plans it was in the first brief of, against the 3 held-out plans):',
        `  lesson ${L}: 3 plans, 2 passed first time (67%); 3 held-out plans: too few to tell; the interval is −0.32 to +0.72`,
        `  skill ${S}: 2 plans, 1 passed first time (50%); 2 plans with it: too few to tell; the interval is −0.45 to +0.65`,
        '',
      ].join('\n'),
    );
    expect(holdoutText(holdoutReport([]), { fraction: 0, seed: 'harness' })).toBe(
      'The holdout (knowledge.holdout 0, off): 0 plans on record, 0 held out.\n  Turn it on with knowledge.holdout in .github/harness.yml (docs/knowledge.md, The holdout).\n',
    );
  });
});
