import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { context, trace, SpanStatusCode, type Context, type Span } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor, type ReadableSpan, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { SpanAttributes, Tracer, TraceSpan } from '../engine/lifecycle/trace.js';
import { makeSafe, type SafetyOptions } from './content-safety.js';

/**
 * The trace adapter: OpenTelemetry's own SDK makes the spans of an attempt (engine/lifecycle/
 * trace.ts says which), and they go two ways. Always into a JSONL file among the run's records,
 * one span a line as it ends. And, when the standard variables name a collector
 * (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT, with
 * OTEL_EXPORTER_OTLP_HEADERS and the rest, read by the official exporter), over OTLP/HTTP, with
 * a bounded time-out: a collector that is down costs a plan at most that, and fails nothing.
 */

/** How long the exporter waits for a collector, per export (OTEL_EXPORTER_OTLP_TIMEOUT overrides it). */
const OTLP_TIMEOUT_MS = 5_000;

/** One span as a line of the JSONL file: ids, times in ISO, attributes and events as they were. */
export interface SpanLine {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  start: string;
  end: string;
  status: 'ok' | 'error';
  error?: string;
  attributes: Record<string, unknown>;
  events: { name: string; at: string; attributes: Record<string, unknown> }[];
}

const iso = ([s, ns]: [number, number]) => new Date(s * 1000 + Math.floor(ns / 1e6)).toISOString();

export function spanLine(span: ReadableSpan): SpanLine {
  const ids = span.spanContext();
  const parent = span.parentSpanContext?.spanId;
  return {
    traceId: ids.traceId,
    spanId: ids.spanId,
    ...(parent ? { parentSpanId: parent } : {}),
    name: span.name,
    start: iso(span.startTime),
    end: iso(span.endTime),
    status: span.status.code === SpanStatusCode.ERROR ? 'error' : 'ok',
    ...(span.status.message ? { error: span.status.message } : {}),
    attributes: { ...span.attributes },
    events: span.events.map((e) => ({ name: e.name, at: iso(e.time), attributes: { ...(e.attributes ?? {}) } })),
  };
}

/** Spans into a JSONL file, a line as each ends (written at once: a run killed midway keeps what ended). */
class JsonlExporter implements SpanExporter {
  constructor(private readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
  }
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    try {
      appendFileSync(this.file, spans.map((s) => `${JSON.stringify(spanLine(s))}\n`).join(''));
      done({ code: ExportResultCode.SUCCESS });
    } catch (e) {
      done({ code: ExportResultCode.FAILED, error: e as Error });
    }
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Between a span's texts while they are made safe together: no secret rule matches across it. */
const TEXT_SEPARATOR = '\n\u0000\u0000\n';

/**
 * A span as an exporter may see it: every text in it (its name, its attributes' and events'
 * strings, its status message) through the content-safety pass (secrets redacted, the project's
 * paths made relative), in one pass a span. The rest is the span's own.
 */
async function safeSpan(span: ReadableSpan, safety: SafetyOptions): Promise<ReadableSpan> {
  const texts: string[] = [span.name, span.status.message ?? ''];
  const strings = (attributes: Record<string, unknown>) => Object.values(attributes).forEach((v) => typeof v === 'string' && texts.push(v));
  strings(span.attributes);
  for (const e of span.events) strings(e.attributes ?? {});
  let safe = (await makeSafe(texts.join(TEXT_SEPARATOR), safety)).text.split(TEXT_SEPARATOR);
  // A redaction that swallowed a separator: each text on its own.
  if (safe.length !== texts.length) safe = await Promise.all(texts.map(async (t) => (await makeSafe(t, safety)).text));
  let at = 2;
  const redacted = <T extends Record<string, unknown>>(attributes: T): T =>
    Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, typeof v === 'string' ? safe[at++] : v])) as T;
  const attributes = redacted(span.attributes);
  const events = span.events.map((e) => ({ ...e, ...(e.attributes ? { attributes: redacted(e.attributes) } : {}) }));
  const status = { ...span.status, ...(span.status.message === undefined ? {} : { message: safe[1] }) };
  // The span's methods (spanContext) and every other field as they are; only the texts are replaced.
  return Object.assign(Object.create(span) as ReadableSpan, { name: safe[0], attributes, events, status });
}

