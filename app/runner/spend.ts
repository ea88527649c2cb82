import type { Agent } from '../engine/core/agents/agent.js';
import { HarnessError } from '../engine/core/error.js';
import { budgetSpent, spendLimit } from '../engine/core/run/spend-limit.js';
import type { Plan } from '../engine/core/spec/model.js';
import { agentFor } from '../workers/registry.js';
import type { RunContext } from './context.js';
import type { ForeignWrite } from './worktree-watch.js';

/** The spec's budget was spent before the plan's agent started: the plan fails with it, and nothing is spent. */
export class SpecBudgetSpentError extends HarnessError {}

/**
 * A plan's agent on this machine, held to the plan's budget_usd and to what is left of the
 * spec's (config budget_usd) after what its other plans cost, as this run's records
 * (result.json of each plan) have it.
 */
export function budgetedAgent(ctx: RunContext, plan: Plan, name: string): Agent {
  const limit = spendLimit(plan.id, plan.budgetUsd, { id: ctx.spec.id, budgetUsd: ctx.options.budgetUsd, costs: ctx.state.costs });
  const spent = budgetSpent(limit);
  if (spent) {
    return {
      name,
      run: () => Promise.reject(new SpecBudgetSpentError(spent)),
    };
  }
  const agents = ctx.options.agents ?? {};
  return watched(ctx, plan, agentFor(name, limit.planUsd === undefined && !limit.spec ? agents : { ...agents, claude: { ...agents.claude, spendLimit: limit } }));
}

/** Writes an agent made in another plan's worktree, said as they are found. */
export function reportForeign(ctx: RunContext, found: readonly ForeignWrite[]): void {
  for (const w of found) {
    const who = w.by.length === 0 ? 'an agent of no plan of this run' : `the agent of ${w.by.join(' or ')}`;
    const what = w.gitRemoved ? 'removed its .git' : `wrote ${w.files.join(', ')} there; put back, and a deviation of ${w.by.join(' or ') || 'nobody known'}, not of ${w.victim}`;
    ctx.reporter.event({ kind: 'info', text: `${w.victim}'s worktree: ${who} ${what}` });
  }
}

/** The agent's run, told to the run's worktree watch: what appears in other plans' worktrees meanwhile may be its doing. */
function watched(ctx: RunContext, plan: Plan, agent: Agent): Agent {
  return {
    name: agent.name,
    run: async (context) => {
      await ctx.watch.agentStarted(plan.id);
      try {
        await agent.run(context);
      } finally {
        reportForeign(ctx, await ctx.watch.agentEnded(plan.id));
      }
    },
  };
}
