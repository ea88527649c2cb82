import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../app/cli/main.js';
import { OrchestrationStore } from '../../app/runner/store.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { git, makeRepo, SPEC_DIR, specTree, worktreeOf } from '../helpers/repo.js';
import { fileHolds, filesAppear } from '../helpers/file-appears.js';

/** Issue 26's "the CLI tells the truth": each item through the CLI, on real git, with the exact words. */

function commandConfig(command: string): string {
  return ['agent: command', 'slots: 1', 'agents:', '  command:', `    command: ${JSON.stringify(command)}`, ''].join('\n');
}

/** The run's plain output without its clock. */
function events(stdout: string): string[] {
  return stdout.split('\n').map((l) => l.replace(/^\d\d:\d\d:\d\d /, ''));
}

/** Wait for the run's own record of a question (the run writes it before it waits); no timing involved. */
async function waitingAt(root: string, plan: string, id: string, running: Promise<CliResult>): Promise<void> {
  const store = new OrchestrationStore(join(root, '.orchestration/SPC-007'));
  let ended: CliResult | undefined;
  void running.then((r) => (ended = r));
  for (;;) {
    if (ended) throw new Error(`the run ended (exit ${ended.code}) without asking "${id}":\n${ended.stdout}`);
    const c = await store.readCheckpoint(plan);
    if (c?.id === id) return;
    await new Promise((r) => setImmediate(r));
  }
}

describe('a checkpoint in a plan that needs a person', () => {
  it('stops a command agent that cannot ask: decisions before it starts, verifications once it has finished', async () => {
    const root = await makeRepo({
      '.github/harness.yml': commandConfig('mkdir -p out && echo "$HARNESS_ANSWER_STORAGE" > out/01-01.txt'),
      ...specTree([
        {
          id: '01-01',
          extra: 'autonomous: false\ncheckpoints: [decision, verification]',
          steps: [],
          body: [
            '```checkpoint decision Storage backend',
            'Which store should the service use?',
            'options: memory, file',
            'id: storage',
            '```',
            '',
            '```checkpoint verification Looks right',
            'Does out/01-01.txt name the store you chose?',
            'id: looks',
            '```',
          ].join('\n'),
        },
      ]),
    });
    const running = runCli(['run', SPEC_DIR], root);
    await waitingAt(root, '01-01', 'storage', running);
    const status = JSON.parse((await runCli(['status', SPEC_DIR, '--json'], root)).stdout);
    expect(status.checkpoints).toEqual([
      { session: '01-01', kind: 'decision', prompt: 'Which store should the service use?', options: ['memory', 'file'], askedAt: expect.any(String) },
    ]);
    expect((await runCli(['respond', SPEC_DIR, '01-01', 'file'], root)).code).toBe(0);
    await waitingAt(root, '01-01', 'looks', running);
    expect((await runCli(['respond', SPEC_DIR, '01-01', 'approve'], root)).code).toBe(0);
    const done = await running;
    expect(done.code).toBe(0);
    // The command ran after the decision: the answer is in what it wrote.
    expect(git(root, 'show', 'harness/SPC-007/integration:out/01-01.txt')).toBe('file\n');
    expect(events(done.stdout).slice(0, 9)).toEqual([
      '01-01 started: Plan 01-01',
      '01-01 waits for a person to decide: Which store should the service use?',
      `    answer with: harness respond ${SPEC_DIR} 01-01 <answer> (one of: memory, file)`,
      '01-01 checkpoint storage answered: file',
      '01-01 waits for a person to check: Does out/01-01.txt name the store you chose?',
      `    answer with: harness respond ${SPEC_DIR} 01-01 <answer>`,
      '01-01 checkpoint looks answered: passed',
      expect.stringMatching(/^01-01 \[1\/1\] committed the file the agent left uncommitted as [0-9a-f]{7}$/),
      '01-01 verifying',
    ]);
  });
});

/** SIGKILL to `pid` unless it is gone already. */
function killIfAlive(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}

