import { describe, expect, it } from 'vitest';
import { barsOf, formatRuns, parseRuns, planUseOf, RUNS_RECORD_MAX, RUNS_RECORDED, withRun, type RunRecord } from '../../../app/engine/forge/run-record.js';

/**
 * The worker's account of each run on its plan issue (`runs=`, engine/forge/run-record.ts): what
 * the status comment draws the timeline and adds the spend from. Written by one version and read
 * by the next, edited by nobody but the App and writers, it must read back exactly and never
 * guess at what does not parse.
 */

const T0 = Date.parse('2026-12-05T09:00:00Z') / 1000;

function run(n: number, extra: Partial<RunRecord> = {}): RunRecord {
  return {
    run: `${100 + n}.1`,
    start: T0 + n * 3600,
    seconds: 600,
    agent: [30, 480],
    verification: [480, 590],
    end: 'verified',
    engines: ['claude'],
    usage: { costUsd: 0.5, turns: 10, inputTokens: 1000, outputTokens: 200 },
    ...extra,
  };
}

describe("a plan's run record", () => {
  it('reads back what it wrote: stages, end, engines and every figure, an unreported one left out', () => {
    const record = withRun(
      withRun(undefined, run(0, { waited: 45, end: 'checkpoint', engines: ['codex', 'gemini'], usage: { inputTokens: 5000, outputTokens: 90 } })),
      run(1, { verification: undefined }),
    );
    const text = formatRuns(record);

    expect(text).toBe(`100.1:${T0}:600:45:30-480:480-590:c:codex+gemini:::5000:90,101.1:${T0 + 3600}:600::30-480::v:claude:0.5:10:1000:200`);
    expect(parseRuns(text)).toEqual(record);
    // Nothing in it a marker line cannot hold.
    expect(text).toMatch(/^\S+$/);
    expect(text).not.toContain('-->');
  });

  it("replaces a run's own entry when the same job writes its end again, and adds another run's", () => {
    const once = withRun(undefined, run(0, { end: 'failed' }));
    expect(withRun(once, run(0)).runs).toEqual([run(0)]);
    expect(withRun(once, run(1)).runs.map((r) => r.run)).toEqual(['100.1', '101.1']);
  });

  it(`keeps the last ${RUNS_RECORDED} runs with their times and folds older ones, so the spend still counts every run`, () => {
    let record: ReturnType<typeof withRun> | undefined;
    for (let n = 0; n < RUNS_RECORDED + 3; n++) record = withRun(record, run(n, { end: n % 2 === 0 ? 'failed' : 'checkpoint' }));

    expect(record!.runs.map((r) => r.run)).toEqual(Array.from({ length: RUNS_RECORDED }, (_, i) => `${103 + i}.1`));
    expect(record!.earlier).toEqual({ attempts: 2, usage: { costUsd: 1.5, turns: 30, inputTokens: 3000, outputTokens: 600 } });
    const read = parseRuns(formatRuns(record!));
    expect(read).toEqual(record);
    expect(planUseOf(read)).toEqual({ usage: { costUsd: 7.5, turns: 150, inputTokens: 15000, outputTokens: 3000 }, attempts: 8, engines: ['claude'] });
  });

  it('leaves out an entry that does not parse, and reads the rest', () => {
    const good = formatRuns({ runs: [run(0)] });
    for (const bad of [
      `x1:${T0}:600:::::v:claude::::`,
      `101.1:${T0}:600::30-900::v:claude::::`, // a stage past the run's end
      `101.1:${T0}:600:soon:::v:claude::::`, // no such wait
      `101.1:${T0}:600::::z:claude::::`, // no such end
      `101.1:${T0}:600::::v:Claude;rm::::`,
      `101.1:${T0}:600::::v:claude:1e400:::`,
      `101.1:${T0}:600::::v:claude::-3::`,
      `101.1:${T0}:600::::v:claude:::`, // a field short
      `101.1:${T0}:600:::v:claude::::`, // the entry of before the wait was recorded
      'earlier:x:::::',
    ]) {
      expect(parseRuns(`${bad},${good}`), bad).toEqual({ runs: [run(0)] });
    }
    expect(parseRuns('')).toBeUndefined();
    expect(parseRuns('garbage')).toBeUndefined();
  });

  it('keeps within the room the issue body leaves it, folding the oldest runs sooner when their entries are long', () => {
    let record: ReturnType<typeof withRun> | undefined;
    const long = (n: number) =>
      run(n, {
        run: `${12345678901234567890n + BigInt(n)}.9999`,
        engines: ['claude', 'codex', 'gemini', 'copilot', 'command'],
        waited: 86000,
        usage: { costUsd: 1234.5678, turns: 99999, inputTokens: 9999999999, outputTokens: 999999999 },
      });
    for (let n = 0; n < 40; n++) record = withRun(record, long(n));
    expect(formatRuns(record!).length).toBeLessThanOrEqual(RUNS_RECORD_MAX);
    expect(record!.earlier!.usage.costUsd).toBeCloseTo(1234.5678 * (40 - record!.runs.length), 2);
    expect(parseRuns(formatRuns(record!))).toEqual(record);
  });

  it('leaves out an entry naming more engines than a plan has', () => {
    expect(parseRuns(`101.1:${T0}:600::::v:a+b+c+d+e+f::::`)).toBeUndefined();
  });

  it('reads no more entries than it keeps: a body stuffed with thousands costs nothing', () => {
    const many = Array.from({ length: 5000 }, (_, i) => formatRuns({ runs: [run(i)] })).join(',');
    expect(parseRuns(many)!.runs).toHaveLength(RUNS_RECORDED);
  });

  it('draws each run as its wait for a runner, set-up, agent and verification, and the wait for a person between a checkpoint and the run that went on', () => {
    const record = {
      runs: [
        run(0, { end: 'checkpoint', verification: undefined, agent: [20, 300], seconds: 320 }),
        run(1, { waited: 40, agent: [10, 100], verification: [100, 160], seconds: 170 }),
        run(2, { end: 'paused', agent: [0, 50], verification: undefined, seconds: 50 }),
        run(3, { agent: [5, 40], verification: undefined, seconds: 40, end: 'failed' }),
      ],
    };
    const at = (s: number) => new Date((T0 + s) * 1000).toISOString();

    expect(barsOf(record)).toEqual([
      { kind: 'set-up', start: at(0), end: at(20) },
      { kind: 'agent', start: at(20), end: at(300) },
      // Answered (the App dispatched the next run), then 40 s waiting for a runner.
      { kind: 'person', start: at(320), end: at(3560) },
      { kind: 'runner', start: at(3560), end: at(3600) },
      { kind: 'set-up', start: at(3600), end: at(3610) },
      { kind: 'agent', start: at(3610), end: at(3700) },
      { kind: 'verification', start: at(3700), end: at(3760) },
      // A pause at the usage limit: no set-up (the agent started at once), then the wait for the limit.
      { kind: 'agent', start: at(7200), end: at(7250) },
      { kind: 'usage limit', start: at(7250), end: at(10800) },
      { kind: 'set-up', start: at(10800), end: at(10805) },
      { kind: 'agent', start: at(10805), end: at(10840) },
    ]);
  });

  it('counts as attempts only the runs that ended the attempt, and nothing for a plan no run reported on', () => {
    expect(planUseOf({ runs: [run(0, { end: 'checkpoint' }), run(1, { end: 'paused' })] })!.attempts).toBe(0);
    expect(planUseOf({ runs: [run(0, { end: 'checkpoint', usage: {} })] })).toBeUndefined();
    expect(planUseOf(undefined)).toBeUndefined();
  });
});
