import { answerOf } from '../engine/core/agents/answers.js';
import { parsePlanTasks, type CheckpointTask } from '../engine/core/agents/tasks.js';
import type { Checkpoint } from '../engine/core/protocol/messages.js';
import { raceAbort } from './abort.js';
import { USAGE_LIMIT_CHECKPOINT } from '../engine/forge/checkpoint-markers.js';
import type { WorkerContext } from '../engine/core/agents/agent.js';
import type { AnswerStore } from './answer-store.js';
import type { Reporter } from './reporter.js';

export type GateOutcome = { ok: true; answer: string } | { ok: false; error: string; retryable: boolean };

/**
 * Pass one checkpoint: with the answer recorded by an earlier attempt (a person is never asked
 * twice), with its default in an autonomous plan, or by asking the orchestrator and waiting.
 * A new answer is recorded before the agent goes on, so a crash right after cannot lose it.
 */
export async function passCheckpoint(
  context: WorkerContext,
  reporter: Reporter,
  store: AnswerStore,
  checkpoint: Checkpoint,
  fallback: string | undefined,
): Promise<GateOutcome> {
  const recorded = store.get(checkpoint.id);
  if (recorded !== undefined) {
    await reporter.progress(`checkpoint ${checkpoint.id} already answered: ${recorded}`);
    return { ok: true, answer: recorded };
  }
  // The pause harness took at the model's usage limit is no person's question: whatever the plan's autonomy, the run waits for the App's `continue` once the limit resets.
  if (context.plan.autonomous && checkpoint.id !== USAGE_LIMIT_CHECKPOINT) {
    if (fallback === undefined) {
      return {
        ok: false,
        retryable: false,
        error:
          `checkpoint "${checkpoint.id}" (${checkpoint.kind}) needs a person, but plan ${context.plan.id} is autonomous: true ` +
          'and the checkpoint has no default',
      };
    }
    await store.set(checkpoint.id, fallback);
    await reporter.progress(`checkpoint ${checkpoint.id}: autonomous plan, took the default: ${fallback}`);
    return { ok: true, answer: fallback };
  }
  await reporter.checkpoint(checkpoint);
  const raced = await raceAbort(context.awaitResponse(checkpoint), context.signal);
  if (raced.aborted) return { ok: false, retryable: true, error: `aborted at checkpoint "${checkpoint.id}": ${raced.reason}` };
  const answer = answerOf(checkpoint, raced.value);
  // A person's abort_task is a decision, not an accident: the orchestrator should not retry it on its own.
  if (!answer.ok) return { ok: false, retryable: false, error: answer.error };
  await store.set(checkpoint.id, answer.answer);
  await reporter.progress(`checkpoint ${checkpoint.id} answered: ${answer.answer}`);
  return { ok: true, answer: answer.answer };
}

/**
 * The first checkpoint a plan that needs a person foresees and nobody has answered: what an
 * agent that could ask finished without asking. None in an autonomous plan.
 */
export function unansweredPlannedCheckpoint(context: WorkerContext, store: AnswerStore): Checkpoint | undefined {
  if (context.plan.autonomous) return undefined;
  const task = parsePlanTasks(context.plan.body, context.plan.bodyLine).checkpoints.find((t) => store.get(t.id) === undefined);
  return task && checkpointOf(task);
}

/** The question a plan's checkpoint block asks. */
export function checkpointOf(task: CheckpointTask): Checkpoint {
  const checkpoint: Checkpoint = { id: task.id, kind: task.type, prompt: task.prompt, source: task.title };
  if (task.options) checkpoint.options = task.options;
  return checkpoint;
}

/**
 * The checkpoint blocks of a plan that needs a person, passed by harness itself for an agent
 * that runs the whole plan and cannot ask mid-way (a command without the protocol): decisions
 * and actions before it starts (their answers reach it in the brief and HARNESS_ANSWER_<ID>),
 * verifications once it has finished, since there is nothing to verify before; `all` once an
 * agent that could ask has finished, for what it did not ask (an answer given is not asked again). An autonomous
 * plan is left to the agent, which is told to take the reasonable choice. Undefined when every
 * one passed, else why the plan stops.
 */
export async function passPlannedCheckpoints(
  context: WorkerContext,
  reporter: Reporter,
  store: AnswerStore,
  when: 'before' | 'after' | 'all',
): Promise<{ error: string; retryable: boolean } | undefined> {
  if (context.plan.autonomous) return undefined;
  const { checkpoints } = parsePlanTasks(context.plan.body, context.plan.bodyLine);
  for (const task of checkpoints) {
    if (when !== 'all' && (task.type === 'verification') !== (when === 'after')) continue;
    const gate = await passCheckpoint(context, reporter, store, checkpointOf(task), undefined);
    if (!gate.ok) return { error: gate.error, retryable: gate.retryable };
  }
  return undefined;
}
