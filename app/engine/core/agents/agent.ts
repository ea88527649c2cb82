import type { AgentSandbox } from './sandbox.js';
import type { AssignTask, Checkpoint, OrchestratorMessage, WorkerMessage } from '../protocol/messages.js';
import type { Plan } from '../spec/model.js';

/**
 * A worker runs one plan with one agent in the plan's own checkout. It reports through
 * `emit` (protocol messages) and, at a checkpoint, waits on `awaitResponse`. It never
 * verifies its own work: the orchestrator does that after `task_completed`.
 */
export interface WorkerContext {
  task: AssignTask;
  plan: Plan;
  /** The spec id, for commit trailers. */
  spec: string;
  emit(message: WorkerMessage): void | Promise<void>;
  /** Resolves with the orchestrator's answer to a checkpoint (decision_made, verification_result, action_completed or abort_task). */
  awaitResponse(checkpoint: Checkpoint): Promise<OrchestratorMessage>;
  signal: AbortSignal;
  /** Extra environment for the agent's processes. */
  env: Record<string, string>;
  /**
   * Where the agent may write logs (absolute). The runner keeps it across restarts of the same
   * plan: agents record checkpoint answers and their starting point there. It must lie outside
   * the worktree (or be ignored there), or `git add -A` would commit it.
   */
  logDir: string;
  /**
   * The commit the plan's branch started from, when the runner knows it: only commits after it
   * are the plan's. Without it an agent falls back on what it recorded in logDir, then on the
   * Plan/Spec trailers of the whole history.
   */
  base?: string;
  /**
   * The runner made the checkout for this attempt just now, at the plan's branch, and nothing
   * has written to it since: a fresh attempt need not ask git whether it is clean.
   */
  checkoutMade?: boolean;
  now(): Date;
  /** The sandbox the agent's processes start in, when the run has one (sandbox.ts): every process goes through its wrap. */
  sandbox?: AgentSandbox;
}

export interface Agent {
  readonly name: string;
  /** Run the plan to completion: resolves after emitting task_completed or task_failed. */
  run(context: WorkerContext): Promise<void>;
}
