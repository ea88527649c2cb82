import type { WorkerContext } from '../core/agents/agent.js';
import type { AgentSandbox } from '../core/agents/sandbox.js';
import { HarnessError } from '../core/error.js';
import type { AgentFacts, Checkpoint, Insight, OrchestratorMessage, Usage, WorkerMessage } from '../core/protocol/messages.js';
import type { Plan } from '../core/spec/model.js';
import type { SurfacedEntry } from '../knowledge/documents/loop.js';
import { responseTo } from './answers.js';
import { assignTask } from './assignment.js';
import type { AttemptPorts } from './ports.js';

/** The runtime stopped (Ctrl-C, a shutdown) while the attempt ran: nothing is decided, the next run resumes it. */
export class AttemptStoppedError extends HarnessError {}

export interface AgentRun {
  spec: string;
  plan: Plan;
  agent: string;
  session: string;
  /** Where the plan's commits start. */
  base: string;
  resume: boolean;
  /** The runtime made the checkout just now (WorkerContext.checkoutMade). */
  checkoutMade?: boolean;
  /** The PLAN.md text, read when the agent starts. */
  prompt: () => Promise<string>;
  /** Added to the environment of the agent's processes. */
  env: Record<string, string>;
  /** Outside the checkout: the agent's logs and recorded answers. */
  logDir: string;
  /** The runtime stopping. */
  signal?: AbortSignal | undefined;
  /** The accepted knowledge that applies to this plan (surfacing), for its brief. */
  knowledge?: readonly SurfacedEntry[];
  /** Another engine stopped at its usage limit on this attempt: what it did, for the one taking over (fallback.ts). */
  handoff?: string;
  /** The attempt's sandbox, when the runtime runs agents in one. */
  sandbox?: AgentSandbox;
}

/** What the agent said of itself while it worked, for the knowledge loop. */
export interface AgentSeen {
  /** The agent its session_ready named. */
  agent?: string;
  /** What it counted of its work (task_completed / task_failed). */
  facts?: AgentFacts;
  /** What it reported it learned, in order. */
  insights: Insight[];
  /** Its last progress lines, the newest last (at most five): where it was when it stopped. */
  recent?: string[];
}

export type AgentResult = (
  | { kind: 'completed'; summary?: string; usage?: Usage }
  | { kind: 'failed'; error: string; timedOut: boolean; environment?: boolean; usage?: Usage }
  /** Stopped at a checkpoint nobody has answered yet, where nobody can wait for one. */
  | { kind: 'checkpoint'; checkpoint: Checkpoint }
) & { seen?: AgentSeen };

/**
 * Run the plan's agent once: the assignment, its messages turned into events, its checkpoints
 * answered through the answers port. Where nobody can wait for an answer, the agent is stopped
 * at the question and the result is the checkpoint; the next run starts again from what the
 * branch holds and finds the answer given by then.
 */
export async function runAgent(run: AgentRun, ports: AgentPorts): Promise<AgentResult> {
  const agent = startWatching(run, ports);
  try {
    await ports.agent(run.agent).run(await workerContext(agent));
  } catch (e) {
    if (!agent.waiting && !run.signal?.aborted)
      agent.terminal = { type: 'task_failed', session: run.session, at: at(agent), plan: run.plan.id, error: (e as Error).message, retryable: false };
  } finally {
    run.signal?.removeEventListener('abort', agent.stop);
  }
  if (run.signal?.aborted) throw new AttemptStoppedError(`plan ${run.plan.id} was stopped`);
  return resultOf(agent);
}

type AgentPorts = Pick<AttemptPorts, 'agent' | 'workspace' | 'answers' | 'progress' | 'clock'>;

/** One run of the agent as it goes: what it said of itself, the message it ended with, the checkpoint it stopped at. */
interface RunningAgent {
  run: AgentRun;
  ports: AgentPorts;
  /** Stops the agent: the runtime stopping, or a checkpoint nobody can wait for. */
  controller: AbortController;
  /** Passes the runtime's stop on to the agent. */
  stop: () => void;
  seen: AgentSeen;
  terminal?: Extract<WorkerMessage, { type: 'task_completed' | 'task_failed' }>;
  waiting?: Checkpoint;
}

/** The agent's run, stopped when the runtime stops (already, when it has). */
function startWatching(run: AgentRun, ports: AgentPorts): RunningAgent {
  const controller = new AbortController();
  const stop = () => controller.abort(run.signal?.reason);
  run.signal?.addEventListener('abort', stop, { once: true });
  if (run.signal?.aborted) stop();
  return { run, ports, controller, stop, seen: { insights: [] } };
}

/** The time now, as messages to the agent carry it. */
function at(agent: RunningAgent): string {
  return agent.ports.clock.now().toISOString();
}

