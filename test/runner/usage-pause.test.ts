import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../app/cli/io.js';
import { standInCodex, type StandInCodex } from '../helpers/codex-standin.js';
import { runCli } from '../helpers/cli.js';
import { git, makeRepo, SPEC_DIR, specTree } from '../helpers/repo.js';

const SESSIONS = '.orchestration/SPC-007/sessions';
const INTEGRATION = 'harness/SPC-007/integration';

/**
 * The run's clock, driven by the test: `now` moves only when a timer the run set is made to ring
 * (the wait for a usage limit's reset), so the wait is checked without waiting.
 */
function fakeClock(start: Date): NonNullable<CliIO['clock']> & { at: Date; timers: number[]; ring(): void } {
  const pending: { ms: number; fn: () => void }[] = [];
  const clock = {
    at: start,
    timers: [] as number[],
    now: () => clock.at,
    after(ms: number, fn: () => void) {
      clock.timers.push(ms);
      const timer = { ms, fn };
      pending.push(timer);
      return () => void pending.splice(pending.indexOf(timer) >>> 0, pending.includes(timer) ? 1 : 0);
    },
    ring() {
      const timer = pending.shift();
      if (!timer) throw new Error('the run set no timer');
      clock.at = new Date(clock.at.getTime() + timer.ms);
      timer.fn();
    },
  };
  return clock;
}

/** A two-plan spec run by the codex stand-in: 01-01 stops at the usage limit once, 01-02 depends on it. */
async function pausedSpec(): Promise<{ root: string; codex: StandInCodex; resetsAt: Date; start: Date }> {
  const root = await makeRepo(
    specTree([
      { id: '01-01', steps: [], body: 'Write out/01-01.txt.' },
      { id: '01-02', dependsOn: ['01-01'], steps: [], body: 'Write out/01-02.txt.' },
    ]),
  );
  // Two days on, minute-aligned: the CLI words the reset with its date, and harness reads it back exactly.
  const start = new Date();
  const resetsAt = new Date((Math.floor(start.getTime() / 60_000) + 2 * 1440) * 60_000);
  const codex = await standInCodex([
    [{ write: ['out/01-01.txt', 'half\n'] }, { limit: { plan: 'plus', resets_at: resetsAt.getTime() / 1000 } }],
    [{ recall: 'Write out/01-01.txt.' }, { write: ['out/01-01.txt', 'one\n'] }, { final: 'Wrote it.' }],
    [{ write: ['out/01-02.txt', 'two\n'] }, { final: 'Wrote it.' }],
  ]);
  return { root, codex, resetsAt, start };
}

