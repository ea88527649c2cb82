import { answersEnv } from '../engine/core/agents/answers.js';
import type { WorkerContext } from '../engine/core/agents/agent.js';
import type { AnswerStore } from './answer-store.js';

/**
 * The environment of an agent's processes: the worker's own, the runner's extras, then what
 * harness tells every agent (HARNESS_SPEC, HARNESS_PLAN, HARNESS_ANSWERS and one
 * HARNESS_ANSWER_<ID> per answered checkpoint), last so that nothing can shadow it.
 */
export function agentEnv(context: WorkerContext, store: AnswerStore, extra: Record<string, string> = {}): Record<string, string | undefined> {
  return {
    ...process.env,
    ...context.env,
    HARNESS_SPEC: context.spec,
    HARNESS_PLAN: context.plan.id,
    HARNESS_ANSWERS: store.path,
    ...answersEnv(store.all()),
    ...extra,
  };
}