/** An exporter that hands on only safe spans (safeSpan). */
class SafeExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly safety: SafetyOptions,
  ) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    Promise.all(spans.map((s) => safeSpan(s, this.safety))).then(
      (safe) => this.inner.export(safe, done),
      (e: unknown) => done({ code: ExportResultCode.FAILED, error: e as Error }),
    );
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}

/** Whether the environment names an OTLP collector for traces. */
export function otlpConfigured(env: Record<string, string | undefined>): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT) && env.OTEL_TRACES_EXPORTER !== 'none';
}

/** The traces endpoint: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, else OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces. */
export function tracesUrl(env: Record<string, string | undefined>): string {
  const own = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (own) return own;
  return `${(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').replace(/\/+$/, '')}/v1/traces`;
}

/** OTEL_EXPORTER_OTLP_HEADERS (and the traces' own, which win): `key=value` pairs, comma-separated, values URL-encoded. */
export function otlpHeaders(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const list of [env.OTEL_EXPORTER_OTLP_HEADERS, env.OTEL_EXPORTER_OTLP_TRACES_HEADERS]) {
    for (const pair of (list ?? '').split(',')) {
      const at = pair.indexOf('=');
      if (at <= 0) continue;
      try {
        out[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
      } catch {
        // A malformed pair is left out, as the specification says.
      }
    }
  }
  return out;
}

export interface PlanTracer extends Tracer {
  /** Every span ended and exported (to the file, and to the collector when there is one). */
  close(): Promise<void>;
}

/**
 * A tracer for one attempt: its spans under one trace, in `file`, and at the collector the
 * environment names. `resource` says whose they are (service.name harness, the spec, the plan,
 * the attempt; on a runner the repository and the workflow run). What an agent or a check
 * printed reaches the file and the collector only through the content-safety pass (`safety`:
 * the run's secrets and roots).
 */
export function planTracer(
  file: string,
  resource: SpanAttributes,
  env: Record<string, string | undefined> = process.env,
  safety: SafetyOptions = {},
): PlanTracer {
  const processors: SpanProcessor[] = [new SimpleSpanProcessor(new SafeExporter(new JsonlExporter(file), safety))];
  if (otlpConfigured(env)) {
    const timeout = Number(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT ?? OTLP_TIMEOUT_MS);
    // Read from the run's environment (a local run's may not be this process's): the endpoint and headers as the specification words them.
    const otlp = new OTLPTraceExporter({
      url: tracesUrl(env),
      headers: otlpHeaders(env),
      timeoutMillis: Number.isFinite(timeout) && timeout > 0 ? timeout : OTLP_TIMEOUT_MS,
    });
    processors.push(new SimpleSpanProcessor(new SafeExporter(otlp, safety)));
  }
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'harness', ...resource }), spanProcessors: processors });
  const tracer = provider.getTracer('harness');
  const exported = otlpConfigured(env);
  // The resource's ids in OTEL_RESOURCE_ATTRIBUTES' own form (key=value, comma-separated, values percent-encoded), the user's first.
  const resourceAttributes = (traceId: string) =>
    [env.OTEL_RESOURCE_ATTRIBUTES, ...Object.entries({ ...resource, 'harness.trace_id': traceId }).map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)]
      .filter(Boolean)
      .join(',');
  const wrap = (span: Span, ctx: Context): TraceSpan & { ctx: Context } => ({
    ctx,
    set: (attributes) => void span.setAttributes(attributes),
    event: (name, attributes) => void span.addEvent(name, attributes),
    end: (error) => {
      if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
      span.end();
    },
  });
  return {
    start(name, attributes, parent) {
      const parentCtx = (parent as (TraceSpan & { ctx?: Context }) | undefined)?.ctx ?? context.active();
      const span = tracer.startSpan(name, { attributes }, parentCtx);
      return wrap(span, trace.setSpan(parentCtx, span));
    },
    link(span): Record<string, string> {
      const ctx = (span as TraceSpan & { ctx?: Context }).ctx;
      const ids = ctx ? trace.getSpanContext(ctx) : undefined;
      if (!exported || !ids) return {};
      return { TRACEPARENT: `00-${ids.traceId}-${ids.spanId}-01`, OTEL_RESOURCE_ATTRIBUTES: resourceAttributes(ids.traceId) };
    },
    async close() {
      // A collector that cannot be reached is said by the exporter's own diagnostics, never a failure of the plan.
      await provider.forceFlush().catch(() => undefined);
      await provider.shutdown().catch(() => undefined);
    },
  };
}
