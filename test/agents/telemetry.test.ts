import { describe, expect, it } from 'vitest';
import { claudeTelemetry, codexTelemetryArgs, geminiTelemetry } from '../../app/agents/telemetry.js';

/**
 * The agent CLIs' own telemetry (agents/telemetry.ts), in the variables and config each pinned
 * CLI reads (Claude Code 2.1.332 and Gemini CLI 0.61.0 from their bundles, Codex 0.171.0 run
 * against a collector on 127.0.0.1): on only where a collector is named, never over what the
 * user set, never logging prompts.
 */

const COLLECTOR = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };

describe("the agent CLIs' own telemetry", () => {
  it('is off without a collector, and off when traces are turned off', () => {
    for (const env of [{}, { ...COLLECTOR, OTEL_TRACES_EXPORTER: 'none' }]) {
      expect(claudeTelemetry(env)).toEqual({});
      expect(geminiTelemetry(env)).toEqual({});
      expect(codexTelemetryArgs(env)).toEqual([]);
    }
  });

  it("turns Claude Code's traces, metrics and events on over OTLP/HTTP JSON, leaving what the user chose", () => {
    expect(claudeTelemetry(COLLECTOR)).toEqual({
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: '1',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_LOGS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    const mine = claudeTelemetry({ ...COLLECTOR, OTEL_METRICS_EXPORTER: 'none', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(mine).not.toHaveProperty('OTEL_METRICS_EXPORTER');
    expect(mine).not.toHaveProperty('OTEL_EXPORTER_OTLP_PROTOCOL');
    expect(Object.keys(claudeTelemetry(COLLECTOR)).filter((k) => /PROMPT|CONTENT|RESPONSES/.test(k))).toEqual([]);
  });

  it("points Gemini CLI's local telemetry at the collector over http, and not at a traces-only endpoint it would append to", () => {
    expect(geminiTelemetry(COLLECTOR)).toEqual({ GEMINI_TELEMETRY_ENABLED: 'true', GEMINI_TELEMETRY_TARGET: 'local', GEMINI_TELEMETRY_OTLP_PROTOCOL: 'http' });
    expect(geminiTelemetry({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toEqual({});
  });

  it('gives Codex its trace exporter as a -c override, to the traces endpoint, with no credential on its command line', () => {
    const args = codexTelemetryArgs({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otel.example.com/traces',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20secret',
    });
    expect(args).toEqual(['-c', 'otel.trace_exporter={otlp-http={endpoint="https://otel.example.com/traces",protocol="json"}}']);
    expect(args.join(' ')).not.toContain('secret');
  });
});
