import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordingReporter } from '../../app/runner/progress.js';
import { runSpec } from '../../app/runner/runner.js';
import { OrchestrationStore } from '../../app/runner/store.js';
import { runCli } from '../helpers/cli.js';
import { git, makeRepo, SPEC_DIR, specTree, type StepPlan, worktreeOf } from '../helpers/repo.js';
import { ROOT } from '../helpers/paths.js';
import { fileAppears, fileHolds, pathAppears } from '../helpers/file-appears.js';
import { gate } from '../helpers/gate.js';

const BIN = join(ROOT, 'bin', 'harness.js');

async function run(root: string, extra: Partial<Parameters<typeof runSpec>[0]> = {}) {
  const reporter = new RecordingReporter();
  const outcome = await runSpec({ specDir: join(root, SPEC_DIR), specArg: SPEC_DIR, slots: 4, agent: 'script', reporter, pollMs: 25, ...extra });
  return { outcome, reporter };
}

const integration = (root: string) => worktreeOf(root, 'SPC-007', 'integration');
const record = (root: string, path: string) => readFileSync(join(integration(root), SPEC_DIR, path), 'utf8');

/** (plan, task) → commits carrying those trailers on the integration branch. */
function taskCommits(root: string): Map<string, number> {
  const log = git(root, 'log', '--format=%(trailers:key=Plan,valueonly,separator=)|%(trailers:key=Task,valueonly,separator=)', 'harness/SPC-007/integration');
  const counts = new Map<string, number>();
  for (const line of log.split('\n')) {
    const [plan, task] = line.split('|');
    if (plan && task) counts.set(`${plan} ${task}`, (counts.get(`${plan} ${task}`) ?? 0) + 1);
  }
  return counts;
}