/** What the agent is handed: its task (the plan's brief), the checkout, and where its messages and questions go. */
async function workerContext(agent: RunningAgent): Promise<WorkerContext> {
  const { run, ports } = agent;
  const { plan, session } = run;
  return {
    task: assignTask({
      session,
      spec: run.spec,
      plan,
      resume: run.resume,
      worktree: ports.workspace.root,
      prompt: await run.prompt(),
      at: ports.clock.now(),
      ...(run.knowledge ? { knowledge: run.knowledge } : {}),
      ...(run.handoff === undefined ? {} : { handoff: run.handoff }),
    }),
    plan,
    spec: run.spec,
    base: run.base,
    ...(run.checkoutMade ? { checkoutMade: true } : {}),
    env: { ...run.env },
    logDir: run.logDir,
    ...(run.sandbox ? { sandbox: run.sandbox } : {}),
    signal: agent.controller.signal,
    now: () => ports.clock.now(),
    emit: (message) => emitted(agent, message),
    awaitResponse: (checkpoint) => answerCheckpoint(agent, checkpoint),
  };
}

/** One message from the agent: recorded, noted in what it said of itself, and turned into an event. */
async function emitted(agent: RunningAgent, message: WorkerMessage): Promise<void> {
  const { progress } = agent.ports;
  const { seen } = agent;
  await progress.record?.(message);
  switch (message.type) {
    case 'session_ready':
      seen.agent = message.agent;
      return progress.event({ kind: 'agent-started', agent: message.agent });
    case 'insight':
      seen.insights.push(message.insight);
      return progress.event({ kind: 'progress', message: `${message.insight.kind}: ${message.insight.summary}` });
    case 'task_started':
      return progress.event({ kind: 'task-started', task: message.task, total: message.total, title: message.title });
    case 'tool_call':
      return progress.event({
        kind: 'tool',
        id: message.id,
        phase: message.phase,
        ...(message.name === undefined ? {} : { name: message.name }),
        ...(message.error === undefined ? {} : { error: message.error }),
      });
    case 'progress_update':
      seen.recent = [...(seen.recent ?? []).slice(-4), message.message];
      return progress.event({
        kind: 'progress',
        message: message.message,
        ...(message.task !== undefined && message.total !== undefined ? { task: message.task, total: message.total } : {}),
      });
    case 'decision_needed':
    case 'verification_needed':
    case 'action_needed':
      return progress.event({ kind: 'agent-waiting', checkpoint: message.checkpoint });
    case 'task_completed':
    case 'task_failed':
      agent.terminal = message;
      if (message.facts) seen.facts = message.facts;
  }
}

/**
 * The answer to the agent's checkpoint: one given already or by a person now; else an autonomous
 * plan's agent is told to stop, and any other is stopped at the question.
 */
async function answerCheckpoint(agent: RunningAgent, checkpoint: Checkpoint): Promise<OrchestratorMessage> {
  const { run, ports } = agent;
  const { plan, session } = run;
  const given = ports.answers.given(checkpoint.id) ?? (await ports.answers.ask(checkpoint, 'agent'));
  if (given) {
    await ports.progress.event({ kind: 'agent-answered', checkpoint, answer: given });
    return responseTo(checkpoint, given.answer, session, at(agent));
  }
  if (plan.autonomous)
    return {
      type: 'abort_task',
      session,
      at: at(agent),
      reason: `plan ${plan.id} is autonomous: true, and nobody can answer checkpoint "${checkpoint.id}" in a run`,
    };
  agent.waiting = checkpoint;
  // Stop the agent, and any process of it that waits on the answer: the question goes where a person sees it.
  agent.controller.abort(new Error(`waiting for an answer to checkpoint "${checkpoint.id}"`));
  return { type: 'abort_task', session, at: at(agent), reason: `waiting for an answer to checkpoint "${checkpoint.id}"` };
}

/** How the run came out: the checkpoint it stopped at, else what its last message said (a failure when it said neither). */
async function resultOf(agent: RunningAgent): Promise<AgentResult> {
  const { waiting, terminal, seen } = agent;
  const { progress } = agent.ports;
  if (waiting) return { kind: 'checkpoint', checkpoint: waiting, seen };
  if (terminal?.type === 'task_completed') {
    await progress.event({ kind: 'agent-finished' });
    return {
      kind: 'completed',
      ...(terminal.summary === undefined ? {} : { summary: terminal.summary }),
      ...(terminal.usage ? { usage: terminal.usage } : {}),
      seen,
    };
  }
  const error = terminal?.type === 'task_failed' ? terminal.error : 'it ended without saying it completed';
  await progress.event({ kind: 'agent-failed', error });
  return {
    kind: 'failed',
    error,
    timedOut: terminal?.type === 'task_failed' && terminal.timedOut === true,
    ...(terminal?.type === 'task_failed' && terminal.environment === true ? { environment: true } : {}),
    ...(terminal?.type === 'task_failed' && terminal.usage ? { usage: terminal.usage } : {}),
    seen,
  };
}
