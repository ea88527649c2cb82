import { describe, expect, it } from 'vitest';
import type { Plan } from '../../app/engine/core/spec/model.js';
import type { RunContext } from '../../app/runner/context.js';
import { budgetedAgent, repositorySpend, SpecBudgetSpentError } from '../../app/runner/spend.js';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClaudeAgent } from '../../app/agents/claude.js';

/** Only what budgetedAgent reads of a run: the spec's id, the config's budget and the run's cost records. */
function ctx(budgetUsd: number | undefined, costs: [string, number][]): RunContext {
  return {
    spec: { id: 'SPC-001' },
    options: { ...(budgetUsd === undefined ? {} : { budgetUsd }), agents: {} },
    state: { costs: new Map(costs) },
  } as unknown as RunContext;
}
const plan = { id: '01-02', budgetUsd: 3 } as Plan;

describe('a local plan’s agent and the spec budget', () => {
  it('refuses to start once the run’s records show the spec budget spent', async () => {
    const agent = budgetedAgent(ctx(1, [['01-01', 1.2]]), plan, 'claude');
    await expect(agent.run({} as never)).rejects.toThrow(SpecBudgetSpentError);
    await expect(agent.run({} as never)).rejects.toThrow('spec SPC-001 has spent $1.20 of its budget of $1.00');
  });

  it('gives claude what is left of it, with the plan’s own budget', () => {
    const agent = budgetedAgent(ctx(2, [['01-01', 1.2]]), plan, 'claude') as ClaudeAgent;
    expect(agent).toBeInstanceOf(ClaudeAgent);
    expect((agent as unknown as { options: { spendLimit: unknown } }).options.spendLimit).toEqual({
      plan: '01-02',
      planUsd: 3,
      spec: { id: 'SPC-001', budgetUsd: 2, spentUsd: 1.2 },
    });
  });

  it('holds every CLI agent to it, gemini too (a local gemini plan once ran past its budget_usd)', () => {
    const limit = { plan: '01-02', planUsd: 3, spec: { id: 'SPC-001', budgetUsd: 2, spentUsd: 1.2 } };
    for (const name of ['claude', 'codex', 'copilot', 'gemini']) {
      const agent = budgetedAgent(ctx(2, [['01-01', 1.2]]), plan, name) as unknown as { options: { spendLimit: unknown } };
      expect(agent.options.spendLimit, name).toEqual(limit);
    }
  });

  it('starts no new plan once the spec is at budget.per_spec_usd, saying what to raise', async () => {
    const c = ctx(undefined, [
      ['01-01', 250],
      ['01-03', 150],
    ]);
    c.options.perSpecUsd = 400;
    const agent = budgetedAgent(c, plan, 'claude');
    await expect(agent.run({} as never)).rejects.toThrow(
      new SpecBudgetSpentError(
        "spec SPC-001 has spent $400.00, at its cap of $400.00 (budget.per_spec_usd in .github/harness.yml): no new plan of it starts; raise budget.per_spec_usd to go on (plan 01-02's agent was not started)",
      ),
    );
  });

  it('still starts a plan under budget.per_spec_usd, not counting the plan’s own earlier cost', () => {
    const c = ctx(undefined, [
      ['01-01', 250],
      ['01-02', 200],
    ]);
    c.options.perSpecUsd = 400;
    expect(budgetedAgent(c, plan, 'claude')).toBeInstanceOf(ClaudeAgent);
  });

  it("starts no plan's agent once the repository's local runs, of every spec, spent budget.per_day_usd in 24 hours; a run older than that no longer counts", async () => {
    const root = mkdtempSync(join(tmpdir(), 'harness-day-cap-'));
    const now = new Date('2026-12-05T12:00:00Z');
    const result = (spec: string, id: string, costUsd: number, finishedAt: string) => {
      mkdirSync(join(root, '.orchestration', spec, 'sessions', id), { recursive: true });
      writeFileSync(
        join(root, '.orchestration', spec, 'sessions', id, 'result.json'),
        JSON.stringify({ plan: id, outcome: 'verified', startedAt: finishedAt, finishedAt, usage: { costUsd }, spent: { costUsd } }),
      );
    };
    result('SPC-002', '01-01', 30, '2026-12-05T08:00:00Z');
    result('SPC-001', '01-01', 25, '2026-12-05T10:00:00Z');
    // A day and more ago: out of the window.
    result('SPC-003', '01-01', 500, '2026-12-04T11:00:00Z');
    writeFileSync(join(root, '.orchestration', 'not-json'), 'x');
    const c = { ...ctx(undefined, []), repo: { root }, now: () => now } as unknown as RunContext;
    c.options.perDayUsd = 50;

    await expect(budgetedAgent(c, plan, 'claude').run({} as never)).rejects.toThrow(
      new SpecBudgetSpentError(
        "the repository has spent $55.00 in the last 24 hours, at its cap of $50.00 (budget.per_day_usd in .github/harness.yml): no new plan starts until 2026-12-06T08:00:00.000Z, or raise budget.per_day_usd to go on now (plan 01-02's agent was not started)",
      ),
    );
    expect(await repositorySpend(root)).toHaveLength(3);
    c.options.perDayUsd = 60;
    // Under the cap: the agent itself runs (here it fails on the empty context it was given, past the cap's check).
    await expect(budgetedAgent(c, plan, 'claude').run({} as never)).rejects.not.toThrow(SpecBudgetSpentError);
  });
});
