import type { WorkerContext } from '../engine/core/agents/agent.js';
import { buildWorkerPrompt } from '../engine/core/agents/prompt.js';
import { quotedAnswer } from '../engine/core/agents/quoted-answer.js';
import type { Checkpoint } from '../engine/core/protocol/messages.js';
import { Git } from '../machine/git.js';
import { AnswerStore } from './answer-store.js';
import { passCheckpoint } from './checkpoint-gate.js';
import { executorInstructions } from './executor-instructions.js';
import { ReportBridge } from './mcp/report-bridge.js';
import { reportingFailures, type Reporter } from './reporter.js';
import type { SessionStateFile } from './session-state.js';
import { beginWholePlan, leftoversOf } from './whole-plan.js';

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
  const history = await beginWholePlan(context, git, reporter, waiting ? 'keep' : leftoversOf(context));
  if (!history) return;
  const store = await AnswerStore.open(context.logDir);
  const bridge = await ReportBridge.open({ context, reporter, store, agent });
  try {
    await session({ git, history, store, bridge, saved, waiting });
  } finally {
    await bridge.close();
  }
}

/** A CLI agent's run: its failures reported (reportingFailures), its session framed (inCliSession), its state read from `state`. */
export function runCliSession<S extends SessionState>(
  agent: string,
  context: WorkerContext,
  state: SessionStateFile<S>,
  session: (reporter: Reporter, open: OpenSession<S>) => Promise<void>,
): Promise<void> {
  return reportingFailures(agent, context, (reporter) =>
    inCliSession(
      agent,
      context,
      reporter,
      () => state.read(context.logDir),
      (open) => session(reporter, open),
    ),
  );
}

/** The longest question the answer's message repeats: the session holds it whole, when the CLI kept it. */
const QUESTION_MAX = 500;

/**
 * The message that continues a session after a person answered: the question too, as the agent
 * asked it, since a CLI stopped while the question waits may not have kept its last turns (Copilot
 * CLI 1.0.102 writes its session's events a little after they happen).
 */
export function answerPrompt(checkpoint: Checkpoint, answer: string): string {
  const asked = checkpoint.prompt.replace(/\s+/g, ' ').trim();
  const question = asked.length > QUESTION_MAX ? `${asked.slice(0, QUESTION_MAX - 1)}…` : asked;
  return `A person answered checkpoint "${checkpoint.id}" (${checkpoint.kind}).\n\nThe question, as you asked it: ${question}\n\n${quotedAnswer(answer)}\n\nContinue the plan from where you stopped.`;
}

/** What an attempt's first run of the CLI is told, and the session it continues (none: a new one). */
export interface FirstPrompt {
  prompt: string;
  resume?: string;
}

/**
 * The first prompt of an attempt, the state saved for it: for a session waiting at a checkpoint,
 * the person's answer, continuing that session (its state kept, with what `keep` names beyond
 * the session id); for a new session, the plan's brief, told which commits earlier attempts
 * left (and, when the agent's sandbox keeps git read-only, that harness commits for it). Undefined when the checkpoint has no answer that may be taken (the attempt is reported
 * failed then).
 */
export async function firstPrompt<S extends SessionState>(
  context: WorkerContext,
  reporter: Reporter,
  open: Pick<OpenSession<S>, 'history' | 'store' | 'saved' | 'waiting'>,
  save: (state: S) => Promise<void>,
  keep: (saved: S) => Partial<S> = () => ({}),
  gitReadOnly = false,
): Promise<FirstPrompt | undefined> {
  const { saved, store } = open;
  if (open.waiting) {
    const gate = await passCheckpoint(context, reporter, store, saved.checkpoint!, saved.default);
    if (!gate.ok) {
      await reporter.failed(gate.error, gate.retryable);
      return undefined;
    }
    await save({ ...keep(saved), sessionId: saved.sessionId! } as S);
    return { prompt: answerPrompt(saved.checkpoint!, gate.answer), resume: saved.sessionId! };
  }
  const commits =
    context.task.resume || context.task.handoff !== undefined ? (await open.history.commits()).map((c) => ({ sha: c.sha, subject: c.subject })) : [];
  const instructions = await executorInstructions(context.task.worktree);
  await save({} as S);
  return {
    prompt: buildWorkerPrompt(context.plan, {
      spec: context.spec,
      checkpoints: 'mcp',
      answers: store.all(),
      commits,
      knowledge: context.task.knowledge ?? [],
      instructions,
      gitReadOnly,
      ...(context.task.handoff === undefined ? {} : { handoff: context.task.handoff }),
    }),
  };
}
