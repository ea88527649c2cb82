import { getEventListeners } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { sleep } from '../../app/runner/answers.js';
import { PlainReporter, RecordingReporter, type RunEvent } from '../../app/runner/progress.js';
import { runSpec } from '../../app/runner/runner.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { gate } from '../helpers/gate.js';
import { makeRepo, SPEC_DIR, specTree, type StepPlan } from '../helpers/repo.js';

async function run(root: string, extra: Partial<Parameters<typeof runSpec>[0]> = {}) {
  const reporter = new RecordingReporter();
  const outcome = await runSpec({ specDir: join(root, SPEC_DIR), specArg: SPEC_DIR, slots: 4, agent: 'script', reporter, pollMs: 25, ...extra });
  return { outcome, reporter };
}

// 01-01 is the more critical plan (01-03 waits for it) and writes the file 01-02 writes: picked
// first, it used to push 01-02 out of the round, and then the filter dropped 01-01 itself.
const conflicting: StepPlan[] = [
  { id: '01-01', files: ['out/01-01.txt', 'out/shared.txt'], steps: ['mkdir -p out && echo a > out/01-01.txt && echo a > out/shared.txt'] },
  { id: '01-02', files: ['out/01-02.txt', 'out/shared.txt'], steps: ['mkdir -p out && echo b > out/01-02.txt && echo b > out/shared.txt'] },
  { id: '01-03', dependsOn: ['01-01'], steps: ['mkdir -p out && echo c > out/01-03.txt'] },
];

describe('harness run --plan / --phase', () => {
  it('filters before the scheduler picks: a plan conflicting with a more critical one outside the filter still runs, and the run exits 0', async () => {
    const root = await makeRepo(specTree(conflicting));
    const r = await runCli(['run', SPEC_DIR, '--agent', 'script', '--plan', '01-02'], root);
    expect(r.stdout).toContain('\nSPC-007: 1/3 plans verified, 0/1 phases verified\n');
    expect(r.stdout).toMatch(/01-02 verified and merged \(/);
    expect(r.stdout).not.toContain('01-01 started');
    expect(r.code).toBe(0);
  });

  it('says which dependency keeps a named plan from starting, and how to run it', async () => {
    const root = await makeRepo(specTree(conflicting));
    const r = await runCli(['run', SPEC_DIR, '--agent', 'script', '--plan', '01-03'], root);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')).toContain(
      `  01-03 cannot start yet: it depends on 01-01 (pending), which --plan 01-03 leaves out; run it first (harness run ${SPEC_DIR} --plan 01-01) or run without --plan 01-03`,
    );
  });

  it("runs a phase's plans with --phase and names the plan of an earlier phase a later plan waits for", async () => {
    const plans: StepPlan[] = [
      { id: '01-01', steps: ['mkdir -p out && echo a > out/01-01.txt'] },
      { id: '02-01', steps: ['mkdir -p out && echo b > out/02-01.txt'] },
      { id: '02-02', dependsOn: ['01-01'], steps: ['mkdir -p out && echo c > out/02-02.txt'] },
    ];
    const root = await makeRepo(specTree(plans));
    const { outcome } = await run(root, { phase: '02' });
    expect(outcome.plans).toEqual({ '01-01': 'pending', '02-01': 'verified', '02-02': 'pending' });
    expect(outcome.waits).toEqual([
      `02-02 cannot start yet: it depends on 01-01 (pending), which --phase 02 leaves out; run it first (harness run ${SPEC_DIR} --plan 01-01) or run without --phase 02`,
    ]);
  });
});