const BIN = fileURLToPath(new URL('../../bin/harness.js', import.meta.url));

describe('harness status after the run was killed', () => {
  it('shows the run stopped, its plans stopped (not running), and the command that resumes it', async () => {
    // The agent says it started, then works until it is killed with its run.
    const root = await makeRepo({
      '.github/harness.yml': commandConfig('echo $$ > "$STARTED_AT/$HARNESS_PLAN" && exec sleep 600'),
      ...specTree([
        { id: '01-01', steps: [] },
        { id: '01-02', steps: [] },
      ]),
    });
    const started = join(root, '.started');
    mkdirSync(started);
    const child = spawn(process.execPath, [BIN, 'run', SPEC_DIR, '--slots', '2'], {
      cwd: root,
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, HARNESS_FROM_SOURCE: '1', STARTED_AT: started },
    });
    const exited = new Promise((r) => child.once('exit', r));
    try {
      await filesAppear(join(started, '01-01'), join(started, '01-02'));
      const live = await runCli(['status', SPEC_DIR], root);
      expect(live.stdout.split('\n').slice(0, 2)).toEqual(['SPC-007 Runner test', 'executing · 0/2 plans · 0/1 phases · 0% · under 3 s of work']);
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
      // The agents ran in process groups of their own: they go too.
      for (const plan of ['01-01', '01-02']) {
        const status = JSON.parse(readFileSync(join(root, `.orchestration/SPC-007/sessions/${plan}/status.json`), 'utf8')) as { pgid?: number };
        if (status.pgid) process.kill(-status.pgid, 'SIGKILL');
        // An agent started just before the kill may not be in its status yet: it said its own pid
        // (the sleep it became), which ends it either way.
        killIfAlive(Number((await fileHolds(join(started, plan), (text) => text.trim() !== '')).trim()));
      }
    }
    const text = await runCli(['status', SPEC_DIR], root);
    expect(text.stdout).toBe(
      [
        'SPC-007 Runner test',
        'stopped (its harness run is no longer running) · 0/2 plans · 0/1 phases · 0% · under 3 s of work',
        '',
        'Phase 01 · Phase — pending',
        '  ■ 01-01 Plan 01-01  stopped',
        '  ■ 01-02 Plan 01-02  stopped',
        '',
        'Integration branch: harness/SPC-007/integration',
        `Resume: harness run ${SPEC_DIR}`,
        '',
      ].join('\n'),
    );
    const json = JSON.parse((await runCli(['status', SPEC_DIR, '--json'], root)).stdout);
    expect({ status: json.status, resume: json.resume, plans: json.plans.map((p: { id: string; state: string }) => `${p.id} ${p.state}`) }).toEqual({
      status: 'stopped',
      resume: `harness run ${SPEC_DIR}`,
      plans: ['01-01 stopped', '01-02 stopped'],
    });
  });
});

/** `harness status` with the time plans worked (which depends on the machine) as <time>. */
function untimed(text: string): string {
  return text.replace(/(?:under )?\d+(?:\.\d+)? (?:s|min|h)\b(?: \d+ min)?/g, '<time>');
}

