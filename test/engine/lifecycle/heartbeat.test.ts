import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Ticker } from '../../../app/engine/core/clock.js';
import type { Check } from '../../../app/engine/core/spec/model.js';
import type { Checkpoint } from '../../../app/engine/core/protocol/messages.js';
import { Heartbeat } from '../../../app/engine/lifecycle/heartbeat.js';
import type { Answers } from '../../../app/engine/lifecycle/ports.js';
import { systemTicker } from '../../../app/machine/clock.js';
import { recordingProgress, tableAnswers } from '../../helpers/lifecycle.js';

/** Vitest's fake timers behind the port: setInterval and Date move only when the test says. */
const fakeTicker: Ticker = {
  monotonic: () => Date.now(),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    return () => clearInterval(timer);
  },
};

const TESTS = { id: 'tests', type: 'build_succeeds', command: 'npm test' } as Check;
const MADE = { id: 'made', type: 'file_exists', path: 'out/a.txt' } as Check;
const QUESTION: Checkpoint = { id: 'storage', kind: 'decision', prompt: 'Which store?', options: ['memory', 'file'] };

function ports() {
  return { progress: recordingProgress(), answers: tableAnswers() };
}

function heartbeat() {
  const lines: string[] = [];
  return { lines, beat: new Heartbeat((l) => void lines.push(l), fakeTicker) };
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the heartbeat', () => {
  it('after 10 s of silence names the plan, its agent, how long it has worked and its last task; then every further 10 s', async () => {
    const { lines, beat } = heartbeat();
    const { ports: followed } = beat.follow({ plan: '01-02', agent: 'claude' }, ports());
    await followed.progress.event({ kind: 'agent-started', agent: 'claude' });
    await followed.progress.event({ kind: 'task-started', task: 1, total: 3, title: 'Write the store' });
    await followed.progress.event({ kind: 'progress', message: 'Running the test suite' });

    vi.advanceTimersByTime(9_999);
    expect(lines).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(lines).toEqual(['still running: 01-02 (claude, 10 s): "Running the test suite"']);
    vi.advanceTimersByTime(10_000);
    vi.advanceTimersByTime(110_000);
    expect(lines.slice(1, 3)).toEqual([
      'still running: 01-02 (claude, 20 s): "Running the test suite"',
      'still running: 01-02 (claude, 30 s): "Running the test suite"',
    ]);
    expect(lines.at(-1)).toBe('still running: 01-02 (claude, 2.2 min): "Running the test suite"');
    expect(lines).toHaveLength(13);
    beat.stop();
  });

  it('says nothing while output flows: any line heard starts the silence again', () => {
    const { lines, beat } = heartbeat();
    beat.follow({ plan: '01-02', agent: 'script' }, ports());
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(8_000);
      beat.heard();
    }
    expect(lines).toEqual([]);
    vi.advanceTimersByTime(10_000);
    expect(lines).toEqual(['still running: 01-02 (script, 50 s)']);
    beat.stop();
  });

  it('names the check a verification runs, with its command and how long it has run', async () => {
    const { lines, beat } = heartbeat();
    const { ports: followed } = beat.follow({ phase: '01' }, ports());
    await followed.progress.event({ kind: 'verifying', level: 'phase' });
    vi.advanceTimersByTime(5_000);
    await followed.progress.event({ kind: 'check-started', check: TESTS, plan: '01-01' });
    vi.advanceTimersByTime(5_000);
    expect(lines).toEqual(['still verifying phase 01: check 01-01/tests "npm test" (5 s)']);
    // Between checks: the verification itself.
    await followed.progress.event({
      kind: 'check',
      result: { id: 'tests', type: 'build_succeeds', status: 'pass', evidence: 'exit 0', plan: '01-01' } as never,
    });
    vi.advanceTimersByTime(10_000);
    expect(lines[1]).toBe('still verifying phase 01 (20 s)');
    beat.stop();
  });

  it('follows a plan from its agent to its checks, a check without a command named by its type', async () => {
    const { lines, beat } = heartbeat();
    const { ports: followed } = beat.follow({ plan: '01-02', agent: 'claude' }, ports());
    vi.advanceTimersByTime(30_000);
    expect(lines.at(-1)).toBe('still running: 01-02 (claude, 30 s)');
    await followed.progress.event({ kind: 'agent-finished' });
    await followed.progress.event({ kind: 'verifying', level: 'plan' });
    beat.heard();
    // The time of the verification, not of the whole attempt.
    vi.advanceTimersByTime(10_000);
    expect(lines.at(-1)).toBe('still verifying 01-02 (10 s)');
    await followed.progress.event({ kind: 'check-started', check: MADE });
    vi.advanceTimersByTime(10_000);
    expect(lines.at(-1)).toBe('still verifying 01-02: check made (file_exists) (10 s)');
    beat.stop();
  });

  it('says nothing of a plan waiting for a person, and speaks of it again once answered', async () => {
    const { lines, beat } = heartbeat();
    let answer: (a: { answer: string }) => void = () => undefined;
    const answers: Answers = { given: () => undefined, ask: () => new Promise((resolve) => (answer = resolve)) };
    const asked = { progress: recordingProgress(), answers };
    const { ports: followed } = beat.follow({ plan: '01-02', agent: 'claude' }, asked);
    const waiting = followed.answers.ask(QUESTION, 'agent');
    vi.advanceTimersByTime(60_000);
    expect(lines).toEqual([]);
    answer({ answer: 'file' });
    expect(await waiting).toEqual({ answer: 'file' });
    // The silence has lasted a minute: the next look speaks.
    vi.advanceTimersByTime(1_000);
    expect(lines).toEqual(['still running: 01-02 (claude, 1 min)']);
    beat.stop();
  });

  it('says one line for each thing running, and nothing of what has ended', async () => {
    const { lines, beat } = heartbeat();
    const plan = beat.follow({ plan: '01-02', agent: 'codex' }, ports());
    const phase = beat.follow({ phase: '01' }, ports());
    vi.advanceTimersByTime(10_000);
    expect(lines).toEqual(['still running: 01-02 (codex, 10 s)', 'still verifying phase 01 (10 s)']);
    plan.end();
    vi.advanceTimersByTime(10_000);
    expect(lines.slice(2)).toEqual(['still verifying phase 01 (20 s)']);
    phase.end();
    vi.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(3);
    beat.stop();
  });

  it('passes the events, the answers and the stages on as they were', async () => {
    const { beat } = heartbeat();
    const inner = ports();
    const { ports: followed } = beat.follow({ plan: '01-02', agent: 'claude' }, inner);
    await followed.progress.event({ kind: 'progress', message: 'hello' });
    await followed.progress.record?.({ type: 'session_ready', session: 's', at: 'now', agent: 'claude' });
    expect(await followed.progress.stage('agent', async () => 42)).toBe(42);
    expect(await followed.answers.ask(QUESTION, 'agent')).toBeUndefined();
    expect(inner.progress.events).toEqual([{ kind: 'progress', message: 'hello' }]);
    expect(inner.progress.messages).toHaveLength(1);
    expect(inner.progress.stages).toEqual(['agent']);
    expect(inner.answers.asked).toEqual([{ checkpoint: QUESTION, origin: 'agent' }]);
    beat.stop();
  });

  it("keeps an agent's words on one line, cut", async () => {
    const { lines, beat } = heartbeat();
    const { ports: followed } = beat.follow({ plan: '01-02', agent: 'claude' }, ports());
    await followed.progress.event({ kind: 'progress', message: `first line\n10:00:00 01-02 verified and merged ${'x'.repeat(200)}` });
    vi.advanceTimersByTime(10_000);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('\n');
    expect(lines[0]).toMatch(/^still running: 01-02 \(claude, 10 s\): "first line\\u000a10:00:00 01-02 verified and merged x+…"$/);
    expect(lines[0]!.length).toBeLessThan(160);
    beat.stop();
  });

  it('ends cleanly: once stopped it says nothing and leaves no timer behind', () => {
    const { lines, beat } = heartbeat();
    beat.follow({ plan: '01-02', agent: 'claude' }, ports());
    expect(vi.getTimerCount()).toBe(1);
    beat.stop();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(60_000);
    expect(lines).toEqual([]);
  });
});

describe("the machine's ticker", () => {
  it('calls back every interval until cancelled', () => {
    const calls: number[] = [];
    const cancel = systemTicker().every(1_000, () => calls.push(calls.length));
    vi.advanceTimersByTime(3_000);
    expect(calls).toEqual([0, 1, 2]);
    cancel();
    vi.advanceTimersByTime(3_000);
    expect(calls).toHaveLength(3);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps no process alive by itself', () => {
    vi.useRealTimers();
    const spy = vi.spyOn(globalThis, 'setInterval');
    const cancel = systemTicker().every(60_000, () => undefined);
    try {
      const timer = spy.mock.results[0]!.value as NodeJS.Timeout;
      expect(timer.hasRef()).toBe(false);
    } finally {
      cancel();
      spy.mockRestore();
    }
  });
});
