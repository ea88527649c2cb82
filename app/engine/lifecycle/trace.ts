import type { WorkerMessage } from '../core/protocol/messages.js';
import type { AttemptEvent, AttemptPorts, Progress } from './ports.js';

/**
 * A plan's attempt as a trace: one span for the attempt, a child for each stage (the agent, the
 * verification), and under them a span per check and per wait for a person; under the agent's,
 * a span per tool call its stream reports (`execute_tool`, from the call to its result); the
 * agent's progress lines are events on the agent's span, and what it reported it used is on that span in OpenTelemetry's GenAI terms
 * (`gen_ai.usage.input_tokens`, …). The engine only follows its ports, as the heartbeat does;
 * the runtime's adapter (machine/otel.ts) makes the spans and exports them.
 */

export type SpanAttributes = Record<string, string | number | boolean>;

/** A span the adapter holds open until `end`. */
export interface TraceSpan {
  set(attributes: SpanAttributes): void;
  event(name: string, attributes?: SpanAttributes): void;
  /** Ends it; `error` marks it failed, with why. */
  end(error?: string): void;
}

/** Where spans are made: the adapter at the runtime's edge. */
export interface Tracer {
  start(name: string, attributes: SpanAttributes, parent?: TraceSpan): TraceSpan;
  /**
   * The environment that puts what the agent's CLI traces itself under `span` (TRACEPARENT) and
   * names it as the plan's (OTEL_RESOURCE_ATTRIBUTES); none where no collector is named.
   */
  link?(span: TraceSpan): Record<string, string>;
}

/** The figures an agent reports of its use, as GenAI attributes. */
function usageAttributes(message: Extract<WorkerMessage, { type: 'task_completed' | 'task_failed' }>): SpanAttributes {
  const u = message.usage;
  const out: SpanAttributes = {};
  if (u?.inputTokens !== undefined) out['gen_ai.usage.input_tokens'] = u.inputTokens;
  if (u?.outputTokens !== undefined) out['gen_ai.usage.output_tokens'] = u.outputTokens;
  if (u?.costUsd !== undefined) out['harness.cost_usd'] = u.costUsd;
  if (u?.turns !== undefined) out['harness.turns'] = u.turns;
  if (message.facts?.model !== undefined) out['gen_ai.response.model'] = message.facts.model;
  if (message.facts?.toolCalls !== undefined) out['harness.tool_calls'] = message.facts.toolCalls;
  return out;
}

/**
 * The attempt's ports, followed into spans under `root`: stages become its children, checks and
 * waits for a person the stage's. The ports work exactly as before; only spans are added.
 */
export function tracedPorts<P extends Pick<AttemptPorts, 'progress'>>(ports: P, tracer: Tracer, root: TraceSpan): P {
  const trace: Trace = { tracer, root, checks: new Map(), waits: new Map(), tools: new Map() };
  const progress: Progress = {
    event: (event) => {
      follow(trace, event);
      return ports.progress.event(event);
    },
    record: (message) => {
      if (message.type === 'task_completed' || message.type === 'task_failed') (trace.agent ?? under(trace)).set(usageAttributes(message));
      return ports.progress.record?.(message);
    },
    stage: (title, work) => tracedStage(trace, ports.progress, title, work),
  };
  return { ...ports, progress };
}

/** The spans of one attempt as its events come: the stage running, the agent's, and what is open under them by id. */
interface Trace {
  tracer: Tracer;
  root: TraceSpan;
  stage?: TraceSpan | undefined;
  agent?: TraceSpan | undefined;
  checks: Map<string, TraceSpan>;
  waits: Map<string, TraceSpan>;
  tools: Map<string, TraceSpan>;
}

/** Where an event goes: the stage running, else the attempt. */
function under(trace: Trace): TraceSpan {
  return trace.stage ?? trace.root;
}

/** One event of the attempt, followed into its spans. */
function follow(trace: Trace, event: AttemptEvent): void {
  switch (event.kind) {
    case 'agent-started':
      trace.agent = trace.stage;
      trace.agent?.set({ 'gen_ai.system': event.agent, 'gen_ai.operation.name': 'invoke_agent' });
      return;
    case 'task-started':
      under(trace).event('task started', { 'harness.task': event.task, 'harness.tasks': event.total, 'harness.task_title': event.title });
      return;
    case 'progress':
      under(trace).event('progress', { 'harness.message': event.message.slice(0, 500) });
      return;
    case 'agent-waiting':
      trace.waits.set(
        event.checkpoint.id,
        trace.tracer.start(
          `wait for a person: ${event.checkpoint.id}`,
          { 'harness.checkpoint': event.checkpoint.id, 'harness.checkpoint_kind': event.checkpoint.kind },
          under(trace),
        ),
      );
      return;
    case 'agent-answered':
      trace.waits.get(event.checkpoint.id)?.end();
      trace.waits.delete(event.checkpoint.id);
      return;
    case 'agent-failed':
      under(trace).event('agent failed', { 'harness.error': event.error.slice(0, 500) });
      return;
    case 'tool':
      return followTool(trace, event);
    case 'check-started':
    case 'check':
      return followCheck(trace, event);
    case 'agent-finished':
    case 'verifying':
      return;
  }
}

