import { describe, expect, it } from 'vitest';
import { PlainReporter, TtyReporter } from '../../app/runner/progress.js';

const checkpoint = { id: 'storage', kind: 'decision' as const, prompt: 'Which store?\nmore text', options: ['memory', 'file'] };

describe('run progress', () => {
  it('prints one timestamped line per event when the output is not a terminal', () => {
    let out = '';
    const reporter = new PlainReporter(
      (t) => void (out += t),
      () => new Date('2026-11-22T10:11:12Z'),
    );
    reporter.event({ kind: 'plan-started', plan: '01-02', title: 'Store', attempt: 1, resumed: false });
    reporter.event({ kind: 'plan-progress', plan: '01-02', message: 'Write src/store.js', task: 1, total: 3 });
    reporter.event({ kind: 'plan-checkpoint', plan: '01-02', checkpoint, respond: 'harness respond docs/specs/x 01-02 <answer>' });
    reporter.event({ kind: 'plan-failed', plan: '01-02', reason: 'tests failed' });
    expect(out).toBe(
      [
        '10:11:12 01-02 started: Store',
        '10:11:12 01-02 [1/3] Write src/store.js',
        '10:11:12 01-02 waits for a person to decide: Which store?',
        '    answer with: harness respond docs/specs/x 01-02 <answer>',
        '10:11:12 01-02 FAILED: tests failed',
        '',
      ].join('\n'),
    );
  });

  it('keeps a line per running plan and a bar for the spec below the events in a terminal', () => {
    let out = '';
    const reporter = new TtyReporter(
      (t) => void (out += t),
      () => 80,
    );
    reporter.totals({ plansVerified: 1, plansTotal: 4, phasesVerified: 0, phasesTotal: 2 });
    reporter.event({ kind: 'plan-started', plan: '01-02', title: 'Store', attempt: 1, resumed: false });
    reporter.event({ kind: 'plan-progress', plan: '01-02', message: 'Write src/store.js', task: 2, total: 3 });
    reporter.close();
    // The last frame drawn before closing: the running plan, then the bar; each redraw first
    // moves the cursor up over the previous frame and clears it.
    const frames = out.split('\x1b[2A\x1b[0J');
    const last = frames[frames.length - 2] ?? '';
    expect(last).toMatch(/^. 01-02 Store · step 2\/3 Write src\/store\.js · \ds\n\[█{8}░{22}\] 1\/4 plans · 0\/2 phases\n$/u);
    expect(out).toContain('01-02 started: Store\n');
    expect(out.endsWith('\x1b[2A\x1b[0J')).toBe(true);
  });

  it('prints the heartbeat as a line of its own, stamped when piped, and not over a question being typed in a terminal', () => {
    let plain = '';
    new PlainReporter(
      (t) => void (plain += t),
      () => new Date('2026-11-22T10:11:12Z'),
    ).event({ kind: 'heartbeat', text: 'still verifying phase 01 (10 s)' });
    expect(plain).toBe('10:11:12 still verifying phase 01 (10 s)\n');

    let out = '';
    const reporter = new TtyReporter(
      (t) => void (out += t),
      () => 80,
    );
    reporter.event({ kind: 'heartbeat', text: 'still running: 01-02 (claude, 10 s)' });
    expect(out).toContain('still running: 01-02 (claude, 10 s)\n');
    const release = reporter.hold();
    reporter.event({ kind: 'heartbeat', text: 'still running: 01-02 (claude, 20 s)' });
    release();
    reporter.event({ kind: 'heartbeat', text: 'still running: 01-02 (claude, 30 s)' });
    reporter.close();
    expect(out).not.toContain('20 s');
    expect(out).toContain('still running: 01-02 (claude, 30 s)\n');
  });
});
