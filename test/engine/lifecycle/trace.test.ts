import { describe, expect, it } from 'vitest';
import type { Check } from '../../../app/engine/core/spec/model.js';
import { tracedPorts, type SpanAttributes, type Tracer, type TraceSpan } from '../../../app/engine/lifecycle/trace.js';
import { recordingProgress } from '../../helpers/lifecycle.js';

interface Recorded {
  name: string;
  parent?: string;
  attributes: SpanAttributes;
  events: string[];
  ended: boolean;
  error?: string;
}

/** A tracer that keeps every span it made, by name, with its parent's name. */
function recordingTracer(): Tracer & { spans: Recorded[] } {
  const spans: Recorded[] = [];
  const names = new Map<TraceSpan, string>();
  return {
    spans,
    start(name, attributes, parent) {
      const rec: Recorded = { name, parent: parent ? names.get(parent) : undefined, attributes: { ...attributes }, events: [], ended: false };
      spans.push(rec);
      const span: TraceSpan = {
        set: (a) => void Object.assign(rec.attributes, a),
        event: (n) => void rec.events.push(n),
        end: (error) => {
          rec.ended = true;
          rec.error = error;
        },
      };
      names.set(span, name);
      return span;
    },
  };
}

const TESTS = { id: 'tests', type: 'build_succeeds', command: 'npm test' } as Check;

describe('an attempt followed into spans', () => {
  it('makes each stage a child of the attempt and each check a child of its stage, failed when the check failed', async () => {
    const tracer = recordingTracer();
    const root = tracer.start('attempt', {});
    const ports = tracedPorts({ progress: recordingProgress() }, tracer, root);
    await ports.progress.stage('verify: 01-01', async () => {
      await ports.progress.event({ kind: 'check-started', check: TESTS });
      await ports.progress.event({ kind: 'check', result: { id: 'tests', type: 'build_succeeds', status: 'fail', evidence: 'exit 1', durationMs: 3 } });
    });
    expect(tracer.spans.map((s) => [s.name, s.parent])).toEqual([
      ['attempt', undefined],
      ['verify: 01-01', 'attempt'],
      ['check tests', 'verify: 01-01'],
    ]);
    const check = tracer.spans[2]!;
    expect(check).toMatchObject({ ended: true, error: 'exit 1', attributes: { 'harness.check': 'tests', 'harness.check_status': 'fail' } });
    expect(tracer.spans[1]).toMatchObject({ ended: true, error: undefined, attributes: { 'harness.stage': 'verify' } });
  });

  it('names the agent on its stage and ends a wait for a person nobody answered when the stage ends', async () => {
    const tracer = recordingTracer();
    const root = tracer.start('attempt', {});
    const ports = tracedPorts({ progress: recordingProgress() }, tracer, root);
    await ports.progress.stage('agent: 01-01', async () => {
      await ports.progress.event({ kind: 'agent-started', agent: 'claude' });
      await ports.progress.event({ kind: 'agent-waiting', checkpoint: { id: 'cp-1', kind: 'decision' } as never });
    });
    expect(tracer.spans.map((s) => [s.name, s.parent, s.ended])).toEqual([
      ['attempt', undefined, false],
      ['agent: 01-01', 'attempt', true],
      ['wait for a person: cp-1', 'agent: 01-01', true],
    ]);
    expect(tracer.spans[1]!.attributes).toMatchObject({ 'gen_ai.system': 'claude', 'gen_ai.operation.name': 'invoke_agent' });
  });

  it('makes each tool call the stream reports a span under the agent, from the call to its result, failed when it failed', async () => {
    const tracer = recordingTracer();
    const root = tracer.start('attempt', {});
    const ports = tracedPorts({ progress: recordingProgress() }, tracer, root);
    await ports.progress.stage('agent: 01-01', async () => {
      await ports.progress.event({ kind: 'agent-started', agent: 'claude' });
      await ports.progress.event({ kind: 'tool', id: 't1', name: 'Bash', phase: 'start' });
      await ports.progress.event({ kind: 'tool', id: 't2', name: 'Edit', phase: 'start' });
      await ports.progress.event({ kind: 'tool', id: 't1', phase: 'end', error: true });
      // Codex names a file change only as it completes: still a call.
      await ports.progress.event({ kind: 'tool', id: 'c1', name: 'file_change', phase: 'end', error: false });
      // harness's own reporting tool: its start is never reported, so its end is nothing.
      await ports.progress.event({ kind: 'tool', id: 'own', phase: 'end', error: false });
      // t2 never answered: it ends with the stage.
    });
    expect(tracer.spans.map((s) => [s.name, s.parent, s.ended, s.error])).toEqual([
      ['attempt', undefined, false, undefined],
      ['agent: 01-01', 'attempt', true, undefined],
      ['tool Bash', 'agent: 01-01', true, 'the tool call failed'],
      ['tool Edit', 'agent: 01-01', true, undefined],
      ['tool file_change', 'agent: 01-01', true, undefined],
    ]);
    expect(tracer.spans[2]!.attributes).toEqual({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'Bash', 'gen_ai.tool.call.id': 't1' });
  });
});
