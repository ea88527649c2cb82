import type { Agent } from '../engine/core/agents/agent.js';
import { HarnessError } from '../engine/core/error.js';
import { capsDecision, type SpendRecord } from '../engine/core/run/spend-caps.js';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readTextIfExists } from '../machine/files.js';
import type { SessionResult } from './store.js';
import { budgetSpent, spendLimit } from '../engine/core/run/spend-limit.js';
import type { Plan } from '../engine/core/spec/model.js';
import { agentFor, withSpendLimit } from '../agents/registry.js';
import type { RunContext } from './context.js';

/** The spec's budget was spent before the plan's agent started: the plan fails with it, and nothing is spent. */
export class SpecBudgetSpentError extends HarnessError {}

/**
 * A plan's agent on this machine, held to the plan's budget_usd and to what is left of the
 * spec's (config budget_usd) after what its other plans cost, as this run's records
 * (result.json of each plan) have it.
 */
export function budgetedAgent(ctx: RunContext, plan: Plan, name: string): Agent {
  const agent = capped(ctx, plan, name);
  const day = ctx.options.perDayUsd;
  if (day === undefined) return agent;
  // The day's cap counts every spec's runs on this machine (their result.json), read as the agent is about to start.
  return {
    name: agent.name,
    run: async (context) => {
      const decision = capsDecision({ per_day_usd: day }, await repositorySpend(ctx.repo.root), ctx.spec.id, ctx.now());
      if (!decision.open) throw new SpecBudgetSpentError(`${decision.message} (plan ${plan.id}'s agent was not started)`);
      return agent.run(context);
    },
  };
}

/**
 * What the repository's local runs spent, from each plan's result.json under .orchestration/
 * (every spec): each plan's attempts together (`spent`), as spent when its last attempt
 * finished. An earlier attempt's cost counts from its plan's last finish, never earlier: the
 * day's window holds it no shorter than it should.
 */
export async function repositorySpend(root: string): Promise<SpendRecord[]> {
  const base = join(root, '.orchestration');
  const out: SpendRecord[] = [];
  for (const spec of await readdir(base).catch(() => [] as string[])) {
    for (const plan of await readdir(join(base, spec, 'sessions')).catch(() => [] as string[])) {
      const text = await readTextIfExists(join(base, spec, 'sessions', plan, 'result.json'));
      if (text === undefined) continue;
      let result: Partial<SessionResult>;
      try {
        result = JSON.parse(text) as Partial<SessionResult>;
      } catch {
        continue;
      }
      const costUsd = (result.spent ?? result.usage)?.costUsd;
      const at = Date.parse(result.finishedAt ?? '');
      if (typeof costUsd === 'number' && costUsd > 0 && !Number.isNaN(at)) out.push({ spec, plan, costUsd, at: new Date(at) });
    }
  }
  return out;
}

/** The agent held to the plan's and the spec's budgets and to budget.per_spec_usd. */
function capped(ctx: RunContext, plan: Plan, name: string): Agent {
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
  return agentFor(name, withSpendLimit(agents, limit));
}