describe('harness run', () => {
  it('runs independent plans side by side but never two plans that write the same file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'harness-log-'));
    const log = join(dir, 'events');
    // 01-01 and 01-02 each go on only once 01-03 has started (the test opens their gate when the
    // log says so): run side by side, it starts while the first of them runs; run one after
    // another, that plan would wait for good.
    const started0103 = gate(join(dir, 'started-01-03'));
    const step = (id: string) =>
      `echo "start ${id}" >> "$EVENTS"; ${id === '01-03' ? '' : `${started0103.wait}; `}mkdir -p out; echo ${id} > out/${id}.txt; echo "end ${id}" >> "$EVENTS"`;
    const plans: StepPlan[] = [
      { id: '01-01', files: ['out/01-01.txt', 'shared/config.json'], steps: [step('01-01')] },
      { id: '01-02', files: ['out/01-02.txt', 'shared/**'], steps: [step('01-02')] },
      { id: '01-03', files: ['out/01-03.txt'], steps: [step('01-03')] },
    ];
    const root = await makeRepo(specTree(plans));
    const running = run(root, { env: { EVENTS: log } });
    await fileHolds(log, (text) => text.includes('start 01-03'));
    started0103.open(2);
    const { outcome } = await running;
    expect(outcome.complete).toBe(true);
    const events = readFileSync(log, 'utf8').trim().split('\n');
    const span = (id: string) => [events.indexOf(`start ${id}`), events.indexOf(`end ${id}`)] as const;
    const [a0, a1] = span('01-01');
    const [b0, b1] = span('01-02');
    // 01-01 and 01-02 both write shared/config.json: one ends before the other starts.
    expect(a1 < b0 || b1 < a0).toBe(true);
    // 01-03 writes nothing the others do: it ran alongside the first of them.
    const [c0] = span('01-03');
    expect(c0).toBeLessThan(Math.min(a1, b1));
  });

  it('starts many plans at once without git tripping over itself', async () => {
    const plans: StepPlan[] = Array.from({ length: 16 }, (_, i) => ({
      id: `01-${String(i + 1).padStart(2, '0')}`,
      steps: [`mkdir -p out && echo ${i} > out/01-${String(i + 1).padStart(2, '0')}.txt`],
    }));
    const root = await makeRepo(specTree(plans));
    const { outcome, reporter } = await run(root, { slots: 8 });
    expect(reporter.events.filter((e) => e.kind === 'info')).toEqual([]);
    expect(outcome.complete).toBe(true);
    expect(git(integration(root), 'ls-tree', '--name-only', 'HEAD', 'out/').trim().split('\n')).toHaveLength(16);
  });

  it('blocks exactly the dependants of a failed plan and runs everything else', async () => {
    const plans: StepPlan[] = [
      { id: '01-01', steps: ['mkdir -p out && echo ok > out/01-01.txt'] },
      { id: '01-02', steps: ['echo "the build broke" >&2; exit 3'] },
      { id: '01-03', dependsOn: ['01-02'], steps: ['mkdir -p out && echo ok > out/01-03.txt'] },
      { id: '01-04', dependsOn: ['01-03'], steps: ['mkdir -p out && echo ok > out/01-04.txt'] },
      { id: '01-05', dependsOn: ['01-01'], steps: ['mkdir -p out && echo ok > out/01-05.txt'] },
    ];
    const root = await makeRepo(specTree(plans));
    const { outcome, reporter } = await run(root);
    expect(outcome.plans).toEqual({ '01-01': 'verified', '01-02': 'failed', '01-03': 'blocked', '01-04': 'blocked', '01-05': 'verified' });
    expect(outcome.complete).toBe(false);
    expect(reporter.events.filter((e) => e.kind === 'plan-blocked').map((e) => e.kind === 'plan-blocked' && [e.plan, e.because])).toEqual([
      ['01-03', '01-02 failed'],
      ['01-04', '01-02 failed'],
    ]);
    const summary = record(root, 'execution/phases/01-phase/01-02-SUMMARY.md');
    expect(summary).toContain('status: failed');
    expect(summary).toContain('the build broke');
    // The failed plan's work never reaches the integration branch.
    expect(existsSync(join(integration(root), 'out/01-05.txt'))).toBe(true);
    expect(git(root, 'log', '--format=%s', 'harness/SPC-007/integration')).not.toContain('Merge plan 01-02');
  });

  it('blocks the next phase when a phase check fails on the merged work, and runs the CLI exit 1', async () => {
    const phaseRecorded = gate(join(await mkdtemp(join(tmpdir(), 'harness-gate-')), 'phase-01-recorded'));
    const roadmap = `---\nphases:\n  - id: "01"\n    title: Base\n    must_pass:\n      - { id: both, type: command_output, command: "cat out/01-01.txt out/01-02.txt", expect: { contains: "onetwo" } }\n  - { id: "02", title: Next }\n---\n# Roadmap\n`;
    const plans: StepPlan[] = [
      { id: '01-01', steps: ['mkdir -p out && printf one > out/01-01.txt'] },
      { id: '01-02', steps: ['mkdir -p out && printf TWO > out/01-02.txt'] },
      // 02-02 ends only once phase 01's verification is on record (failed), so 02-01 cannot start before it.
      { id: '02-01', dependsOn: ['01-01', '02-02'], steps: ['mkdir -p out && echo ok > out/02-01.txt'] },
      { id: '02-02', steps: [`${phaseRecorded.wait}; mkdir -p out && echo ok > out/02-02.txt`] },
    ];
    const root = await makeRepo(specTree(plans, roadmap));
    const running = runCli(['run', SPEC_DIR, '--agent', 'script'], root);
    await pathAppears(join(root, '.orchestration/SPC-007/phases/01.json'));
    phaseRecorded.open();
    const cli = await running;
    expect(cli.code).toBe(1);
    const store = new OrchestrationStore(join(root, '.orchestration/SPC-007'));
    expect((await store.readPhase('01'))?.outcome).toBe('failed');
    expect(await store.readPhase('02')).toBeUndefined();
    expect((await runCli(['status', SPEC_DIR, '--json'], root)).stdout).toContain('"state": "blocked"');
    const status = JSON.parse((await runCli(['status', SPEC_DIR, '--json'], root)).stdout);
    expect(status.phases).toEqual([
      { id: '01', title: 'Base', state: 'failed' },
      { id: '02', title: 'Next', state: 'pending' },
    ]);
    // 02-01 needs phase 01's work and had not started: blocked. 02-02 needs nothing and ran.
    expect(Object.fromEntries(status.plans.map((p: { id: string; state: string }) => [p.id, p.state]))).toEqual({
      '01-01': 'verified',
      '01-02': 'verified',
      '02-01': 'blocked',
      '02-02': 'verified',
    });
    const verification = record(root, 'execution/phases/01-phase/VERIFICATION.md');
    expect(verification).toContain('status: failed');
  });

  it('finishes a run killed with SIGKILL mid-plan with the same result and no duplicate commits', async () => {
    const plans: StepPlan[] = [
      {
        id: '01-01',
        files: ['out/a.txt', 'out/b.txt', 'out/c.txt'],
        steps: ['mkdir -p out && echo a > out/a.txt', 'touch "$MARK"; sleep 2; echo b > out/b.txt', 'echo c > out/c.txt'],
      },
      { id: '01-02', dependsOn: ['01-01'], steps: ['mkdir -p out && cat out/a.txt out/b.txt out/c.txt > out/01-02.txt'] },
    ];
    const tree = specTree(plans);
    const mark = join(await mkdtemp(join(tmpdir(), 'harness-mark-')), 'in-step-2');
    const killed = await makeRepo(tree);
    const child = spawn(process.execPath, [BIN, 'run', SPEC_DIR, '--agent', 'script'], { cwd: killed, env: { ...process.env, MARK: mark }, stdio: 'ignore' });
    await fileAppears(mark);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    const again = await run(killed, { env: { MARK: join(tmpdir(), 'unused-mark') } });
    expect(again.outcome.complete).toBe(true);
    const clean = await makeRepo(tree);
    await run(clean, { env: { MARK: join(tmpdir(), 'unused-mark') } });

    const files = (root: string) => git(integration(root), 'ls-tree', '-r', '--name-only', 'HEAD', 'out').trim().split('\n');
    expect(files(killed)).toEqual(files(clean));
    expect(readFileSync(join(integration(killed), 'out/01-02.txt'), 'utf8')).toBe('a\nb\nc\n');
    const counts = taskCommits(killed);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect([...counts.keys()].sort()).toEqual(['01-01 1/3', '01-01 2/3', '01-01 3/3', '01-02 1/1']);
    expect(taskCommits(killed)).toEqual(taskCommits(clean));
  });

  it('waits at a checkpoint for harness respond, then resumes with the answer', async () => {
    const plans: StepPlan[] = [
      {
        id: '01-01',
        extra: 'autonomous: false\ncheckpoints: [decision]',
        steps: [],
        body: [
          '```checkpoint decision Storage backend',
          'Which store should the service use?',
          'options: memory, file',
          'id: storage',
          '```',
          '',
          '```sh step Record the choice',
          'mkdir -p out && echo "$HARNESS_ANSWER_STORAGE" > out/01-01.txt',
          '```',
        ].join('\n'),
      },
    ];
    const root = await makeRepo(specTree(plans));
    const running = run(root);
    const store = new OrchestrationStore(join(root, '.orchestration/SPC-007'));
    await pathAppears(join(store.sessionDir('01-01'), 'checkpoint.json'));
    const waiting = JSON.parse((await runCli(['status', SPEC_DIR, '--json'], root)).stdout);
    expect(waiting.checkpoints).toEqual([
      { session: '01-01', kind: 'decision', prompt: 'Which store should the service use?', options: ['memory', 'file'], askedAt: expect.any(String) },
    ]);
    expect((await runCli(['respond', SPEC_DIR, '01-01', 'sqlite'], root)).code).toBe(2);
    const answered = await runCli(['respond', SPEC_DIR, '01-01', 'file'], root);
    expect(answered.code).toBe(0);
    const { outcome } = await running;
    expect(outcome.complete).toBe(true);
    expect(readFileSync(join(integration(root), 'out/01-01.txt'), 'utf8')).toBe('file\n');
    expect((await runCli(['respond', SPEC_DIR, '01-01', 'file'], root)).code).toBe(1);
  });
});
