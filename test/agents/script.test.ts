import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WorkerMessage } from '../../app/engine/core/protocol/messages.js';
import { ScriptAgent } from '../../app/agents/script.js';
import { killOrphan } from '../../app/agents/process.js';
import { PID_FILE } from '../../app/agents/worktree.js';
import { commitsSince, ENVELOPE, git, makeRepo, planFrom, SPEC, testWorker } from '../helpers/agent-context.js';
import { FIXTURES } from '../helpers/paths.js';
import { fileAppears, fileHolds } from '../helpers/file-appears.js';
import { gate, lifeline } from '../helpers/gate.js';
import { CONTAINER_KINDS, containmentWorks, leavingBehind, leftIn, leftInOnceGone, untilRunningAs, usingContainment } from '../helpers/processes.js';

const FENCE = '```';

function plan(body: string, extra = ''): string {
  return [
    '---',
    'plan_id: "01-02"',
    'title: Greeting files',
    'files_modified: [greeting.txt, "notes/**"]',
    'must_pass:',
    '  - { id: greeting, type: file_exists, path: greeting.txt }',
    extra,
    '---',
    '# Greeting files',
    '',
    body,
  ]
    .filter((l) => l !== '')
    .join('\n');
}

const THREE_STEPS = plan(`
${FENCE}sh step Write the greeting
echo "hello from $HARNESS_SPEC $HARNESS_PLAN $HARNESS_TASK" > greeting.txt
echo "wrote greeting"
${FENCE}

${FENCE}sh step Add a note
mkdir -p notes
echo one > notes/one.txt
echo "a warning" >&2
${FENCE}

${FENCE}bash step Check the greeting
[[ -f greeting.txt ]]
${FENCE}
`);

const message = (subject: string, body: string, task: string) => `${subject}\n\n${body}\n\nPlan: 01-02\nTask: ${task}\nSpec: ${SPEC}\n`;

/** Running, and not a zombie waiting for a parent that died with the worker. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!existsSync(`/proc/${pid}/stat`)) return true;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

/**
 * The live processes running exactly `command`, by their ids on this machine: a step in a PID
 * namespace of its own (containment.ts) knows itself ($$) by its id in the namespace only.
 */
