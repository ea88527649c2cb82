import type { AssignTask, BriefKnowledge } from '../core/protocol/messages.js';
import type { Plan } from '../core/spec/model.js';

/** Who does a plan, and what they are given to do it. */

export interface AgentChoice {
  /** Every plan's agent, as the person running chose it (`harness run --agent`, the worker's `agent` input). */
  override?: string | undefined;
  /** The repository's agent for plans that name none (`agent` of .github/harness.yml). */
  configured?: string | undefined;
}

/**
 * The agent that does a plan: the person's override, else the plan's own `agent:`, else the
 * repository's. With none configured, a plan written as ```sh step blocks is the script agent's
 * and any other plan is Claude's: the steps are the plan's way of saying it needs no model.
 */
export function agentName(plan: Plan, choice: AgentChoice = {}): string {
  return choice.override ?? plan.agent ?? choice.configured ?? (plan.steps.length > 0 ? 'script' : 'claude');
}

export interface Assignment {
  session: string;
  spec: string;
  plan: Plan;
  /** An earlier run of this attempt was interrupted: the agent continues from what is committed. */
  resume: boolean;
  /** The checkout, absolute. */
  worktree: string;
  /** The PLAN.md text. */
  prompt: string;
  at: Date;
  /** What surfacing found applies to the plan, best first. */
  knowledge?: readonly BriefKnowledge[];
  /** What an engine that stopped at its usage limit did, for the one taking the plan over. */
  handoff?: string;
}

/** The assign_task message that starts an agent on a plan. */
export function assignTask(a: Assignment): AssignTask {
  return {
    type: 'assign_task',
    session: a.session,
    at: a.at.toISOString(),
    spec: a.spec,
    plan: a.plan.id,
    resume: a.resume,
    worktree: a.worktree,
    prompt: a.prompt,
    timeout_minutes: a.plan.timeoutMinutes,
    ...(a.knowledge && a.knowledge.length > 0 ? { knowledge: a.knowledge.map((k) => ({ ...k })) } : {}),
    ...(a.handoff === undefined ? {} : { handoff: a.handoff }),
  };
}

/**
 * The engines that take a plan over when its agent stops at the model's usage limit, in order:
 * the plan's own `fallback:`, else the repository's `agents.fallback`, without the plan's agent.
 * None when the person running chose the agent for every plan (`--agent`, the worker's input).
 */
export function fallbackEngines(plan: Plan, agent: string, choice: AgentChoice & { fallback?: readonly string[] | undefined } = {}): string[] {
  if (choice.override !== undefined) return [];
  return [...new Set(plan.fallback ?? choice.fallback ?? [])].filter((name) => name !== agent);
}
