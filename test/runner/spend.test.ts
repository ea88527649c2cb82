import { describe, expect, it } from 'vitest';
import type { Plan } from '../../app/engine/core/spec/model.js';
import type { RunContext } from '../../app/runner/context.js';
import { budgetedAgent, SpecBudgetSpentError } from '../../app/runner/spend.js';
import { ClaudeAgent } from '../../app/agents/claude.js';

/** Only what budgetedAgent reads of a run: the spec's id, the config's budget and the run's cost records. */
function ctx(budgetUsd: number | undefined, costs: [string, number][]): RunContext {
  return { spec: { id: 'SPC-001' }, options: { ...(budgetUsd === undefined ? {} : { budgetUsd }), agents: {} }, state: { costs: new Map(costs) } } as unknown as RunContext;
}
const plan = { id: '01-02', budgetUsd: 3 } as Plan;

describe('a local plan’s agent and the spec budget', () => {
  it('refuses to start once the run’s records show the spec budget spent', async () => {
    const agent = budgetedAgent(ctx(1, [['01-01', 1.2]]), plan, 'claude');
    await expect(agent.run({} as never)).rejects.toThrow(SpecBudgetSpentError);
    await expect(agent.run({} as never)).rejects.toThrow("spec SPC-001 has spent $1.20 of its budget of $1.00");
  });

  it('gives claude what is left of it, with the plan’s own budget', () => {
    const agent = budgetedAgent(ctx(2, [['01-01', 1.2]]), plan, 'claude') as ClaudeAgent;
    expect(agent).toBeInstanceOf(ClaudeAgent);
    expect((agent as unknown as { options: { spendLimit: unknown } }).options.spendLimit).toEqual({ plan: '01-02', planUsd: 3, spec: { id: 'SPC-001', budgetUsd: 2, spentUsd: 1.2 } });
  });

  it('starts no new plan once the spec is at budget.per_spec_usd, saying what to raise', async () => {
    const c = ctx(undefined, [['01-01', 250], ['01-03', 150]]);
    c.options.perSpecUsd = 400;
    const agent = budgetedAgent(c, plan, 'claude');
    await expect(agent.run({} as never)).rejects.toThrow(
      new SpecBudgetSpentError("spec SPC-001 has spent $400.00, at its cap of $400.00 (budget.per_spec_usd in .github/harness.yml): no new plan of it starts; raise budget.per_spec_usd to go on (plan 01-02's agent was not started)"),
    );
  });

  it('still starts a plan under budget.per_spec_usd, not counting the plan’s own earlier cost', () => {
    const c = ctx(undefined, [['01-01', 250], ['01-02', 200]]);
    c.options.perSpecUsd = 400;
    expect(budgetedAgent(c, plan, 'claude')).toBeInstanceOf(ClaudeAgent);
  });
});
