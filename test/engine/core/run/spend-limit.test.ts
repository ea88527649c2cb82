import { describe, expect, it } from 'vitest';
import { budgetSpent, overBudget, spendCap, spendLimit } from '../../../../app/engine/core/run/spend-limit.js';

describe('what a plan may spend', () => {
  const costs: [string, number][] = [
    ['01-01', 0.4],
    ['01-02', 0.35],
    ['01-03', 9],
  ];

  it('is the least of its own budget and what is left of the spec’s, its own earlier cost not counted', () => {
    const limit = spendLimit('01-03', 0.5, { id: 'SPC-001', budgetUsd: 1, costs });
    expect(limit.spec).toEqual({ id: 'SPC-001', budgetUsd: 1, spentUsd: 0.75 });
    expect(spendCap(limit)).toBeCloseTo(0.25);
    expect(spendCap(spendLimit('01-03', 0.1, { id: 'SPC-001', budgetUsd: 1, costs }))).toBe(0.1);
    expect(spendCap(spendLimit('01-03', undefined, { id: 'SPC-001', budgetUsd: undefined, costs }))).toBeUndefined();
  });

  it('names the plan budget, or the spec total and budget, when a reported cost goes over', () => {
    const limit = spendLimit('01-03', 0.5, { id: 'SPC-001', budgetUsd: 1, costs });
    expect(overBudget(limit, 0.2)).toBeUndefined();
    expect(overBudget(limit, 0.6)).toBe("the agent spent $0.60, over the plan's budget of $0.50 (budget_usd)");
    expect(overBudget(limit, 0.3, 'claude')).toBe(
      "claude spent $0.30, which takes spec SPC-001's total to $1.05, over its budget of $1.00 (budget_usd in .github/harness.yml; its other plans had spent $0.75)",
    );
  });

  it('does not start an agent once the spec has spent its budget', () => {
    expect(budgetSpent(spendLimit('01-03', undefined, { id: 'SPC-001', budgetUsd: 0.75, costs }))).toBe(
      "spec SPC-001 has spent $0.75 of its budget of $0.75 (budget_usd in .github/harness.yml): plan 01-03's agent was not started; raise the budget to go on",
    );
    expect(budgetSpent(spendLimit('01-03', undefined, { id: 'SPC-001', budgetUsd: 0.76, costs }))).toBeUndefined();
  });
});
