import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attrs, closeCollectors, collector, spansOf } from '../helpers/otlp.js';
import { standInCodex } from '../helpers/codex-standin.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, SPEC_DIR, specTree } from '../helpers/repo.js';

/**
 * Every plan's attempt as an OpenTelemetry trace (engine/lifecycle/trace.ts, machine/otel.ts):
 * written as JSONL beside the plan's records whatever the environment, and sent over OTLP/HTTP to
 * the collector the standard variables name — here a receiver on 127.0.0.1.
 */

async function codexSpec() {
  const root = await makeRepo(specTree([{ id: '01-01', steps: [], body: 'Write out/01-01.txt.' }]));
  const codex = await standInCodex([[{ message: 'Writing the file.' }, { write: ['out/01-01.txt', 'one\n'] }, { final: 'Wrote it.' }]]);
  return { root, codex };
}

afterEach(closeCollectors);

describe('traces of a local run', () => {
  it('sends each attempt to the OTLP collector the environment names: the plan, its agent session with GenAI usage, its verification and each check, linked parent to child', async () => {
    const otlp = await collector();
    const { root, codex } = await codexSpec();

    const run = await runCli(['run', SPEC_DIR, '--agent', 'codex'], root, { env: { ...codex.env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url } });

    expect(run.code, run.stderr).toBe(0);
    const resource = attrs(otlp.bodies[0]!.resourceSpans[0]!.resource);
    expect(resource).toMatchObject({ 'service.name': 'harness', 'harness.spec': 'SPC-007', 'harness.plan': '01-01', 'harness.attempt': 1 });
    const spans = otlp.bodies.flatMap((b) => b.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
    const byName = (prefix: string) => spans.find((s) => s.name.startsWith(prefix))!;
    const plan = byName('plan 01-01');
    const agent = byName('agent codex');
    const verification = byName('plan-level verification of 01-01');
    const check = byName('check made');
    expect(plan.parentSpanId ?? '').toBe('');
    expect(attrs(plan)).toMatchObject({ 'harness.outcome': 'verified', 'harness.agent': 'codex' });
    expect(agent.parentSpanId).toBe(plan.spanId);
    expect(attrs(agent)).toMatchObject({
      'gen_ai.system': 'codex',
      'gen_ai.usage.input_tokens': expect.any(Number),
      'gen_ai.usage.output_tokens': expect.any(Number),
      'harness.turns': expect.any(Number),
    });
    expect(verification.parentSpanId).toBe(plan.spanId);
    expect(check.parentSpanId).toBe(verification.spanId);
    expect(attrs(check)).toMatchObject({ 'harness.check_type': 'file_exists', 'harness.check_status': 'pass' });
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    // Each tool call the stream reported, a span under the agent's: here the stand-in's file change.
    const edit = byName('tool file_change');
    expect(edit.parentSpanId).toBe(agent.spanId);
    expect(attrs(edit)).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'file_change' });
  });

  it('a collector that is down fails nothing: the plan is verified and the spans are in the JSONL file', async () => {
    const { root, codex } = await codexSpec();
    const down = await collector();
    await down.close();

    const run = await runCli(['run', SPEC_DIR, '--agent', 'codex'], root, {
      env: { ...codex.env, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${down.url}/v1/traces`, OTEL_EXPORTER_OTLP_TIMEOUT: '500' },
    });

    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(root, '.orchestration/SPC-007/sessions/01-01/trace.jsonl'), 'utf8')).toContain('"name":"plan 01-01');
  });

  it('always writes the spans as JSONL beside the plan, with no collector named', async () => {
    const { root, codex } = await codexSpec();

    const run = await runCli(['run', SPEC_DIR, '--agent', 'codex'], root, { env: codex.env });

    expect(run.code, run.stderr).toBe(0);
    const lines = readFileSync(join(root, '.orchestration/SPC-007/sessions/01-01/trace.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { name: string; spanId: string; parentSpanId?: string; events: { name: string; attributes: Record<string, unknown> }[] });
    const plan = lines.find((l) => l.name.startsWith('plan 01-01'))!;
    const agent = lines.find((l) => l.name.startsWith('agent codex'))!;
    expect(agent.parentSpanId).toBe(plan.spanId);
    // The agent's progress lines (its tool calls among them) are events on its span.
    expect(agent.events.map((e) => e.attributes['harness.message'])).toEqual(expect.arrayContaining(['Edit out/01-01.txt (add)']));
  });

  it('redacts what the agent printed before it reaches the file or the collector: a secret of the run is never in a span', async () => {
    const otlp = await collector();
    const secret = 'tok_live_abcdefgh12345678';
    const root = await makeRepo(specTree([{ id: '01-01', steps: [], body: 'Write out/01-01.txt.' }]));
    const codex = await standInCodex([[{ message: `Deploying with ${secret} now.` }, { write: ['out/01-01.txt', 'one\n'] }, { final: 'Wrote it.' }]]);

    const run = await runCli(['run', SPEC_DIR, '--agent', 'codex'], root, {
      env: { ...codex.env, DEPLOY_TOKEN: secret, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url },
    });

    expect(run.code, run.stderr).toBe(0);
    const file = readFileSync(join(root, '.orchestration/SPC-007/sessions/01-01/trace.jsonl'), 'utf8');
    const sent = JSON.stringify(otlp.bodies);
    expect(file).toContain('Deploying with [REDACTED] now.');
    expect(sent).toContain('Deploying with [REDACTED] now.');
    expect(file).not.toContain(secret);
    expect(sent).not.toContain(secret);
  });

  it("points the agent CLI's own telemetry at the same collector, under the plan's span: Codex's trace exporter, TRACEPARENT and the plan's ids", async () => {
    const otlp = await collector();
    const { root, codex } = await codexSpec();

    const run = await runCli(['run', SPEC_DIR, '--agent', 'codex'], root, { env: { ...codex.env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url } });

    expect(run.code, run.stderr).toBe(0);
    const [call] = await codex.calls();
    // Codex 0.171.0 reads its exporters from config only: an OTLP/HTTP JSON exporter to the traces endpoint (its headers from the environment).
    expect(call!.config.otel).toEqual({ trace_exporter: { 'otlp-http': { endpoint: `${otlp.url}/v1/traces`, protocol: 'json' } } });
    const plan = spansOf(otlp).find((x) => x.name.startsWith('plan 01-01'))!;
    expect(call!.env.TRACEPARENT).toBe(`00-${plan.traceId}-${plan.spanId}-01`);
    expect(call!.env.OTEL_RESOURCE_ATTRIBUTES!.split(',')).toEqual(
      expect.arrayContaining(['harness.spec=SPC-007', 'harness.plan=01-01', 'harness.attempt=1', `harness.trace_id=${plan.traceId}`]),
    );
  });

  it("leaves the agent's telemetry alone where no collector is named", async () => {
    const { root, codex } = await codexSpec();

    const run = await runCli(['run', SPEC_DIR, '--agent', 'codex'], root, { env: codex.env });

    expect(run.code, run.stderr).toBe(0);
    const [call] = await codex.calls();
    expect(call!.config.otel).toBeUndefined();
    expect(call!.env.TRACEPARENT).toBeUndefined();
    expect(call!.env.OTEL_RESOURCE_ATTRIBUTES).toBeUndefined();
  });
});