function parentOf(pid: number): number {
  try {
    // The fields after the command's name, which is in parentheses and may hold anything.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

function pidsOf(command: string): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        return alive(Number(pid)) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim() === command;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('script agent', () => {
  it('runs the steps in order and commits each as one commit with Plan, Task and Spec trailers', async () => {
    const { repo, logDir, base } = await makeRepo();
    const worker = testWorker({ repo, logDir, plan: planFrom(THREE_STEPS) });
    await new ScriptAgent().run(worker.context);

    const commits = await commitsSince(repo, base);
    expect(commits.map((c) => c.message)).toEqual([
      message('01-02: Write the greeting', '- added greeting.txt', '1/3'),
      message('01-02: Add a note', '- added notes/one.txt', '2/3'),
      message(
        '01-02: Check the greeting',
        'This step changed no file. The commit, with no changes, records that the step ran, so that a resumed run does not run it again.',
        '3/3',
      ),
    ]);
    const [c1, c2, c3] = commits.map((c) => c.sha);
    expect(worker.messages).toEqual([
      { ...ENVELOPE, type: 'session_ready', agent: 'script' },
      { ...ENVELOPE, type: 'task_started', plan: '01-02', task: 1, total: 3, title: 'Write the greeting' },
      { ...ENVELOPE, type: 'progress_update', plan: '01-02', task: 1, total: 3, message: `step 1/3 committed as ${c1!.slice(0, 7)}: 1 file changed` },
      { ...ENVELOPE, type: 'task_started', plan: '01-02', task: 2, total: 3, title: 'Add a note' },
      { ...ENVELOPE, type: 'progress_update', plan: '01-02', task: 2, total: 3, message: `step 2/3 committed as ${c2!.slice(0, 7)}: 1 file changed` },
      { ...ENVELOPE, type: 'task_started', plan: '01-02', task: 3, total: 3, title: 'Check the greeting' },
      { ...ENVELOPE, type: 'progress_update', plan: '01-02', task: 3, total: 3, message: `step 3/3 changed no file; recorded as done in ${c3!.slice(0, 7)}` },
      { ...ENVELOPE, type: 'task_completed', plan: '01-02', commits: [c1, c2, c3], summary: '3 steps committed' },
    ]);
    // Steps see the spec, plan and task; their output, both streams, goes to a log per step.
    expect(await readFile(join(repo, 'greeting.txt'), 'utf8')).toBe('hello from SPC-007 01-02 1/3\n');
    expect(await readFile(join(logDir, 'step-1.log'), 'utf8')).toBe('# 2024-05-01T12:00:00.000Z step 1/3 "Write the greeting"\nwrote greeting\n');
    expect(await readFile(join(logDir, 'step-2.log'), 'utf8')).toContain('a warning\n');
    expect(await git(repo, 'status', '--porcelain')).toBe('');
  });

  it('stops at a failing step with its exit code and output, and commits nothing for it', async () => {
    const { repo, logDir, base } = await makeRepo();
    const body = `
${FENCE}sh step Write the greeting
echo hi > greeting.txt
${FENCE}

${FENCE}sh step Break
echo half > notes.txt
echo "checking the notes"
false
echo "never printed"
${FENCE}

${FENCE}sh step Never runs
touch never.txt
${FENCE}
`;
    const worker = testWorker({ repo, logDir, plan: planFrom(plan(body)) });
    await new ScriptAgent().run(worker.context);

    const commits = await commitsSince(repo, base);
    expect(commits.map((c) => c.message.split('\n')[0])).toEqual(['01-02: Write the greeting']);
    expect(worker.messages.slice(-2)).toEqual([
      { ...ENVELOPE, type: 'task_started', plan: '01-02', task: 2, total: 3, title: 'Break' },
      {
        ...ENVELOPE,
        type: 'task_failed',
        plan: '01-02',
        retryable: false,
        error: `step 2/3 "Break" failed with exit code 1 (log: ${join(logDir, 'step-2.log')})\nchecking the notes`,
      },
    ]);
    expect(existsSync(join(repo, 'never.txt'))).toBe(false);
  });

  it('refuses a plan without steps, a step in another language, and a malformed checkpoint', async () => {
    const { repo, logDir } = await makeRepo();
    const cases: [string, string][] = [
      ['No steps here.', 'plan 01-02 (planning/plans/01-core/01-02-PLAN.md) has no step blocks (```sh step <title>): the script agent has nothing to run'],
      [
        `${FENCE}python step Compute\nprint(1)\n${FENCE}`,
        'plan 01-02 (planning/plans/01-core/01-02-PLAN.md) line 9: step "Compute" is written in "python"; the script agent runs sh, shell, bash',
      ],
      [
        `${FENCE}sh step A\ntrue\n${FENCE}\n${FENCE}checkpoint question Really?\n${FENCE}`,
        'plan 01-02 (planning/plans/01-core/01-02-PLAN.md): line 12: checkpoint kind "question" is not one of decision, verification, action: write ```checkpoint decision <title>',
      ],
    ];
    for (const [body, error] of cases) {
      const worker = testWorker({ repo, logDir, plan: planFrom(plan(body)) });
      await new ScriptAgent().run(worker.context);
      expect(worker.messages.at(-1)).toEqual({ ...ENVELOPE, type: 'task_failed', plan: '01-02', retryable: false, error });
    }
  });

  it('refuses to start a fresh attempt on a dirty worktree', async () => {
    const { repo, logDir, base } = await makeRepo();
    await writeFile(join(repo, 'stray.txt'), 'mine\n');
    const worker = testWorker({ repo, logDir, plan: planFrom(THREE_STEPS) });
    await new ScriptAgent().run(worker.context);
    expect(worker.messages.at(-1)).toEqual({
      ...ENVELOPE,
      type: 'task_failed',
      plan: '01-02',
      retryable: false,
      error: `the worktree ${repo} has uncommitted changes (stray.txt); a fresh attempt starts from a clean checkout, and a resumed one (resume: true) discards them`,
    });
    expect(await readFile(join(repo, 'stray.txt'), 'utf8')).toBe('mine\n');
    expect(await commitsSince(repo, base)).toEqual([]);
  });

  it('refuses a log directory that would be committed with the work, and accepts an ignored one', async () => {
    const { repo } = await makeRepo({ 'README.md': '# demo\n', '.gitignore': '.harness-logs/\n' });
    const exposed = testWorker({ repo, logDir: join(repo, 'logs'), plan: planFrom(THREE_STEPS) });
    await new ScriptAgent().run(exposed.context);
    expect(exposed.messages.at(-1)).toEqual({
      ...ENVELOPE,
      type: 'task_failed',
      plan: '01-02',
      retryable: false,
      error: `the log directory ${join(repo, 'logs')} is inside the worktree ${repo} and not ignored: its logs and answers would be committed with the plan's work`,
    });
    const ignored = testWorker({ repo, logDir: join(repo, '.harness-logs', '01-02'), plan: planFrom(THREE_STEPS) });
    await new ScriptAgent().run(ignored.context);
    expect(ignored.messages.at(-1)?.type).toBe('task_completed');
    expect(await git(repo, 'status', '--porcelain')).toBe('');
  });

  const INTERRUPTIBLE = plan(`
${FENCE}sh step Write a
echo a > a.txt
${FENCE}

${FENCE}sh step Write b slowly
# With $LIFE, the step and what it starts hold a lifeline (test/helpers/gate.ts): the test learns when they have all ended.
[ -z "$LIFE" ] || exec 9> "$LIFE"
echo partial > b.txt
echo "$$" > "$MARK"
# Slow: it would write late.txt once let through $GATE (test/helpers/gate.ts), which the test opens only after the step is ended.
if [ -n "$SLOW" ]; then read -r gate_line < "$GATE"; echo late > late.txt; sleep 30; fi
echo done > b.txt
${FENCE}

${FENCE}sh step Write c
echo c > c.txt
${FENCE}
`);

  it('is aborted mid-step, and a resumed run discards the leftovers and ends with one commit per step', async () => {
    const { repo, logDir, base } = await makeRepo();
    const mark = join(logDir, '..', 'step-2-started');
    const first = testWorker({ repo, logDir, plan: planFrom(INTERRUPTIBLE), env: { SLOW: '1', MARK: mark, GATE: gate(join(logDir, '..', 'gate')).path } });
    const running = new ScriptAgent().run(first.context);
    await fileAppears(mark);
    first.controller.abort(new Error('stopped by the test'));
    await running;
    expect(first.messages.at(-1)).toEqual({
      ...ENVELOPE,
      type: 'task_failed',
      plan: '01-02',
      retryable: true,
      error: 'aborted during step 2/3 "Write b slowly": stopped by the test',
    });
    expect(await git(repo, 'status', '--porcelain')).toBe('?? b.txt\n');

    const second = testWorker({ repo, logDir, plan: planFrom(INTERRUPTIBLE), resume: true, env: { MARK: mark } });
    await new ScriptAgent().run(second.context);
    const commits = await commitsSince(repo, base);
    expect(commits.map((c) => c.message.split('\n\n')[0])).toEqual(['01-02: Write a', '01-02: Write b slowly', '01-02: Write c']);
    expect(commits.map((c) => c.message.split('\n\n').at(-1))).toEqual([
      `Plan: 01-02\nTask: 1/3\nSpec: ${SPEC}\n`,
      `Plan: 01-02\nTask: 2/3\nSpec: ${SPEC}\n`,
      `Plan: 01-02\nTask: 3/3\nSpec: ${SPEC}\n`,
    ]);
    const [a, b, c] = commits.map((x) => x.sha);
    expect(second.messages).toEqual([
      { ...ENVELOPE, type: 'session_ready', agent: 'script' },
      { ...ENVELOPE, type: 'progress_update', plan: '01-02', message: 'discarded what the interrupted attempt left uncommitted: b.txt' },
      { ...ENVELOPE, type: 'progress_update', plan: '01-02', task: 1, total: 3, message: `step 1/3 already committed as ${a!.slice(0, 7)}: Write a` },
      { ...ENVELOPE, type: 'task_started', plan: '01-02', task: 2, total: 3, title: 'Write b slowly' },
      { ...ENVELOPE, type: 'progress_update', plan: '01-02', task: 2, total: 3, message: `step 2/3 committed as ${b!.slice(0, 7)}: 1 file changed` },
      { ...ENVELOPE, type: 'task_started', plan: '01-02', task: 3, total: 3, title: 'Write c' },
      { ...ENVELOPE, type: 'progress_update', plan: '01-02', task: 3, total: 3, message: `step 3/3 committed as ${c!.slice(0, 7)}: 1 file changed` },
      { ...ENVELOPE, type: 'task_completed', plan: '01-02', commits: [a, b, c], summary: '3 steps committed (1 by an earlier attempt)' },
    ]);
    expect(await readFile(join(repo, 'b.txt'), 'utf8')).toBe('done\n');

    // A third run finds everything committed and adds nothing.
    const third = testWorker({ repo, logDir, plan: planFrom(INTERRUPTIBLE), resume: true, env: { MARK: mark } });
    await new ScriptAgent().run(third.context);
    expect((await commitsSince(repo, base)).length).toBe(3);
    expect(third.messages.at(-1)).toEqual({
      ...ENVELOPE,
      type: 'task_completed',
      plan: '01-02',
      commits: [a, b, c],
      summary: '3 steps committed (3 by an earlier attempt)',
    });
  });

  it('survives SIGKILL of the worker mid-step: the orphaned step is ended, and the rerun makes no duplicate commits', async () => {
    const { repo, logDir, base } = await makeRepo();
    const mark = join(logDir, '..', 'step-2-started');
    const planFile = join(logDir, '..', 'PLAN.md');
    await writeFile(planFile, INTERRUPTIBLE);
    const driver = join(FIXTURES, 'agents/run-script-agent.ts');
    const late = gate(join(logDir, '..', 'gate'));
    const life = lifeline(join(logDir, '..', 'life'));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', driver, repo, logDir, planFile, JSON.stringify({ SLOW: '1', MARK: mark, GATE: late.path, LIFE: life.path })],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise((r) => child.on('exit', r));
    // The step has begun once its mark holds its pid (the file appears empty a moment before).
    await fileHolds(mark, (text) => /^\d+\n$/.test(text));
    // Killed then, whether or not the worker has written its group's id yet: agent.pid held the
    // step's tag (and its cgroup) before the step started. The step's shell, as this machine knows it.
    // A fork of the shell about to run `sleep` has the shell's command line for a moment: the step
    // is the one whose parent is not one of them.
    const shells = pidsOf(`sh -e ${join(logDir, 'step-2.sh')}`);
    const [stepPid, ...others] = shells.filter((pid) => !shells.includes(parentOf(pid)));
    expect(others).toEqual([]);
    child.kill('SIGKILL');
    await exited;
    const seen = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as WorkerMessage);
    expect(seen.map((m) => m.type)).toEqual(['session_ready', 'task_started', 'progress_update', 'task_started']);
    // The killed worker's step shell lives on in its own process group…
    expect(alive(stepPid)).toBe(true);

    const second = testWorker({ repo, logDir, plan: planFrom(INTERRUPTIBLE), resume: true, env: { MARK: mark } });
    await new ScriptAgent().run(second.context);
    // …until the resumed worker ends it before touching the worktree: the step and its sleep have
    // all ended once the lifeline they hold is let go.
    await life.gone;
    expect(alive(stepPid)).toBe(false);
    // Were it still running, the step would now write late.txt: ended, it cannot.
    late.open();
    expect(existsSync(join(repo, 'late.txt'))).toBe(false);
    expect(await git(repo, 'status', '--porcelain')).toBe('');
    const commits = await commitsSince(repo, base);
    expect(commits.map((c) => c.message.split('\n')[0])).toEqual(['01-02: Write a', '01-02: Write b slowly', '01-02: Write c']);
    expect(second.messages.at(-1)).toMatchObject({ type: 'task_completed', commits: commits.map((c) => c.sha) });
  });

  const WITH_CHECKPOINT = (autonomous: boolean, fields = 'options: memory, file\ndefault: memory') =>
    plan(
      `
${FENCE}sh step Write the greeting
echo hi > greeting.txt
${FENCE}

${FENCE}checkpoint decision Storage backend
Which store should notes use?
${fields}
${FENCE}

${FENCE}sh step Use the answer
echo "$HARNESS_ANSWER_STORAGE_BACKEND" > store.txt
test -z "$FAIL_ONCE" || { [ -f "$FAIL_ONCE" ] || { touch "$FAIL_ONCE"; exit 4; }; }
cp "$HARNESS_ANSWERS" answers.json
${FENCE}
`,
      `autonomous: ${autonomous}\ncheckpoints: [decision]`,
    );

  it('waits at a checkpoint of a non-autonomous plan, and later steps see the answer', async () => {
    const { repo, logDir } = await makeRepo();
    const worker = testWorker({ repo, logDir, plan: planFrom(WITH_CHECKPOINT(false)) });
    const running = new ScriptAgent().run(worker.context);
    const asked = await worker.waitFor('decision_needed');
    expect(asked).toEqual({
      ...ENVELOPE,
      type: 'decision_needed',
      plan: '01-02',
      checkpoint: { id: 'storage-backend', kind: 'decision', prompt: 'Which store should notes use?', options: ['memory', 'file'], source: 'Storage backend' },
    });
    // The agent waits for the answer (an agent that went on would never ask), and no later step has started.
    expect(await worker.waiting()).toMatchObject({ id: 'storage-backend' });
    expect(worker.messages.filter((m) => m.type === 'task_started').length).toBe(1);
    worker.respond({ ...ENVELOPE, type: 'decision_made', checkpoint: 'storage-backend', answer: 'file' });
    await running;

    expect(worker.messages.slice(3, 6)).toEqual([
      asked,
      { ...ENVELOPE, type: 'progress_update', plan: '01-02', message: 'checkpoint storage-backend answered: file' },
      { ...ENVELOPE, type: 'task_started', plan: '01-02', task: 2, total: 2, title: 'Use the answer' },
    ]);
    expect(worker.messages.at(-1)?.type).toBe('task_completed');
    expect(await readFile(join(repo, 'store.txt'), 'utf8')).toBe('file\n');
    expect(JSON.parse(await readFile(join(repo, 'answers.json'), 'utf8'))).toEqual({ 'storage-backend': 'file' });
    // The answers live in logDir, never in the worktree's commits (answers.json above is the step's own copy).
    expect(JSON.parse(await readFile(join(logDir, 'answers.json'), 'utf8'))).toEqual({ 'storage-backend': 'file' });
  });

  it('takes the default in an autonomous plan, and refuses a checkpoint without one before running anything', async () => {
    const { repo, logDir, base } = await makeRepo();
    const worker = testWorker({ repo, logDir, plan: planFrom(WITH_CHECKPOINT(true)) });
    await new ScriptAgent().run(worker.context);
    expect(worker.asked).toEqual([]);
    expect(worker.messages).toContainEqual({
      ...ENVELOPE,
      type: 'progress_update',
      plan: '01-02',
      message: 'checkpoint storage-backend: autonomous plan, took the default: memory',
    });
    expect(await readFile(join(repo, 'store.txt'), 'utf8')).toBe('memory\n');

    const other = await makeRepo();
    const refused = testWorker({ repo: other.repo, logDir: other.logDir, plan: planFrom(WITH_CHECKPOINT(true, 'options: memory, file')) });
    await new ScriptAgent().run(refused.context);
    expect(refused.messages).toEqual([
      { ...ENVELOPE, type: 'session_ready', agent: 'script' },
      {
        ...ENVELOPE,
        type: 'task_failed',
        plan: '01-02',
        retryable: false,
        error:
          'checkpoint "storage-backend" (decision) needs a person, but plan 01-02 is autonomous: true and the checkpoint has no default; give it a "default:" line or set autonomous: false',
      },
    ]);
    expect(await commitsSince(other.repo, other.base)).toEqual([]);
    expect(base).toBeTruthy();
  });

  it('does not ask again, after a restart, for a checkpoint already answered', async () => {
    const { repo, logDir, base } = await makeRepo();
    const failOnce = join(logDir, '..', 'failed-once');
    const first = testWorker({
      repo,
      logDir,
      plan: planFrom(WITH_CHECKPOINT(false)),
      env: { FAIL_ONCE: failOnce },
      answer: (cp) => ({ ...ENVELOPE, type: 'decision_made', checkpoint: cp.id, answer: 'file' }),
    });
    await new ScriptAgent().run(first.context);
    expect(first.asked.map((c) => c.id)).toEqual(['storage-backend']);
    expect(first.messages.at(-1)).toMatchObject({ type: 'task_failed', error: expect.stringMatching(/^step 2\/2 "Use the answer" failed with exit code 4/) });

    const second = testWorker({ repo, logDir, plan: planFrom(WITH_CHECKPOINT(false)), resume: true, env: { FAIL_ONCE: failOnce } });
    await new ScriptAgent().run(second.context);
    expect(second.asked).toEqual([]);
    expect(second.messages.map((m) => m.type)).not.toContain('decision_needed');
    expect(second.messages).toContainEqual({
      ...ENVELOPE,
      type: 'progress_update',
      plan: '01-02',
      message: 'checkpoint storage-backend already answered: file',
    });
    expect(second.messages.at(-1)?.type).toBe('task_completed');
    expect(await readFile(join(repo, 'store.txt'), 'utf8')).toBe('file\n');
    expect((await commitsSince(repo, base)).map((c) => c.message.split('\n')[0])).toEqual(['01-02: Write the greeting', '01-02: Use the answer']);
  });

  it('fails the task when a person aborts at a checkpoint or rejects a verification', async () => {
    const { repo, logDir } = await makeRepo();
    const aborted = testWorker({
      repo,
      logDir,
      plan: planFrom(WITH_CHECKPOINT(false)),
      answer: () => ({ ...ENVELOPE, type: 'abort_task', reason: 'wrong approach' }),
    });
    await new ScriptAgent().run(aborted.context);
    expect(aborted.messages.at(-1)).toEqual({
      ...ENVELOPE,
      type: 'task_failed',
      plan: '01-02',
      retryable: false,
      error: 'aborted at checkpoint "storage-backend": wrong approach',
    });

    const other = await makeRepo();
    const verification = plan(
      `${FENCE}sh step Draw\necho art > art.txt\n${FENCE}\n\n${FENCE}checkpoint verification Looks right\nDoes art.txt look right?\n${FENCE}`,
      'autonomous: false\ncheckpoints: [verification]',
    );
    const rejected = testWorker({
      repo: other.repo,
      logDir: other.logDir,
      plan: planFrom(verification),
      answer: (cp) => ({ ...ENVELOPE, type: 'verification_result', checkpoint: cp.id, passed: false, details: 'too dark' }),
    });
    await new ScriptAgent().run(rejected.context);
    expect(rejected.messages.at(-2)).toMatchObject({ type: 'verification_needed', checkpoint: { id: 'looks-right', kind: 'verification' } });
    expect(rejected.messages.at(-1)).toEqual({
      ...ENVELOPE,
      type: 'task_failed',
      plan: '01-02',
      retryable: false,
      error: 'verification "looks-right" did not pass: too dark',
    });
  });

  it("says when the plan's timeout_minutes stopped a step, so that a time-out is known as one", async () => {
    const { repo, logDir, base } = await makeRepo();
    const worker = testWorker({ repo, logDir, plan: planFrom(plan(`${FENCE}sh step Wait\necho waiting\nsleep 20\n${FENCE}`)) });
    // A third of a second of budget, on a fake clock: it runs out once the step has said it waits, never before, however busy the machine.
    worker.context.task.timeout_minutes = 0.005;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const running = new ScriptAgent().run(worker.context);
      await fileAppears(logDir);
      await fileHolds(join(logDir, 'step-1.log'), (text) => text.includes('waiting\n'));
      await vi.advanceTimersByTimeAsync(300);
      await running;
    } finally {
      vi.useRealTimers();
    }
    expect(worker.messages.at(-1)).toEqual({
      ...ENVELOPE,
      type: 'task_failed',
      plan: '01-02',
      retryable: false,
      timedOut: true,
      error: 'step 1/1 "Wait" was stopped: plan 01-02 used up its timeout_minutes (0.005)\nwaiting',
    });
    expect(await commitsSince(repo, base)).toEqual([]);
  });

  it('is aborted while it waits at a checkpoint', async () => {
    const { repo, logDir } = await makeRepo();
    const worker = testWorker({ repo, logDir, plan: planFrom(WITH_CHECKPOINT(false)) });
    const running = new ScriptAgent().run(worker.context);
    await worker.waitFor('decision_needed');
    worker.controller.abort('runner shutting down');
    await running;
    expect(worker.messages.at(-1)).toEqual({
      ...ENVELOPE,
      type: 'task_failed',
      plan: '01-02',
      retryable: true,
      error: 'aborted at checkpoint "storage-backend": runner shutting down',
    });
  });
});

