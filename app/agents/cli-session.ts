import type { WorkerContext } from '../engine/core/agents/agent.js';
import type { Checkpoint } from '../engine/core/protocol/messages.js';
import { Git } from '../machine/git.js';
import { AnswerStore } from './answer-store.js';
import { ReportBridge } from './mcp/report-bridge.js';
import type { Reporter } from './reporter.js';
import { beginWholePlan } from './whole-plan.js';

/** What a CLI agent records in its logDir between runs: its session, and the checkpoint it waits at. */
export interface SessionState {
  sessionId?: string;
  checkpoint?: Checkpoint;
  default?: string;
}

/** An attempt's frame, as a CLI agent's session gets it. */
export interface OpenSession<S extends SessionState> {
  git: Git;
  history: NonNullable<Awaited<ReturnType<typeof beginWholePlan>>>;
  store: AnswerStore;
  bridge: ReportBridge;
  /** What the agent recorded, on a resumed attempt (empty on a new one). */
  saved: S;
  /** A session waits at a checkpoint: its work stays in place and the answer continues it. */
  waiting: boolean;
}

/**
 * The frame of every CLI agent's attempt (claude, codex, gemini, copilot): ready; the plan's
 * history begun, keeping the work of a session that waits at a checkpoint, discarding what a
 * session cut off mid-turn left; the answers given so far; and the reporting MCP bridge, open for
 * the session and closed after it, whatever the session did.
 */
export async function inCliSession<S extends SessionState>(
  agent: string,
  context: WorkerContext,
  reporter: Reporter,
  read: () => Promise<S>,
  session: (open: OpenSession<S>) => Promise<void>,
): Promise<void> {
  await reporter.ready(agent);
  const git = new Git(context.task.worktree, { env: context.env });
  const saved = context.task.resume ? await read() : ({} as S);
  const waiting = saved.sessionId !== undefined && saved.checkpoint !== undefined;
  const history = await beginWholePlan(context, git, reporter, waiting ? 'keep' : context.task.resume ? 'discard' : 'refuse');
  if (!history) return;
  const store = await AnswerStore.open(context.logDir);
  const bridge = await ReportBridge.open({ context, reporter, store, agent });
  try {
    await session({ git, history, store, bridge, saved, waiting });
  } finally {
    await bridge.close();
  }
}
