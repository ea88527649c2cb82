import type { Checkpoint, OrchestratorMessage, WorkerMessage } from '../engine/core/protocol/messages.js';
import type { Plan } from '../engine/core/spec/model.js';
import { isApproval } from '../engine/lifecycle/approval.js';
import type { WorkerContext } from '../workers/agent.js';
import { agentFor, type AgentsConfig } from '../workers/registry.js';
import type { GivenAnswer } from './answer-comments.js';
import type { WorkerLog } from './worker-log.js';

export type AgentOutcome =
  | { kind: 'completed'; summary?: string }
  | { kind: 'failed'; reason: string }
  /** Stopped at a checkpoint nobody has answered yet: the question goes to the plan issue. */
  | { kind: 'checkpoint'; checkpoint: Checkpoint };

export interface AgentRun {
  spec: string;
  plan: Plan;
  agent: string;
  agents: AgentsConfig;
  /** The checkout of the plan branch. */
  root: string;
  /** Outside the checkout ($RUNNER_TEMP), so nothing of it is committed. */
  logDir: string;
  /** Where the plan's commits start. */
  base: string;
  resume: boolean;
  /** The PLAN.md text, the agent's brief. */
  prompt: string;
  /** Answers on the plan issue, by checkpoint id. */
  answers: ReadonlyMap<string, GivenAnswer>;
  env: Record<string, string>;
  log: WorkerLog;
  now: () => Date;
}

/** The reply an answer on the issue stands for, as the local runner builds it from a typed answer. */
export function responseTo(checkpoint: Checkpoint, answer: string, session: string, at: string): OrchestratorMessage {
  const envelope = { session, at, checkpoint: checkpoint.id };
  if (checkpoint.kind === 'decision') return { ...envelope, type: 'decision_made', answer };
  if (checkpoint.kind === 'verification') return { ...envelope, type: 'verification_result', passed: isApproval(answer), details: answer };
  return { ...envelope, type: 'action_completed', note: answer };
}

/**
 * Run the plan's agent once on the runner. A job cannot wait hours for a person, so a checkpoint
 * is either answered already (on the issue: the answer is replied at once) or ends the run: the
 * agent is stopped, and the next run (`resume: "true"`, dispatched when the answer comes)
 * starts again from what the branch holds.
 */
export async function runAgent(run: AgentRun): Promise<AgentOutcome> {
  const { plan, log } = run;
  const session = `${run.spec}-${plan.id}`;
  const controller = new AbortController();
  let terminal: WorkerMessage | undefined;
  let waiting: Checkpoint | undefined;
  const context: WorkerContext = {
    task: {
      type: 'assign_task',
      session,
      at: run.now().toISOString(),
      spec: run.spec,
      plan: plan.id,
      resume: run.resume,
      worktree: run.root,
      prompt: run.prompt,
      timeout_minutes: plan.timeoutMinutes,
    },
    plan,
    spec: run.spec,
    base: run.base,
    env: run.env,
    logDir: run.logDir,
    signal: controller.signal,
    now: run.now,
    emit(message) {
      switch (message.type) {
        case 'session_ready':
          log.info(`agent ${message.agent} started`);
          break;
        case 'task_started':
          log.info(`[${message.task}/${message.total}] ${message.title}`);
          break;
        case 'progress_update':
          log.info(message.message);
          break;
        case 'decision_needed':
        case 'verification_needed':
        case 'action_needed':
          log.info(`checkpoint ${message.checkpoint.id} (${message.checkpoint.kind}): ${message.checkpoint.prompt.split('\n')[0]}`);
          break;
        case 'task_completed':
        case 'task_failed':
          terminal = message;
          break;
      }
    },
    async awaitResponse(checkpoint) {
      const at = run.now().toISOString();
      const given = run.answers.get(checkpoint.id);
      if (given) {
        log.info(`checkpoint ${checkpoint.id} was answered on the plan issue by ${given.by}: ${given.answer}`);
        return responseTo(checkpoint, given.answer, session, at);
      }
      if (plan.autonomous) return { type: 'abort_task', session, at, reason: `plan ${plan.id} is autonomous: true, and nobody can answer checkpoint "${checkpoint.id}" in a run` };
      waiting = checkpoint;
      // Stop the agent (and any process of it that waits on the answer); the worker asks on the issue instead.
      controller.abort(new Error(`waiting for an answer to checkpoint "${checkpoint.id}" on the plan issue`));
      return { type: 'abort_task', session, at, reason: `waiting for an answer to checkpoint "${checkpoint.id}"` };
    },
  };
  try {
    await agentFor(run.agent, run.agents).run(context);
  } catch (e) {
    if (!waiting) return { kind: 'failed', reason: (e as Error).message };
  }
  if (waiting) return { kind: 'checkpoint', checkpoint: waiting };
  if (terminal?.type === 'task_completed') return terminal.summary === undefined ? { kind: 'completed' } : { kind: 'completed', summary: terminal.summary };
  return { kind: 'failed', reason: terminal?.type === 'task_failed' ? terminal.error : `the ${run.agent} agent ended without saying it completed` };
}
