import type { Agent } from '../engine/core/agents/agent.js';
import { HarnessError } from '../engine/core/error.js';
import { capsDecision } from '../engine/core/run/spend-caps.js';
import { budgetSpent, spendLimit } from '../engine/core/run/spend-limit.js';
import type { Plan } from '../engine/core/spec/model.js';
import { agentFor } from '../agents/registry.js';
import type { RunContext } from './context.js';

/** The spec's budget was spent before the plan's agent started: the plan fails with it, and nothing is spent. */
export class SpecBudgetSpentError extends HarnessError {}

/**
 * A plan's agent on this machine, held to the plan's budget_usd and to what is left of the
 * spec's (config budget_usd) after what its other plans cost, as this run's records
 * (result.json of each plan) have it.
 */
export function budgetedAgent(ctx: RunContext, plan: Plan, name: string): Agent {
  if (ctx.options.perSpecUsd !== undefined) {
    // The spec cap counts what the run's records have the spec's other plans spending; a plan's own earlier cost is replaced by its new run.
    const records = [...ctx.state.costs].filter(([id]) => id !== plan.id).map(([id, costUsd]) => ({ spec: ctx.spec.id, plan: id, costUsd, at: new Date(0) }));
    const decision = capsDecision({ per_spec_usd: ctx.options.perSpecUsd }, records, ctx.spec.id, new Date(0));
    if (!decision.open) return { name, run: () => Promise.reject(new SpecBudgetSpentError(`${decision.message} (plan ${plan.id}'s agent was not started)`)) };
  }
  const limit = spendLimit(plan.id, plan.budgetUsd, { id: ctx.spec.id, budgetUsd: ctx.options.budgetUsd, costs: ctx.state.costs });
  const spent = budgetSpent(limit);
  if (spent) {
    return {
      name,
      run: () => Promise.reject(new SpecBudgetSpentError(spent)),
    };
  }
  const agents = ctx.options.agents ?? {};
  if (limit.planUsd === undefined && !limit.spec) return agentFor(name, agents);
  return agentFor(name, { ...agents, claude: { ...agents.claude, spendLimit: limit }, codex: { ...agents.codex, spendLimit: limit }, copilot: { ...agents.copilot, spendLimit: limit } });
}
