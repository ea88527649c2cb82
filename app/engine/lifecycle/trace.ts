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
  let stage: TraceSpan | undefined;
  let agent: TraceSpan | undefined;
  const checks = new Map<string, TraceSpan>();
  const waits = new Map<string, TraceSpan>();
  const tools = new Map<string, TraceSpan>();
  const toolSpan = (id: string, name: string) =>
    tracer.start(`tool ${name}`, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.id': id }, agent ?? under());
  const under = () => stage ?? root;
  const follow = (event: AttemptEvent): void => {
    switch (event.kind) {
      case 'agent-started':
        agent = stage;
        agent?.set({ 'gen_ai.system': event.agent, 'gen_ai.operation.name': 'invoke_agent' });
        return;
      case 'task-started':
        under().event('task started', { 'harness.task': event.task, 'harness.tasks': event.total, 'harness.task_title': event.title });
        return;
      case 'progress':
        under().event('progress', { 'harness.message': event.message.slice(0, 500) });
        return;
      case 'agent-waiting':
        waits.set(
          event.checkpoint.id,
          tracer.start(
            `wait for a person: ${event.checkpoint.id}`,
            { 'harness.checkpoint': event.checkpoint.id, 'harness.checkpoint_kind': event.checkpoint.kind },
            under(),
          ),
        );
        return;
      case 'agent-answered':
        waits.get(event.checkpoint.id)?.end();
        waits.delete(event.checkpoint.id);
        return;
      case 'agent-failed':
        under().event('agent failed', { 'harness.error': event.error.slice(0, 500) });
        return;
      case 'tool': {
        if (event.phase === 'start') {
          tools.get(event.id)?.end();
          tools.set(event.id, toolSpan(event.id, event.name ?? 'tool'));
          return;
        }
        // A call seen only as it ended (Codex's file changes) is still one, if the stream named its tool; an end of no known call (harness's own reporting tool) is nothing.
        const span = tools.get(event.id) ?? (event.name === undefined ? undefined : toolSpan(event.id, event.name));
        tools.delete(event.id);
        span?.end(event.error ? 'the tool call failed' : undefined);
        return;
      }
      case 'check-started':
        checks.set(
          event.check.id,
          tracer.start(
            `check ${event.check.id}`,
            { 'harness.check': event.check.id, 'harness.check_type': event.check.type, ...(event.plan ? { 'harness.plan': event.plan } : {}) },
            under(),
          ),
        );
        return;
      case 'check': {
        const span = checks.get(event.result.id);
        span?.set({ 'harness.check_status': event.result.status });
        span?.end(event.result.status === 'fail' ? event.result.evidence.slice(0, 500) : undefined);
        checks.delete(event.result.id);
        return;
      }
      case 'agent-finished':
      case 'verifying':
        return;
    }
  };
  const progress: Progress = {
    event: (event) => {
      follow(event);
      return ports.progress.event(event);
    },
    record: (message) => {
      if (message.type === 'task_completed' || message.type === 'task_failed') (agent ?? under()).set(usageAttributes(message));
      return ports.progress.record?.(message);
    },
    stage: async (title, work) => {
      const outer = stage;
      const span = tracer.start(title, { 'harness.stage': title.split(':')[0]! }, root);
      stage = span;
      try {
        const result = await ports.progress.stage(title, work);
        span.end();
        return result;
      } catch (e) {
        span.end(e instanceof Error ? e.message : String(e));
        throw e;
      } finally {
        // What a stage left open (a question nobody answered, a check cut off, a tool call with no result) ends with it.
        for (const open of [...checks.values(), ...waits.values(), ...tools.values()]) open.end();
        checks.clear();
        waits.clear();
        tools.clear();
        stage = outer;
      }
    },
  };
  return { ...ports, progress };
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