/** A tool call's span, under the agent's. */
function toolSpan(trace: Trace, id: string, name: string): TraceSpan {
  return trace.tracer.start(
    `tool ${name}`,
    { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.id': id },
    trace.agent ?? under(trace),
  );
}

/** A tool call started (a span opened) or ended (its span ended, failed when the call did). */
function followTool(trace: Trace, event: Extract<AttemptEvent, { kind: 'tool' }>): void {
  const { tools } = trace;
  if (event.phase === 'start') {
    tools.get(event.id)?.end();
    tools.set(event.id, toolSpan(trace, event.id, event.name ?? 'tool'));
    return;
  }
  // A call seen only as it ended (Codex's file changes) is still one, if the stream named its tool; an end of no known call (harness's own reporting tool) is nothing.
  const span = tools.get(event.id) ?? (event.name === undefined ? undefined : toolSpan(trace, event.id, event.name));
  tools.delete(event.id);
  span?.end(event.error ? 'the tool call failed' : undefined);
}

/** A check started (a span opened under the stage) or its result (the span ended, failed with the evidence of a failing check). */
function followCheck(trace: Trace, event: Extract<AttemptEvent, { kind: 'check-started' | 'check' }>): void {
  const { checks } = trace;
  if (event.kind === 'check-started') {
    checks.set(
      event.check.id,
      trace.tracer.start(
        `check ${event.check.id}`,
        { 'harness.check': event.check.id, 'harness.check_type': event.check.type, ...(event.plan ? { 'harness.plan': event.plan } : {}) },
        under(trace),
      ),
    );
    return;
  }
  const span = checks.get(event.result.id);
  span?.set({ 'harness.check_status': event.result.status });
  span?.end(event.result.status === 'fail' ? event.result.evidence.slice(0, 500) : undefined);
  checks.delete(event.result.id);
}

/** One stage as a child of the attempt's span, ended (failed with the error that ended the stage) with what it left open. */
async function tracedStage<T>(trace: Trace, progress: Progress, title: string, work: () => Promise<T>): Promise<T> {
  const outer = trace.stage;
  const span = trace.tracer.start(title, { 'harness.stage': title.split(':')[0]! }, trace.root);
  trace.stage = span;
  try {
    const result = await progress.stage(title, work);
    span.end();
    return result;
  } catch (e) {
    span.end(e instanceof Error ? e.message : String(e));
    throw e;
  } finally {
    // What a stage left open (a question nobody answered, a check cut off, a tool call with no result) ends with it.
    for (const open of [...trace.checks.values(), ...trace.waits.values(), ...trace.tools.values()]) open.end();
    trace.checks.clear();
    trace.waits.clear();
    trace.tools.clear();
    trace.stage = outer;
  }
}

/**
 * An attempt as one trace: a root span named after the plan, the attempt's ports followed under
 * it (tracedPorts), and as it ends its outcome and the engine that ended it on the root, which
 * is failed with the reason of a failed attempt (or the error that ended it). `attempt` gets
 * the environment that links the agent CLI's own telemetry to the root (Tracer.link), for the
 * agent's.
 */
export async function tracedAttempt<P extends Pick<AttemptPorts, 'progress'>, O extends { kind: string; facts: { agent: string }; reason?: string }>(
  tracer: Tracer,
  plan: { id: string; title: string },
  attributes: SpanAttributes,
  ports: P,
  attempt: (ports: P, env: Record<string, string>) => Promise<O>,
): Promise<O> {
  const root = tracer.start(`plan ${plan.id}: ${plan.title}`, attributes);
  try {
    const outcome = await attempt(tracedPorts(ports, tracer, root), tracer.link?.(root) ?? {});
    root.set({ 'harness.outcome': outcome.kind, 'harness.agent': outcome.facts.agent });
    root.end(outcome.kind === 'failed' ? outcome.reason : undefined);
    return outcome;
  } catch (e) {
    root.end(e instanceof Error ? e.message : String(e));
    throw e;
  }
}