describe.each(CONTAINER_KINDS)('a step in a %s of its own', (kind) => {
  const here = containmentWorks(kind);
  let restore: () => void = () => undefined;
  afterEach(() => restore());

  it.skipIf(!here)(
    `that leaves processes (with an empty environment, out of its group, ignoring SIGTERM) and outlasts the plan's timeout_minutes: they end with the plan (${kind} available here)`,
    async () => {
      restore = usingContainment(kind);
      const n = kind === 'cgroup' ? '5401.' : '5402.';
      // The time-out must come after all four have started, which a busy machine makes later: tried again with twice the time until it did.
      for (let minutes = 0.005; ; minutes *= 2) {
        const { repo, logDir } = await makeRepo();
        const marks = realpathSync(await mkdtemp(join(tmpdir(), 'harness-left-')));
        // Then the step itself ignores SIGTERM, and waits.
        const worker = testWorker({
          repo,
          logDir,
          plan: planFrom(plan(`${FENCE}sh step Leave and wait\n${leavingBehind(n, marks)}\ntrap '' TERM\nsleep ${n}9\n${FENCE}`)),
        });
        worker.context.task.timeout_minutes = minutes;
        await new ScriptAgent().run(worker.context);
        expect(worker.messages.at(-1)).toMatchObject({ type: 'task_failed', timedOut: true });
        // Whatever had started by then, before or after its exec, under any id: gone.
        expect(leftIn(repo)).toEqual([]);
        if ([1, 2, 3, 4].every((i) => existsSync(join(marks, `p${i}`)))) break;
      }
    },
  );

  it.skipIf(!here)(
    `that left processes (with an empty environment, out of its group, ignoring SIGTERM) when its worker was killed: the resumed worker ends them all (${kind} available here)`,
    async ({ signal }) => {
      restore = usingContainment(kind);
      const { repo, logDir } = await makeRepo();
      const marks = realpathSync(await mkdtemp(join(tmpdir(), 'harness-left-')));
      const n = kind === 'cgroup' ? '5501.' : '5502.';
      const planFile = join(logDir, '..', 'PLAN.md');
      // Ready only once its own sleep runs as itself (after its exec), as leavingBehind waits for the others': nothing is still starting when the worker is killed.
      const waitFor9 = `sleep ${n}9 & p9=$!\n${untilRunningAs('$p9', `sleep ${n}9`)}`;
      await writeFile(planFile, plan(`${FENCE}sh step Leave and wait\n${leavingBehind(n, marks)}\n${waitFor9}\necho ready > ${marks}/ready\nwait\n${FENCE}`));
      const driver = spawn(process.execPath, ['--import', 'tsx', join(FIXTURES, 'agents/run-script-agent.ts'), repo, logDir, planFile, '{}'], {
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      const exited = new Promise((r) => driver.on('exit', r));
      await fileAppears(join(marks, 'ready'));
      driver.kill('SIGKILL');
      await exited;
      // The killed worker's step, and all it left, live on (with what holds them, in a PID namespace)…
      expect(leftIn(repo).map((p) => p.command)).toEqual(
        expect.arrayContaining([...[1, 2, 3, 4, 9].map((i) => `sleep ${n}${i}`), `sh -e ${join(logDir, 'step-1.sh')}`]),
      );

      // …until the resumed worker ends them, before it touches the worktree.
      expect(await killOrphan(join(logDir, PID_FILE))).toBe(true);
      // The kernel ends a PID namespace's other processes a moment after its first one died (and a loaded machine makes that moment longer).
      expect(await leftInOnceGone(repo, signal)).toEqual([]);
    },
  );
});
