import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { terminalAsker } from '../../app/cli/terminal-ask.js';
import { formatDuration, formatMinutes } from '../../app/engine/core/run/duration.js';
import { displayWidth, liveLines, type LivePlan } from '../../app/runner/live-area.js';
import { PlainReporter, TtyReporter } from '../../app/runner/progress.js';

const totals = { plansVerified: 1, plansTotal: 4, phasesVerified: 0, phasesTotal: 2 };
const plan = (id: string, over: Partial<LivePlan> = {}): LivePlan => ({
  plan: id,
  title: `Plan ${id}`,
  detail: 'verifying',
  seconds: 3,
  waiting: false,
  ...over,
});

describe('the live area', () => {
  it('keeps every line to one terminal row, counting wide characters twice and folding newlines', () => {
    const lines = liveLines({
      plans: [plan('01-01', { title: '日本語のタイトルがとても長い計画です', detail: 'step 1/2 npm test\n  ✓ ok\n  ✓ ok' })],
      totals,
      columns: 40,
      rows: 24,
      frame: '⠋',
    });
    // 8 columns of "⠋ 01-01 ", then 15 wide characters (30 columns) and the mark: 39, one under the 40 columns.
    expect(lines).toEqual(['⠋ 01-01 日本語のタイトルがとても長い計…', '1/4 plans · 0/2 phases']);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(39);
  });

  it('never grows taller than the terminal: plans waiting for a person first, the rest counted', () => {
    const plans = Array.from({ length: 10 }, (_, i) => plan(`01-${String(i + 1).padStart(2, '0')}`, { waiting: i === 7 }));
    const lines = liveLines({ plans, totals, columns: 80, rows: 6, frame: '⠋' });
    expect(lines).toEqual([
      '? 01-08 Plan 01-08 · verifying · 3s',
      '⠋ 01-01 Plan 01-01 · verifying · 3s',
      '⠋ 01-02 Plan 01-02 · verifying · 3s',
      '… and 7 more running',
      `[${'█'.repeat(8)}${'░'.repeat(22)}] 1/4 plans · 0/2 phases`,
    ]);
  });

  it('is held while a question is on screen: nothing is drawn, nothing erased, until released', () => {
    let out = '';
    const reporter = new TtyReporter(
      (t) => void (out += t),
      () => 80,
      () => 24,
    );
    reporter.event({ kind: 'plan-started', plan: '01-02', title: 'Store', attempt: 1, resumed: false });
    const release = reporter.hold();
    const held = out.length;
    expect(out.endsWith('\x1b[1A\x1b[0J')).toBe(true);
    reporter.event({ kind: 'plan-progress', plan: '01-02', message: 'Write src/store.js', task: 1, total: 3 });
    reporter.totals(totals);
    expect(out.length).toBe(held);
    // An event while the question's input line is open starts a line of its own, and is not erased.
    reporter.event({ kind: 'info', text: 'stopping' });
    expect(out.slice(held)).toBe('\nstopping\n');
    const answered = out.length;
    release();
    expect(out.slice(answered)).toMatch(/^. 01-02 Store · step 1\/3 Write src\/store\.js · \ds\n/u);
    reporter.close();
  });

  it('asks one question at a time at the terminal, holding the area while it is asked', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let written = '';
    output.on('data', (d: Buffer) => void (written += d.toString()));
    /** Once the terminal shows `text`: the asker writes, and this hears it. */
    const shown = (text: string) =>
      new Promise<void>((resolve) => {
        const look = () => {
          if (!written.includes(text)) return;
          output.off('data', look);
          resolve();
        };
        output.on('data', look);
        look();
      });
    const holds: string[] = [];
    const ask = terminalAsker({ hold: () => (holds.push('hold'), () => void holds.push('release')) }, { input, output });
    const signal = new AbortController().signal;
    const first = ask({ plan: '01-01', prompt: 'Visual quality: calm?', options: ['approve', 'reject'] }, signal);
    const second = ask({ plan: '01-02', prompt: 'Which store?' }, signal);
    await shown('? 01-01 asks: Visual quality: calm? [approve/reject]\n> ');
    expect(written).not.toContain('01-02');
    input.write('approve\n');
    expect(await first).toBe('approve');
    await shown('? 01-02 asks: Which store?\n> ');
    input.write('memory\n');
    expect(await second).toBe('memory');
    expect(holds).toEqual(['hold', 'release', 'hold', 'release']);
  });
});

describe('durations', () => {
  it('show seconds under a minute, not "0 min"', () => {
    expect([0.2, 1, 12.4, 59, 90, 605, 3_900].map(formatDuration)).toEqual(['under 1 s', '1 s', '12 s', '59 s', '1.5 min', '10 min', '1 h 5 min']);
    expect([0, 0.1, 2.5].map(formatMinutes)).toEqual(['under 3 s', '6 s', '2.5 min']);
  });

  it("in the run's lines", () => {
    let out = '';
    const reporter = new PlainReporter(
      (t) => void (out += t),
      () => new Date('2026-11-22T10:11:12Z'),
    );
    reporter.event({ kind: 'plan-verified', plan: '01-02', minutes: 0.2, seconds: 12.3 });
    expect(out).toBe('10:11:12 01-02 verified and merged (12 s)\n');
  });
});