describe('a run, as a newcomer reads it', () => {
  it("asks a plan's human check once: the approval stands at phase level", async () => {
    const plans: StepPlan[] = [
      {
        id: '01-01',
        extra: 'autonomous: false',
        checks: ['  - { id: made, type: file_exists, path: out/01-01.txt }', '  - { id: looks, type: visual_quality, prompt: "The page looks calm" }'],
        steps: ['mkdir -p out && echo a > out/01-01.txt'],
      },
    ];
    const root = await makeRepo(specTree(plans));
    const asked: string[] = [];
    let status = '';
    const { outcome, reporter } = await run(root, {
      ask: async (checkpoint) => {
        asked.push(`${checkpoint.plan}: ${checkpoint.prompt}`);
        status = (await runCli(['status', SPEC_DIR], root)).stdout;
        return 'approve';
      },
    });
    expect(asked).toEqual(['01-01: Visual quality: The page looks calm']);
    expect(outcome.complete).toBe(true);
    // What it asks is said once, in the run's line and in status.
    const line = new PlainReporter(
      (t) => void (status += t),
      () => new Date('2026-11-22T10:11:12Z'),
    );
    line.event(reporter.events.find((e) => e.kind === 'plan-checkpoint')!);
    expect(status).toContain(
      `\nWaiting for a person:\n  01-01 asks you to check: Visual quality: The page looks calm\n    harness respond ${SPEC_DIR} 01-01 <answer>   (approve | reject)\n`,
    );
    expect(status).toContain(
      `10:11:12 01-01 waits for a person to check: Visual quality: The page looks calm\n    answer with: harness respond ${SPEC_DIR} 01-01 <answer> (one of: approve, reject)\n`,
    );
  });

  it('researches ahead only phases none of whose plans has started', async () => {
    // 01-01 runs until phase 02's research is reported (its gate opens then): research ahead
    // happens while a plan of phase 01 runs, not by the time a step takes.
    const researched = gate(join(await tempDir('harness-gate-'), 'researched'));
    const plans: StepPlan[] = [
      { id: '01-01', steps: [`${researched.wait}; mkdir -p out && echo a > out/01-01.txt`] },
      { id: '02-01', dependsOn: ['01-01'], steps: ['mkdir -p out && echo b > out/02-01.txt'] },
    ];
    const root = await makeRepo(specTree(plans));
    const reporter = new (class extends RecordingReporter {
      override event(e: RunEvent): void {
        super.event(e);
        if (e.kind === 'research') researched.open();
      }
    })();
    const { outcome } = await run(root, { reporter });
    expect(outcome.complete).toBe(true);
    expect(reporter.events.filter((e) => e.kind === 'research').map((e) => e.kind === 'research' && e.phase)).toEqual(['02']);
  });

  it("gives a failed check's reason with the output line that says what failed, and status keeps multi-line details under the plan", async () => {
    const plans: StepPlan[] = [
      {
        id: '01-01',
        checks: [`  - { id: tests, type: tests_pass, command: 'printf "# tests 1\\nAssertionError: expected 2 to be 3\\n# fail 1\\n"; exit 1' }`],
        steps: ['mkdir -p out && echo a > out/01-01.txt'],
      },
    ];
    const root = await makeRepo(specTree(plans));
    const { outcome, reporter } = await run(root);
    expect(outcome.problems).toBeUndefined();
    const failed = reporter.events.find((e) => e.kind === 'plan-failed');
    expect(failed).toEqual({
      kind: 'plan-failed',
      plan: '01-01',
      reason: 'plan 01-01 did not pass verification: 1 check failed: tests (exit 1: AssertionError: expected 2 to be 3)',
    });
    const status = await runCli(['status', SPEC_DIR], root);
    expect(status.stdout).toContain(
      '  ✗ 01-01 Plan 01-01  failed · plan 01-01 did not pass verification: 1 check failed: tests (exit 1: AssertionError: expected 2 to be 3)\n',
    );
  });

  it('status keeps a multi-line reason under its plan, not at the margin', async () => {
    const root = await makeRepo(specTree([{ id: '01-01', steps: ['echo "first problem" >&2; echo "second problem" >&2; exit 3'] }]));
    await run(root);
    const status = await runCli(['status', SPEC_DIR], root);
    expect(status.stdout).toMatch(
      /\n {2}✗ 01-01 Plan 01-01 {2}failed · the script agent failed: step 1\/1 "Step 1" failed with exit code 3 \(log: [^)]+\)\n {6}first problem\n {6}second problem\n/,
    );
    // The work's length is the machine's (under 3 s when idle): the line is asserted, not the time.
    expect(status.stdout).toMatch(/failed · 0\/1 plans · 0\/1 phases · 0% · [^\n]+ of work\n/);
  });

  it('waits at a checkpoint without piling abort listeners on its signal', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => void vi.useRealTimers());
    const controller = new AbortController();
    for (let i = 0; i < 30; i++) {
      const waited = sleep(1, controller.signal);
      vi.advanceTimersByTime(1);
      await waited;
    }
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    const pending = sleep(10_000, controller.signal);
    controller.abort();
    await pending;
  });
});