describe("harness run at the model's usage limit", () => {
  it('pauses the plan, not an attempt and no signal, its dependant waiting; ends with the reset time and the command, exit 75', async () => {
    const { root, codex, resetsAt, start } = await pausedSpec();
    const clock = fakeClock(start);

    const run = await runCli(['run', SPEC_DIR, '--agent', 'codex'], root, { env: codex.env, clock });

    const iso = resetsAt.toISOString();
    expect(run.code).toBe(75);
    expect(run.stderr).toContain(
      `harness run: 01-01 paused at the model's usage limit until ${iso}; resume then with: harness run ${SPEC_DIR} (or now with --wait, which waits for it)\n`,
    );
    expect(run.stdout).toContain("01-01 paused at the model's usage limit until");
    expect(run.stdout).toContain('0/2 plans verified, 0/1 phases verified, 1 paused at the usage limit');
    expect(run.stdout).not.toContain('FAILED');
    // Nothing was waited for: without --wait the run sets no timer for the reset.
    expect(clock.timers).toEqual([]);
    const status = JSON.parse(readFileSync(join(root, SESSIONS, '01-01/status.json'), 'utf8')) as {
      state: string;
      attempt: number;
      pause: { resetsAt: string; resumeAt: string };
    };
    expect(status).toMatchObject({ state: 'paused', attempt: 1, pause: { resetsAt: iso, resumeAt: iso } });
    // No end of an attempt: no result, no SUMMARY.md, no signal; the dependant never started.
    expect(existsSync(join(root, SESSIONS, '01-01/result.json'))).toBe(false);
    expect(existsSync(join(root, SESSIONS, '01-02'))).toBe(false);
    const files = git(root, 'ls-tree', '-r', '--name-only', INTEGRATION);
    expect(files).not.toContain('01-01-SUMMARY.md');
    expect(files).not.toMatch(/signals\//);
    expect(git(root, 'show', `${INTEGRATION}:${SPEC_DIR}/STATUS.md`)).toContain(
      `- 01-01 Plan 01-01: paused — the model's usage limit; harness run resumes it after ${iso}`,
    );
    expect((await codex.calls()).length).toBe(1);

    const shown = await runCli(['status', SPEC_DIR], root);
    expect(shown.stdout).toContain(`‖ 01-01 Plan 01-01  paused · the model's usage limit; it resets at ${iso}, when harness run goes on with it`);
    expect(shown.stdout).toContain('· 01-02 Plan 01-02  pending');
    expect(shown.stdout).toContain(`  resume: harness run ${SPEC_DIR} (after ${iso}; with --wait it waits for it)`);
    const json = JSON.parse((await runCli(['status', SPEC_DIR, '--json'], root)).stdout) as { plans: { id: string; state: string; resumeAt: string | null }[] };
    expect(json.plans.map((p) => [p.id, p.state, p.resumeAt])).toEqual([
      ['01-01', 'paused', iso],
      ['01-02', 'pending', null],
    ]);
  });

  it('with --wait, waits on its timer until the reset, then continues the same session and runs the dependant', async () => {
    const { root, codex, resetsAt, start } = await pausedSpec();
    const clock = fakeClock(start);
    expect((await runCli(['run', SPEC_DIR, '--agent', 'codex'], root, { env: codex.env, clock })).code).toBe(75);

    // Started again before the reset: the paused plan waits; the test rings the run's timer when it is set.
    const running = runCli(['run', SPEC_DIR, '--wait'], root, { env: codex.env, clock });
    await expect.poll(() => clock.timers.length, { timeout: 20_000 }).toBe(1);
    expect(clock.timers[0]).toBe(resetsAt.getTime() - start.getTime());
    expect((await codex.calls()).length).toBe(1);
    clock.ring();
    const run = await running;

    expect(run.stderr).toBe('harness run: each plan runs with the codex agent, as this run was started (--agent NAME for another)\n');
    expect(run.code).toBe(0);
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('one\n');
    expect(git(root, 'show', `${INTEGRATION}:out/01-02.txt`)).toBe('two\n');
    const calls = await codex.calls();
    expect(calls).toHaveLength(3);
    // The thread the limit stopped is resumed, and told to go on.
    expect(calls[1]!.args.slice(0, 2)).toEqual(['exec', 'resume']);
    expect(calls[1]!.prompt).toContain('A person answered checkpoint "usage-limit" (action).');
    expect(calls[1]!.prompt).toContain('continue');
    // Still the first attempt.
    expect(git(root, 'show', `${INTEGRATION}:${SPEC_DIR}/execution/phases/01-phase/01-01-SUMMARY.md`)).toMatch(/^attempts: 1\b/m);
  });

  it('resumes a paused plan at once in a run started after the reset, without waiting', async () => {
    const { root, codex, resetsAt, start } = await pausedSpec();
    const clock = fakeClock(start);
    expect((await runCli(['run', SPEC_DIR, '--agent', 'codex'], root, { env: codex.env, clock })).code).toBe(75);

    clock.at = new Date(resetsAt.getTime() + 60_000);
    const run = await runCli(['run', SPEC_DIR], root, { env: codex.env, clock });

    expect(run.code).toBe(0);
    expect(clock.timers).toEqual([]);
    expect(run.stdout).toContain('01-01 resumed');
    expect((await codex.calls()).map((c) => c.args[1])).toEqual(['--json', 'resume', '--json']);
  });
});
