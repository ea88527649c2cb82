import { checkpointMessageType, type AgentFacts, type Checkpoint, type Insight, type Usage, type WorkerMessage } from '../engine/core/protocol/messages.js';
import type { WorkerContext } from '../engine/core/agents/agent.js';
import type { ToolCall } from '../engine/core/agents/stream-json.js';
import { environmentFault } from '../machine/environment-fault.js';

/**
 * Builds and emits an agent's protocol messages, so that every agent fills the envelope
 * (session, time, plan) the same way and none can forget a field.
 */
export class Reporter {
  constructor(private readonly context: WorkerContext) {}

  private get envelope() {
    return { session: this.context.task.session, at: this.context.now().toISOString() };
  }

  private get plan() {
    return this.context.plan.id;
  }

  async send(message: WorkerMessage): Promise<void> {
    await this.context.emit(message);
  }

  ready(agent: string): Promise<void> {
    return this.send({ ...this.envelope, type: 'session_ready', agent });
  }

  started(task: number, total: number, title: string): Promise<void> {
    return this.send({ ...this.envelope, type: 'task_started', plan: this.plan, task, total, title });
  }

  progress(message: string, task?: { task: number; total: number }): Promise<void> {
    return this.send({ ...this.envelope, type: 'progress_update', plan: this.plan, message, ...(task ?? {}) });
  }

  /** A tool call the agent's stream reported (cli-driver.ts, CliAdapter.toolCall), as it starts or ends. */
  tool(call: ToolCall): Promise<void> {
    return this.send({
      ...this.envelope,
      type: 'tool_call',
      plan: this.plan,
      id: call.id.slice(0, 200),
      ...(call.name ? { name: call.name.slice(0, 200) } : {}),
      phase: call.phase,
      ...(call.error === undefined ? {} : { error: call.error }),
    });
  }

  checkpoint(checkpoint: Checkpoint): Promise<void> {
    return this.send({ ...this.envelope, type: checkpointMessageType(checkpoint.kind), plan: this.plan, checkpoint });
  }

  completed(commits: string[], summary?: string, usage?: Usage, facts?: AgentFacts): Promise<void> {
    return this.send({
      ...this.envelope,
      type: 'task_completed',
      plan: this.plan,
      commits,
      ...(summary !== undefined ? { summary } : {}),
      ...(usage ? { usage } : {}),
      ...(facts ? { facts } : {}),
    });
  }

  /** `timedOut`: the plan's timeout_minutes stopped the work; `usage`: what the agent reported it used; `agent`: what it counted of its work. */
  failed(
    error: string,
    retryable = false,
    facts: { timedOut?: boolean; environment?: boolean; usage?: Usage | undefined; agent?: AgentFacts | undefined } = {},
  ): Promise<void> {
    return this.send({
      ...this.envelope,
      type: 'task_failed',
      plan: this.plan,
      error,
      retryable,
      ...(facts.timedOut ? { timedOut: true } : {}),
      ...(facts.environment ? { environment: true } : {}),
      ...(facts.usage ? { usage: facts.usage } : {}),
      ...(facts.agent ? { facts: facts.agent } : {}),
    });
  }

  /** Something the agent learned (an innovation, a pattern), for the knowledge loop. */
  insight(insight: Insight): Promise<void> {
    return this.send({ ...this.envelope, type: 'insight', plan: this.plan, insight });
  }

  /** A message an agent process wrote itself, in this worker's session and plan. */
  forward(message: WorkerMessage): Promise<void> {
    const own = { ...message, session: this.context.task.session };
    return this.send('plan' in own ? { ...own, plan: this.plan } : own);
  }
}

/** A program harness runs that could not start: `spawn git ENOENT` (not on PATH), `spawn git EACCES` (not executable). */
const SPAWN_FAILED = /\bspawn (\S+) (ENOENT|EACCES)\b/;
const TOO_MANY_FILES = /\b(?:EMFILE|ENFILE)\b/;

/**
 * A failure of this machine under harness's own work, in one line, or undefined for any other
 * error: a program harness runs itself (git for its commits, its status, its history) that could
 * not start, a full disk, a process out of file descriptors. Such a failure says nothing of the
 * plan: it is reported as an environment failure, which files no signal and counts no attempt.
 * A file that is not there, or git refusing, is not one: the agent's work may be why.
 */
export function harnessFault(e: unknown): string | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const err = e as { code?: unknown; message?: unknown; stderr?: unknown };
  const text = [err.code, err.message, err.stderr].filter((t) => typeof t === 'string').join('\n');
  const spawn = SPAWN_FAILED.exec(text);
  if (spawn !== null) {
    const [said, program, code] = spawn;
    const fix =
      code === 'ENOENT'
        ? `${program!} is not on the PATH harness gives its processes; install it or put it on that PATH`
        : `${program!} is not executable by this user`;
    return `this machine could not start ${program!} for harness (${said}): ${fix}; run the same command again once it can`;
  }
  const disk = environmentFault(e);
  if (disk !== undefined) return disk;
  if (TOO_MANY_FILES.test(text))
    return 'this machine has too many open files for harness (EMFILE): raise the limit (ulimit -n) or run fewer slots, then run the same command again';
  return undefined;
}

/**
 * Run an agent's work so that it always ends with task_completed or task_failed, whatever
 * broke underneath (git, the file system, a process): the protocol's promise to the orchestrator.
 * What broke in this machine under harness's own work (harnessFault) is reported as an
 * environment failure, not as the agent's error: it is no attempt at the plan and no signal.
 */
export async function reportingFailures(agent: string, context: WorkerContext, work: (reporter: Reporter) => Promise<void>): Promise<void> {
  const reporter = new Reporter(context);
  try {
    await work(reporter);
  } catch (e) {
    const fault = harnessFault(e);
    if (fault !== undefined) return reporter.failed(fault, false, { environment: true });
    await reporter.failed(`${agent} agent: ${e instanceof Error ? e.message : String(e)}`, true);
  }
}
