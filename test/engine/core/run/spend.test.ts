import { describe, expect, it } from 'vitest';
import { addUsage, spendJson, spendMarkdown, spendOf, type PlanUse } from '../../../../app/engine/core/run/spend.js';
import { loadSpec } from '../../../../app/engine/core/spec/load.js';
import { specOf } from '../../../helpers/spec.js';

/**
 * Where the money went (engine/core/run/spend.ts): what the agents reported, over every attempt,
 * added up per phase, per engine and for the spec, the costliest plans first; a figure nobody
 * reported stays unknown, never zero.
 */

const spec = loadSpec(specOf([{ id: '01-01' }, { id: '01-02' }, { id: '02-01', dependsOn: ['01-01'] }, { id: '02-02', dependsOn: ['01-02'] }])).spec!;

const uses = new Map<string, PlanUse>([
  ['01-01', { usage: { costUsd: 0.4, turns: 10, inputTokens: 9000, outputTokens: 800 }, attempts: 1, engines: ['claude'] }],
  ['01-02', { usage: { costUsd: 1.25, turns: 30, inputTokens: 40000, outputTokens: 3000 }, attempts: 2, engines: ['claude'] }],
  // Codex reports tokens, no cost (no price configured): its dollars are unknown, not nothing.
  ['02-01', { usage: { turns: 7, inputTokens: 12000, outputTokens: 500 }, attempts: 1, engines: ['codex'] }],
]);

describe('spend: what the agents reported they used', () => {
  it('adds figures either side reported and leaves unknown what neither did', () => {
    expect(addUsage({ costUsd: 0.1, turns: 2 }, { turns: 3, inputTokens: 100 })).toEqual({ costUsd: 0.1, turns: 5, inputTokens: 100 });
    expect(addUsage(undefined, undefined)).toEqual({});
  });

  it('totals the spec, each phase and each engine, and ranks the plans by cost then tokens', () => {
    const spend = spendOf(spec, uses)!;
    expect(spend.total).toEqual({ costUsd: 1.65, turns: 47, inputTokens: 61000, outputTokens: 4300, plans: 3, attempts: 4 });
    expect(spend.phases).toEqual([
      { phase: '01', costUsd: 1.65, turns: 40, inputTokens: 49000, outputTokens: 3800, plans: 2, attempts: 3 },
      { phase: '02', turns: 7, inputTokens: 12000, outputTokens: 500, plans: 1, attempts: 1 },
    ]);
    expect(spend.engines.map((e) => [e.engine, e.costUsd, e.plans])).toEqual([
      ['claude', 1.65, 2],
      ['codex', undefined, 1],
    ]);
    expect(spend.plans.map((p) => p.plan)).toEqual(['01-02', '01-01', '02-01']);
  });

  it('names every engine of a plan a fallback took over, and counts it under the one that ended it', () => {
    const spend = spendOf(spec, new Map([['01-01', { usage: { costUsd: 0.3 }, attempts: 1, engines: ['claude', 'codex'] }]]))!;
    expect(spend.plans[0]).toMatchObject({ plan: '01-01', engine: 'claude → codex' });
    expect(spend.engines.map((e) => e.engine)).toEqual(['codex']);
  });

  it('is nothing at all when no agent reported anything (the script agent)', () => {
    expect(spendOf(spec, new Map())).toBeUndefined();
    expect(spendMarkdown(undefined)).toBe('No agent has reported what it used yet.');
    expect(spendJson(undefined)).toBeNull();
  });

  it('as Markdown: the total, a table by phase and by engine, and the costliest plans, with unknown figures as dashes', () => {
    const text = spendMarkdown(spendOf(spec, uses), 2);
    expect(text).toContain('**$1.65** in all over 3 plans and 4 attempts, as the agents reported it.');
    expect(text).toContain('| 01 | $1.65 | 40 | 49,000 | 3,800 | 3 |');
    expect(text).toContain('| codex | — | 7 | 12,000 | 500 | 1 |');
    expect(text).toContain('The costliest plans (2 of 3):');
    expect(text).toContain('| 01-02 | claude | $1.25 | 30 | 40,000 | 3,000 | 2 |');
    expect(text).not.toContain('| 02-01 | codex |');
  });

  it('as JSON for harness status: the same figures, null where unknown', () => {
    const json = spendJson(spendOf(spec, uses)) as { total: unknown; plans: { plan: string; costUsd: number | null }[] };
    expect(json.total).toEqual({ costUsd: 1.65, turns: 47, inputTokens: 61000, outputTokens: 4300, plans: 3, attempts: 4 });
    expect(json.plans.at(-1)).toEqual({
      plan: '02-01',
      phase: '02',
      engine: 'codex',
      costUsd: null,
      turns: 7,
      inputTokens: 12000,
      outputTokens: 500,
      plans: 1,
      attempts: 1,
    });
  });
});
