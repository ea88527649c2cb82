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
});