describe('harness status after a run of some plans', () => {
  it('says the plan it was asked for finished and what is left, not that the run stopped; a killed one resumes as it was asked', async () => {
    const root = await makeRepo(
      specTree([
        { id: '01-01', steps: ['mkdir -p out && echo a > out/01-01.txt'] },
        { id: '01-02', dependsOn: ['01-01'], steps: ['mkdir -p out && echo b > out/01-02.txt'] },
        { id: '01-03', steps: ['mkdir -p out && echo c > out/01-03.txt'] },
      ]),
    );
    expect((await runCli(['run', SPEC_DIR, '--agent', 'script', '--plan', '01-01'], root)).code).toBe(0);

    const text = await runCli(['status', SPEC_DIR], root);
    expect(untimed(text.stdout)).toBe(
      [
        'SPC-007 Runner test',
        'plan 01-01 finished, 2 plans left · 1/3 plans · 0/1 phases · 33% · <time> of work',
        '',
        'Phase 01 · Phase — pending',
        '  ✓ 01-01 Plan 01-01  verified · <time>',
        '  · 01-02 Plan 01-02  pending',
        '  · 01-03 Plan 01-03  pending',
        '',
        'Integration branch: harness/SPC-007/integration',
        `Left to run: 01-02, 01-03 (harness run ${SPEC_DIR})`,
        '',
      ].join('\n'),
    );
    const json = JSON.parse((await runCli(['status', SPEC_DIR, '--json'], root)).stdout);
    expect({ status: json.status, resume: json.resume, lastRun: json.lastRun }).toEqual({
      status: 'executing',
      resume: null,
      lastRun: { plan: '01-01', phase: null, ended: expect.any(String) },
    });

    // What a run killed mid-way leaves: its record without an end. Resumed, it runs what it was asked for, not the rest.
    const record = join(root, '.orchestration/SPC-007/run.json');
    const { ended: _ended, ...killed } = JSON.parse(readFileSync(record, 'utf8')) as { ended: string };
    writeFileSync(record, JSON.stringify(killed));
    const stopped = untimed((await runCli(['status', SPEC_DIR], root)).stdout).split('\n');
    expect(stopped[1]).toBe('stopped (its harness run is no longer running) · 1/3 plans · 0/1 phases · 33% · <time> of work');
    expect(stopped.at(-2)).toBe(`Resume: harness run ${SPEC_DIR} --plan 01-01`);

    expect((await runCli(['run', SPEC_DIR, '--agent', 'script'], root)).code).toBe(0);
    expect(untimed((await runCli(['status', SPEC_DIR], root)).stdout).split('\n')[1]).toBe('complete · 3/3 plans · 1/1 phases · 100% · <time> of work');
    expect(JSON.parse((await runCli(['status', SPEC_DIR, '--json'], root)).stdout).lastRun).toEqual({ plan: null, phase: null, ended: expect.any(String) });
  });
});

describe('the telling error line of a failure', () => {
  it('is the first error the output names, whole, in the run, status, SUMMARY.md and the signal', async () => {
    const root = await makeRepo({
      'package.json': '{ "type": "module" }\n',
      ...specTree([
        {
          id: '01-01',
          files: ['test/notes.test.js'],
          checks: ['  - { id: tests, type: tests_pass, command: "node --test test/" }'],
          steps: [
            'mkdir -p test && printf \'import { test } from "node:test";\\nimport { add } from "../src/notes.js";\\ntest("adds", () => add());\\n\' > test/notes.test.js',
          ],
        },
      ]),
    });
    const run = await runCli(['run', SPEC_DIR, '--agent', 'script'], root);
    expect(run.code).toBe(1);
    const worktree = worktreeOf(root, 'SPC-007', '01-01');
    const cause = (at: string) => `Error [ERR_MODULE_NOT_FOUND]: Cannot find module '${at}/src/notes.js' imported from ${at}/test/notes.test.js`;
    const reason = (at: string) => `plan 01-01 did not pass verification: 1 check failed: tests (exit 1: ${cause(at)})`;
    expect(events(run.stdout)).toContain(`01-01 FAILED: ${reason(worktree)}`);
    const status = await runCli(['status', SPEC_DIR], root);
    expect(status.stdout).toContain(`  ✗ 01-01 Plan 01-01  failed · ${reason(worktree)}\n`);
    // The documents committed name the checkout as ${PROJECT_ROOT}: the cause, whole, above the runner's tally.
    const summary = git(root, 'show', 'harness/SPC-007/integration:docs/specs/SPC-007-test/execution/phases/01-phase/01-01-SUMMARY.md');
    expect(summary).toContain(`    evidence: |-\n      exit 1\n      first error: ${cause('${PROJECT_ROOT}')}\n      output ends:\n`);
    expect(summary).toContain(`**Failed:** ${reason('${PROJECT_ROOT}')}\n`);
    const signal = git(root, 'ls-tree', '-r', '--name-only', 'harness/SPC-007/integration')
      .split('\n')
      .find((f) => f.endsWith('.signal.md'))!;
    expect(git(root, 'show', `harness/SPC-007/integration:${signal}`)).toContain(`\n${reason('${PROJECT_ROOT}')}\n`);
  });

  it('of an agent is its first error even when the output scrolled it out of the tail', async () => {
    const agent = 'echo "Error: connect ECONNREFUSED 127.0.0.1:5432"; for i in $(seq 1 15); do echo "retrying $i"; done; exit 1';
    const root = await makeRepo({ '.github/harness.yml': commandConfig(agent), ...specTree([{ id: '01-01', steps: [] }]) });
    const run = await runCli(['run', SPEC_DIR], root);
    expect(run.code).toBe(1);
    const status = await runCli(['status', SPEC_DIR], root);
    expect(status.stdout).toContain(
      [
        '  ✗ 01-01 Plan 01-01  failed · the command agent failed: the command exited with code 1',
        'Error: connect ECONNREFUSED 127.0.0.1:5432',
        '…',
        'retrying 6',
      ].join('\n      '),
    );
    const signal = git(root, 'ls-tree', '-r', '--name-only', 'harness/SPC-007/integration')
      .split('\n')
      .find((f) => f.endsWith('.signal.md'))!;
    expect(git(root, 'show', `harness/SPC-007/integration:${signal}`)).toContain('  said: "Error: connect ECONNREFUSED 127.0.0.1:5432"\n');
  });
});

