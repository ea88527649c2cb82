/**
 * What a plan's agent may spend: the plan's own `budget_usd` (PLAN.md frontmatter), and the
 * spec's `budget_usd` (.github/harness.yml), which caps what all the spec's plans spend
 * together. The spec's part is what is left of its budget after what its other plans have
 * cost so far, as the runtime knows it (the local run's records; on a runner the SUMMARY.md
 * of the plans merged into the base).
 */
export interface SpendLimit {
  plan: string;
  /** The plan's own budget_usd. */
  planUsd?: number;
  /** The spec's budget_usd and what its other plans have spent. */
  spec?: { id: string; budgetUsd: number; spentUsd: number };
}

/** Where the spec's budget is set, as people are told to look for it. */
export const SPEC_BUDGET_SOURCE = 'budget_usd in .github/harness.yml';

const usd = (n: number) => `$${n.toFixed(2)}`;

export function spendLimit(
  plan: string,
  planUsd: number | undefined,
  spec: { id: string; budgetUsd: number | undefined; costs: Iterable<readonly [string, number]> },
): SpendLimit {
  const limit: SpendLimit = { plan, ...(planUsd === undefined ? {} : { planUsd }) };
  if (spec.budgetUsd === undefined) return limit;
  let spentUsd = 0;
  // The plan's own earlier cost is not counted against it again: its new run replaces that record.
  for (const [id, cost] of spec.costs) if (id !== plan) spentUsd += cost;
  limit.spec = { id: spec.id, budgetUsd: spec.budgetUsd, spentUsd: Math.round(spentUsd * 100) / 100 };
  return limit;
}

/** The most this plan's agent may spend now; undefined when nothing limits it. */
export function spendCap(limit: SpendLimit): number | undefined {
  const caps = [limit.planUsd, limit.spec ? Math.max(0, limit.spec.budgetUsd - limit.spec.spentUsd) : undefined].filter((c): c is number => c !== undefined);
  return caps.length > 0 ? Math.min(...caps) : undefined;
}

/** Why the agent may not start at all: the spec's budget is spent already. */
export function budgetSpent(limit: SpendLimit): string | undefined {
  const spec = limit.spec;
  if (!spec || spec.spentUsd < spec.budgetUsd) return undefined;
  return `spec ${spec.id} has spent ${usd(spec.spentUsd)} of its budget of ${usd(spec.budgetUsd)} (${SPEC_BUDGET_SOURCE}): plan ${limit.plan}'s agent was not started; raise the budget to go on`;
}

/** Why an agent that reported `costUsd` went over a budget; undefined when it did not. */
export function overBudget(limit: SpendLimit, costUsd: number, who = 'the agent'): string | undefined {
  if (limit.planUsd !== undefined && costUsd > limit.planUsd)
    return `${who} spent ${usd(costUsd)}, over the plan's budget of ${usd(limit.planUsd)} (budget_usd)`;
  const spec = limit.spec;
  if (spec && spec.spentUsd + costUsd > spec.budgetUsd) {
    return `${who} spent ${usd(costUsd)}, which takes spec ${spec.id}'s total to ${usd(spec.spentUsd + costUsd)}, over its budget of ${usd(spec.budgetUsd)} (${SPEC_BUDGET_SOURCE}; its other plans had spent ${usd(spec.spentUsd)})`;
  }
  return undefined;
}
