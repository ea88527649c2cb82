import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordingReporter } from '../../app/runner/progress.js';
import { runSpec } from '../../app/runner/runner.js';
import { ROOT } from '../helpers/paths.js';
import { makeRepo, SPEC_DIR, specTree } from '../helpers/repo.js';
import { fileAppears } from '../helpers/file-appears.js';
import { gate, lifeline } from '../helpers/gate.js';
import { CONTAINER_KINDS, containmentWorks, leavingBehind, leftInRun, runningCommand, untilRunningAs, usingContainment } from '../helpers/processes.js';

/**
 * No process an agent or a check starts outlives its plan (issue 24, 4; issue 36), on real git
 * through `harness run`: a background job that leaves the process group (`setsid`) and keeps
 * the output pipe open neither holds the plan nor lives on, nor does one that also clears its
 * environment or ignores SIGTERM (each agent and check runs in a container of its own:
 * containment.ts), and what a check started when the run was killed is stopped by the next run.
 */

const BIN = join(ROOT, 'bin', 'harness.js');

describe('a background process an agent leaves', () => {
  it('out of its group with setsid, holding stdout: the step still ends, the process is killed, and the step log says so', async () => {
    // The step waits until the escaped process has left the group, then ends: the escaped process
    // lets it through the gate (test/helpers/gate.ts) by writing its pid there.
    // It holds a lifeline (test/helpers/gate.ts): the test learns from the kernel when it has ended.
    const dir = await mkdtemp(join(tmpdir(), 'harness-escaped-'));
    const escaped = gate(join(dir, 'pid'));
    const life = lifeline(join(dir, 'life'));
    const step = `setsid sh -c 'exec 9> "$LIFE"; echo $$ > "$ESCAPED"; exec sleep 301.25' &\n${escaped.wait}\nmkdir -p out && echo done > out/01-01.txt`;
    const root = await makeRepo(specTree([{ id: '01-01', steps: [step] }]));
    const outcome = await runSpec({
      specDir: join(root, SPEC_DIR),
      specArg: SPEC_DIR,
      slots: 1,
      agent: 'script',
      reporter: new RecordingReporter(),
      pollMs: 25,
      env: { ESCAPED: escaped.path, LIFE: life.path },
    });

    expect(outcome.complete).toBe(true);
    // Killed: gone as soon as the kernel has ended it (a busy machine takes longer; a miss never ends).
    await life.gone;
    expect(runningCommand('sleep 301.25')).toEqual([]);
    const logs = join(root, '.orchestration/SPC-007/sessions/01-01/logs');
    const text = readdirSync(logs, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
      .join('\n');
    expect(text).toMatch(/\[harness\] ended 1 process left running: \d+ \(sleep 301\.25\)/);
  });
});

describe('what a check started when the run was killed', () => {
  it('is stopped by the next run, in the group and out of it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'harness-mark-'));
    const mark = join(dir, 'check-started');
    // The check starts a server of its own (out of its group) and one in it, then hangs until the
    // run is killed; run again, it passes. The first run's check and both servers hold a lifeline.
    // It writes the mark once both servers run their sleep (after their exec).
    const life = lifeline(join(dir, 'life'));
    const check = `if [ -e "$MARK" ]; then echo "# pass 1"; exit 0; fi\nexec 9> "$LIFE"\nsetsid sh -c 'exec sleep 302.5' > /dev/null 2>&1 &\nout_of_group=$!\nsleep 303.5 &\nin_group=$!\n${untilRunningAs('$out_of_group', 'sleep 302.5')}\n${untilRunningAs('$in_group', 'sleep 303.5')}\ntouch "$MARK"\nwait\n`;
    const root = await makeRepo({
      ...specTree([
        {
          id: '01-01',
          steps: ['mkdir -p out && echo done > out/01-01.txt'],
          checks: ['  - { id: made, type: file_exists, path: out/01-01.txt }', '  - { id: tests, type: tests_pass, command: "sh check.sh" }'],
        },
      ]),
      'check.sh': check,
    });
    const child = spawn(process.execPath, [BIN, 'run', SPEC_DIR, '--agent', 'script'], {
      cwd: root,
      env: { ...process.env, MARK: mark, LIFE: life.path },
      stdio: 'ignore',
    });
    await fileAppears(mark);
    // Killed as soon as the check has begun, whether or not the run has written its group's id
    // yet: the record under the check's tag was written before the check started.
    const registry = join(root, '.orchestration/SPC-007/processes');
    // (Its group id may be on its way in: a `.tmp` renamed over the record.)
    expect(existsSync(registry) && readdirSync(registry).filter((f) => !f.endsWith('.tmp')).length).toBe(1);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(runningCommand('sleep 302.5')).toHaveLength(1);
    expect(runningCommand('sleep 303.5')).toHaveLength(1);

    const reporter = new RecordingReporter();
    const outcome = await runSpec({ specDir: join(root, SPEC_DIR), specArg: SPEC_DIR, slots: 1, agent: 'script', reporter, pollMs: 25, env: { MARK: mark } });

    expect(outcome.complete).toBe(true);
    await life.gone;
    expect([...runningCommand('sleep 302.5'), ...runningCommand('sleep 303.5')]).toEqual([]);
    expect(JSON.stringify(reporter)).toMatch(/stopped check process (group \d+|\d+ \(sleep 30[23]\.5\)), left running by a run that was killed/);
  });
});

