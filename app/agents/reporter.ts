import { checkpointMessageType, type AgentFacts, type Checkpoint, type Insight, type Usage, type WorkerMessage } from '../engine/core/protocol/messages.js';
import type { WorkerContext } from '../engine/core/agents/agent.js';

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
  failed(error: string, retryable = false, facts: { timedOut?: boolean; environment?: boolean; usage?: Usage | undefined; agent?: AgentFacts | undefined } = {}): Promise<void> {
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

/**
 * Run an agent's work so that it always ends with task_completed or task_failed, whatever
 * broke underneath (git, the file system, a process): the protocol's promise to the orchestrator.
 */
export async function reportingFailures(agent: string, context: WorkerContext, work: (reporter: Reporter) => Promise<void>): Promise<void> {
  const reporter = new Reporter(context);
  try {
    await work(reporter);
  } catch (e) {
    await reporter.failed(`${agent} agent: ${e instanceof Error ? e.message : String(e)}`, true);
  }
}