describe('a retry or a resume', () => {
  it('keeps the agent the run was started with, and an agent that cannot start stops the run before any attempt', async () => {
    const root = await makeRepo({
      '.github/harness.yml': ['agents:', '  command:', `    command: ${JSON.stringify('echo "Error: the fixture is missing" >&2; exit 1')}`, ''].join('\n'),
      ...specTree([{ id: '01-01', steps: [] }]),
    });
    const first = await runCli(['run', SPEC_DIR, '--agent', 'command'], root);
    expect(first.code).toBe(1);
    const retry = await runCli(['run', SPEC_DIR, '--retry'], root);
    expect(retry.stderr).toBe('harness run: each plan runs with the command agent, as this run was started (--agent NAME for another)\n');
    expect(retry.stdout).toContain(' 01-01 FAILED: the command agent failed: the command exited with code 1\n    Error: the fixture is missing\n');

    // Told another agent, one this machine does not have: nothing starts, and no attempt is counted.
    const attempts = readFileSync(join(root, '.orchestration/SPC-007/sessions/01-01/status.json'), 'utf8');
    const claude = await harnessWith({ PATH: '/nonexistent' }, ['run', SPEC_DIR, '--agent', 'claude', '--retry'], root);
    expect(claude).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'harness run: --agent claude cannot start: "claude" is not on PATH; install Claude Code (npm install -g @anthropic-ai/claude-code), set agents.claude.executable in .github/harness.yml, or choose another agent with --agent (script, command)\n',
    });
    expect(readFileSync(join(root, '.orchestration/SPC-007/sessions/01-01/status.json'), 'utf8')).toBe(attempts);
  });
});

