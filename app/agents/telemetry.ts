import { otlpConfigured, tracesUrl } from '../machine/otel.js';

/**
 * The agent CLIs' own OpenTelemetry, pointed at the collector harness sends its traces to and
 * linked to harness's trace of the plan, where the CLI can: only when the agent's environment
 * names a collector (OTEL_EXPORTER_OTLP_ENDPOINT or …_TRACES_ENDPOINT, as harness's own exporter
 * reads them; the headers, OTEL_EXPORTER_OTLP_HEADERS, the CLIs' exporters read themselves). The
 * link: TRACEPARENT (the plan's span, which Claude Code 2.1.332 and Codex 0.171.0 continue in
 * headless runs) and OTEL_RESOURCE_ATTRIBUTES (harness.spec, harness.plan, harness.trace_id,
 * which every CLI's resource carries), both set by the lifecycle's trace (tracedAttempt).
 * Nothing is turned on that logs prompts or tool contents: each CLI's default keeps them out.
 * A variable the user set is theirs: it is never overridden.
 */

type Env = Record<string, string | undefined>;

const unset = (env: Env, values: Record<string, string>): Env =>
  Object.fromEntries(Object.entries(values).filter(([k]) => env[k] === undefined || env[k] === ''));

/**
 * Claude Code 2.1.332: CLAUDE_CODE_ENABLE_TELEMETRY turns telemetry on; its session traces (a
 * `claude_code.interaction` span per turn, with its model requests and tool calls) need
 * CLAUDE_CODE_ENHANCED_TELEMETRY_BETA and OTEL_TRACES_EXPORTER=otlp; metrics and events go with
 * them (OTEL_METRICS_EXPORTER, OTEL_LOGS_EXPORTER), all over OTLP/HTTP JSON.
 */
export function claudeTelemetry(env: Env): Env {
  if (!otlpConfigured(env)) return {};
  return unset(env, {
    CLAUDE_CODE_ENABLE_TELEMETRY: '1',
    CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: '1',
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_METRICS_EXPORTER: 'otlp',
    OTEL_LOGS_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  });
}

/**
 * Gemini CLI 0.61.0: GEMINI_TELEMETRY_ENABLED, to the local target (not Google Cloud), over
 * http; it reads the collector from OTEL_EXPORTER_OTLP_ENDPOINT and adds /v1/traces, /v1/logs
 * and /v1/metrics itself, so a traces-only endpoint cannot be given to it.
 */
export function geminiTelemetry(env: Env): Env {
  if (!otlpConfigured(env) || !env.OTEL_EXPORTER_OTLP_ENDPOINT) return {};
  return unset(env, { GEMINI_TELEMETRY_ENABLED: 'true', GEMINI_TELEMETRY_TARGET: 'local', GEMINI_TELEMETRY_OTLP_PROTOCOL: 'http' });
}

/**
 * Codex 0.171.0 reads its exporters from config only (`otel.trace_exporter`): an OTLP/HTTP JSON
 * exporter to the same traces endpoint, as `-c` overrides. Its exporter reads the headers from
 * OTEL_EXPORTER_OTLP_HEADERS, so no credential goes on its command line.
 */
export function codexTelemetryArgs(env: Env): string[] {
  if (!otlpConfigured(env)) return [];
  return ['-c', `otel.trace_exporter={otlp-http={endpoint=${JSON.stringify(tracesUrl(env))},protocol="json"}}`];
}
