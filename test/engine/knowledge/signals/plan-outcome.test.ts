import { describe, expect, it } from 'vitest';
import type { SignalDraft } from '../../../../app/engine/knowledge/documents/loop.js';
import { attemptOfSignals, readOutcomes, readTrial, recordTrial, summaryOutcome, withOutcomes } from '../../../../app/engine/knowledge/signals/plan-outcome.js';

function draft(type: SignalDraft['type'], metadata: Record<string, unknown>): SignalDraft {
  return { type, severity: 'medium', spec: 'SPC-001', phase: '01', plan: '01-02', tags: [], happened: 'x', context: '', cause: '', metadata };
}

describe("the holdout comparison's record in the signals", () => {
  it("puts a failed attempt's trial on its failure signals alone, when its agent read a brief", () => {
    const drafts = [
      draft('struggle', { attempt: 2, outcome: 'failed' }),
      draft('stuck', { attempt: 2, outcome: 'failed' }),
      draft('deviation', { attempt: 2 }),
      draft('struggle', { attempt: 2, reason: 'tool-errors' }),
    ];
    const recorded = recordTrial(drafts, { heldOut: true, knowledge: [], costUsd: 0.12 });
    expect(recorded.map((d) => d.metadata?.trial)).toEqual([
      { held_out: true, cost_usd: 0.12, knowledge: [] },
      { held_out: true, cost_usd: 0.12, knowledge: [] },
      undefined,
      undefined,
    ]);
    expect(recordTrial(drafts, { heldOut: false, knowledge: [{ path: 'lessons/a/b.lesson.md' }] })[0]!.metadata?.trial).toEqual({
      held_out: false,
      knowledge: ['lessons/a/b.lesson.md'],
    });
    // The script agent reads no brief: no trial, and no part of the comparison.
    expect(recordTrial(drafts, { heldOut: true }).map((d) => d.metadata?.trial)).toEqual([undefined, undefined, undefined, undefined]);
    expect(readTrial(recorded[0]!.metadata)).toEqual({ held_out: true, cost_usd: 0.12, knowledge: [] });
    expect(readTrial({ trial: { held_out: 'yes', knowledge: [] } })).toBeUndefined();
    expect(readTrial({ trial: { held_out: false, knowledge: [], cost_usd: -1 } })).toBeUndefined();
  });

  it('adds the outcomes to a completion signal under their own key, and reads them back', () => {
    const completion = draft('completion', { plans: 2, attempts: 3, profiles: { '01-01': {} } });
    expect(withOutcomes(completion, [])).toBe(completion);
    const outcomes = [
      { plan: '01-01', held_out: false, attempts: 1, first_pass: true, cost_usd: 0.2, knowledge: ['lessons/a/b.lesson.md'] },
      { plan: '01-02', held_out: true, attempts: 2, first_pass: false, knowledge: [] },
    ];
    const filed = withOutcomes(completion, outcomes);
    expect(filed.metadata).toEqual({ plans: 2, attempts: 3, profiles: { '01-01': {} }, outcomes });
    expect(readOutcomes(filed.metadata)).toEqual(outcomes);
    expect(readOutcomes({ outcomes: [{ plan: '01-03', held_out: true, attempts: 0, first_pass: true, knowledge: [] }, 'x'] })).toEqual([]);
  });

  it("reads a verified plan's outcome from its SUMMARY.md frontmatter; a script plan's is none", () => {
    const data = {
      plan_id: '01-02',
      status: 'verified',
      agent: 'claude',
      attempts: 2,
      cost: { usd: 0.4, turns: 3 },
      knowledge: [{ path: 'skills/x/SKILL.md', kind: 'skill', score: 3 }],
      held_out: true,
    };
    expect(summaryOutcome('01-02', data)).toEqual({
      plan: '01-02',
      held_out: true,
      attempts: 2,
      first_pass: false,
      cost_usd: 0.4,
      knowledge: ['skills/x/SKILL.md'],
    });
    expect(summaryOutcome('01-02', { ...data, held_out: undefined, attempts: 1, cost: undefined })).toEqual({
      plan: '01-02',
      held_out: false,
      attempts: 1,
      first_pass: true,
      knowledge: ['skills/x/SKILL.md'],
    });
    expect(summaryOutcome('01-02', { ...data, agent: 'script' })).toBeUndefined();
    expect(summaryOutcome('01-02', { ...data, status: 'failed' })).toBeUndefined();
  });

  it("takes an attempt's number from its signals, 1 when it filed none", () => {
    expect(attemptOfSignals([])).toBe(1);
    expect(attemptOfSignals([draft('use', { attempt: 3 }), draft('repair', { attempt: 3 })])).toBe(3);
  });
});