describe('an agent that cannot start', () => {
  it("is this machine's problem: the plan fails saying so, with no signal and no attempt counted", async () => {
    const root = await makeRepo({ '.github/harness.yml': commandConfig('harness-no-such-agent exec -'), ...specTree([{ id: '01-01', steps: [] }]) });
    const r = await runCli(['run', SPEC_DIR], root);
    expect(r.code).toBe(1);
    expect(events(r.stdout)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^01-01 FAILED: the command agent failed: the command could not start: sh: \d+: harness-no-such-agent: not found$/),
      ]),
    );
    const files = git(root, 'ls-tree', '-r', '--name-only', 'harness/SPC-007/integration').split('\n');
    expect(files.filter((f) => f.endsWith('.signal.md'))).toEqual([]);
    const result = JSON.parse(readFileSync(join(root, '.orchestration/SPC-007/sessions/01-01/result.json'), 'utf8')) as { environment?: boolean };
    expect(result.environment).toBe(true);
    // Run again: the next try is still the plan's first attempt.
    const again = runCli(['run', SPEC_DIR, '--retry'], root);
    expect((await again).code).toBe(1);
    const status = JSON.parse(readFileSync(join(root, '.orchestration/SPC-007/sessions/01-01/status.json'), 'utf8')) as { attempt: number };
    expect(status.attempt).toBe(1);
  });
});

async function harnessWith(env: Record<string, string>, argv: string[], cwd: string): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd, env, isTTY: false });
  return { code, stdout, stderr };
}

describe('small truths', () => {
  it('validate counts every plan file, the one whose frontmatter has an error too, with its nouns in the singular for one', async () => {
    const plans = ['01-01', '01-02', '01-03', '01-04', '01-05'].map((id) => ({ id, steps: ['true'], ...(id === '01-03' ? { extra: 'colour: blue' } : {}) }));
    const root = await makeRepo(specTree(plans));
    const r = await runCli(['validate', SPEC_DIR], root);
    expect(r).toEqual({
      code: 1,
      stdout: `${SPEC_DIR}/planning/plans/01-phase/01-03-PLAN.md:6: unknown key "colour"; put keys of your own under metadata:\nSPC-007: 5 plans in 1 phase: 1 error\n`,
      stderr: '',
    });
  });

  it('every command takes a spec by its id as well as by its directory', async () => {
    const root = await makeRepo(specTree([{ id: '01-01', steps: ['true'] }]));
    for (const command of ['validate', 'graph', 'status']) {
      const byDir = await runCli([command, SPEC_DIR], root);
      expect(await runCli([command, 'SPC-007'], root), command).toEqual(byDir);
    }
    expect((await runCli(['graph', 'SPC-007', '--format', 'text'], root)).stdout.split('\n')[0]).toBe('SPC-007 Runner test: 1 phase, 1 plan, 0 dependencies');
    expect(await runCli(['status', 'SPC-404'], root)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`harness status: no spec "SPC-404" here: the specs here are SPC-007 (${SPEC_DIR}); name one by its id or its directory`),
    });
    const byId = await runCli(['retrospective', 'SPC-007', '--dry-run', '--json'], root);
    expect(await runCli(['retrospective', SPEC_DIR, '--dry-run', '--json'], root)).toEqual(byId);
    expect(byId.code).toBe(0);
  });

  it('import prints its problems and its verdict on stdout, as validate does', async () => {
    const out = join(await makeRepo({}), 'docs/specs/SPC-100-imported');
    const r = await runCli(['import', fileURLToPath(new URL('../fixtures/gsd/basic/.planning', import.meta.url)), out]);
    expect(r.stderr).toBe('');
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^SPC-\d+: \d+ plans? in \d+ phases?: valid/);
  });

  it('harness run says what signals it captured and what harness reflect would make of them', async () => {
    const root = await makeRepo(specTree([{ id: '01-01', steps: ['echo "Error: no database" >&2; exit 1'] }]));
    const r = await runCli(['run', SPEC_DIR, '--agent', 'script'], root);
    expect(r.code).toBe(1);
    const store = join(worktreeOf(root, 'SPC-007', 'integration'), '.harness/knowledge');
    expect(r.stdout).toContain(
      [
        `  signals:            1 signal of SPC-007 captured (1 struggle), in ${store}`,
        `  harness reflect:    would propose no lesson yet (a pattern needs signals that recur) from them; see it with: harness reflect --dry-run --knowledge ${store}`,
      ].join('\n'),
    );
  });
});