describe.each(CONTAINER_KINDS)('in a %s of its own, what a step and a check leave', (kind) => {
  const here = containmentWorks(kind);
  let restore: () => void = () => undefined;
  afterEach(() => restore());

  it.skipIf(!here)(
    `is gone when the plan ends, with an empty environment, out of its group or ignoring SIGTERM, and the step log names it (${kind} available here)`,
    async () => {
      restore = usingContainment(kind);
      const step = realpathSync(await mkdtemp(join(tmpdir(), 'harness-left-')));
      const check = realpathSync(await mkdtemp(join(tmpdir(), 'harness-left-')));
      const n = kind === 'cgroup' ? ['5101.', '5102.'] : ['5201.', '5202.'];
      const root = await makeRepo({
        ...specTree([
          {
            id: '01-01',
            steps: [`${leavingBehind(n[0]!, step)}\nmkdir -p out && echo done > out/01-01.txt`],
            checks: ['  - { id: made, type: file_exists, path: out/01-01.txt }', '  - { id: tests, type: tests_pass, command: "sh check.sh" }'],
          },
        ]),
        'check.sh': `${leavingBehind(n[1]!, check)}\necho "# pass 1"\n`,
      });
      const outcome = await runSpec({
        specDir: join(root, SPEC_DIR),
        specArg: SPEC_DIR,
        slots: 1,
        agent: 'script',
        reporter: new RecordingReporter(),
        pollMs: 25,
      });

      expect(outcome.complete).toBe(true);
      // All four of each had started, and nothing the step or the check started runs on: under any id, before or after its exec.
      for (const dir of [step, check]) for (const i of [1, 2, 3, 4]) expect(existsSync(join(dir, `p${i}`)), `${dir}/p${i}`).toBe(true);
      expect(leftInRun(root)).toEqual([]);
      for (const [m, i] of n.flatMap((m) => [1, 2, 3, 4].map((i) => [m, i] as const))) expect(runningCommand(`sleep ${m}${i}`), `sleep ${m}${i}`).toEqual([]);
      const logs = join(root, '.orchestration/SPC-007/sessions/01-01/logs');
      const text = readdirSync(logs, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
        .join('\n');
      // Those without a tag too.
      expect(text).toMatch(new RegExp(`\\[harness\\] ended \\d+ processes left running: .*\\(sleep ${n[0]!.replace('.', '\\.')}1\\)`));
      expect(text).toMatch(new RegExp(`\\[harness\\] ended \\d+ processes left running: .*\\(sleep ${n[0]!.replace('.', '\\.')}2\\)`));
    },
  );
});

describe('where no container can be made', () => {
  let restore: () => void = () => undefined;
  const path = process.env.PATH;
  afterEach(() => {
    restore();
    process.env.PATH = path;
  });

  it('the run says so once in its log, and what keeps its tag still ends with its plan', async () => {
    // An unshare that is refused, as a machine that allows no user namespace refuses it, and PID namespaces only.
    const bin = await mkdtemp(join(tmpdir(), 'harness-bin-'));
    await writeFile(join(bin, 'unshare'), '#!/bin/sh\necho "unshare: unshare failed: Operation not permitted" >&2\nexit 1\n');
    await chmod(join(bin, 'unshare'), 0o755);
    process.env.PATH = `${bin}:${path}`;
    restore = usingContainment('pidns');
    // Each step waits until what it leaves has left its group: it says so at the step's gate.
    const gates = await mkdtemp(join(tmpdir(), 'harness-left-'));
    const step = (id: string) => {
      const left = gate(join(gates, id));
      return `setsid sh -c 'trap "" TERM; echo $$ > "${left.path}"; exec sleep 5301.${id.at(-1)}' &\n${left.wait}\nmkdir -p out && echo done > out/${id}.txt`;
    };
    const root = await makeRepo(
      specTree([
        { id: '01-01', steps: [step('01-01')] },
        {
          id: '01-02',
          steps: [step('01-02')],
          checks: ['  - { id: made, type: file_exists, path: out/01-02.txt }', '  - { id: tests, type: tests_pass, command: "echo \'# pass 1\'" }'],
        },
      ]),
    );
    const reporter = new RecordingReporter();
    const outcome = await runSpec({ specDir: join(root, SPEC_DIR), specArg: SPEC_DIR, slots: 2, agent: 'script', reporter, pollMs: 25 });

    expect(outcome.complete).toBe(true);
    // Once in the run, for two plans, their steps and their checks.
    const said = reporter.events.flatMap((e) => (e.kind === 'info' && e.text.startsWith('processes:') ? [e.text] : []));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /^processes: agents and checks are not contained here: no PID namespace \(unshare --pid --fork --kill-child --mount-proc: unshare: unshare failed: Operation not permitted; .*\)\. What they start is found by its HARNESS_PROCESS_TAG only/,
    );
    expect(leftInRun(root)).toEqual([]);
  });
});
