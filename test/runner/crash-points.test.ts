/**
 * A run killed (SIGKILL) at a chosen git step and started again ends as an uninterrupted
 * run does: every document commit (a plan's summary, a phase's verification, the spec's
 * completion) once, no worktree left behind; and a finished spec run again adds nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordingReporter } from '../../app/runner/progress.js';
import { runSpec } from '../../app/runner/runner.js';
import { killingGit, type KillPoint } from '../helpers/kill-git.js';
import { ROOT } from '../helpers/paths.js';
import { fileHolds } from '../helpers/file-appears.js';
import { CONTAINMENT_ENV } from '../../app/machine/containment.js';
import { everyLive } from '../helpers/processes.js';
import { git, makeRepo, SPEC_DIR, specTree, type StepPlan, worktreeOf } from '../helpers/repo.js';
import { repoStateDir } from '../../app/runner/repo.js';

const BIN = join(ROOT, 'bin', 'harness.js');
const PLANS: StepPlan[] = [
  { id: '01-01', steps: ['mkdir -p out && echo a > out/01-01.txt'] },
  { id: '01-02', dependsOn: ['01-01'], steps: ['mkdir -p out && echo b > out/01-02.txt'] },
  { id: '02-01', dependsOn: ['01-02'], steps: ['mkdir -p out && echo c > out/02-01.txt'] },
];
const killer = killingGit();

async function resume(root: string) {
  return runSpec({ specDir: join(root, SPEC_DIR), specArg: SPEC_DIR, slots: 2, agent: 'script', reporter: new RecordingReporter(), pollMs: 25 });
}

/** Runs the CLI until the git wrapper kills it (or it ends). */
function killedRun(root: string, at: KillPoint): Promise<number | null> {
  const child = spawn(process.execPath, [BIN, 'run', SPEC_DIR, '--agent', 'script', '--slots', '2'], { cwd: root, env: killer.env(at), stdio: 'ignore' });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ? null : code)));
}

/** Subjects of the integration branch's commits, with how many times each occurs. */
function subjects(root: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of git(root, 'log', '--format=%s', 'harness/SPC-007/integration').split('\n').filter(Boolean)) counts.set(s, (counts.get(s) ?? 0) + 1);
  return counts;
}

/** Alive and not a zombie (a container's init may never reap one). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!);
  } catch {
    return false;
  }
}

const worktrees = (root: string) =>
  git(root, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree ')).length;

/** The plans' worktrees git knows of (the integration worktree and the person's checkout aside). */
const planWorktrees = (root: string) =>
  git(root, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree ') && l.startsWith(`worktree ${dirname(worktreeOf(root, 'SPC-007', 'integration'))}/`) && !l.endsWith('/integration'))
    .map((l) => l.slice('worktree '.length));

/** A worktree's administrative directory, from its .git file. */
const adminOf = (worktree: string) =>
  readFileSync(join(worktree, '.git'), 'utf8')
    .replace(/^gitdir: /, '')
    .trim();

describe('a run killed at a git step', () => {
  it.each([
    ['the summary commit of a plan', { commit: 'summary of 01-01' }],
    ["a phase's verification commit", { commit: 'phase 01 verified' }],
    ["the spec's completion commit", { commit: 'all phases verified' }],
  ])('after %s, resumes without committing it again', async (_, after) => {
    const root = await makeRepo(specTree(PLANS));
    expect(await killedRun(root, after)).toBeNull();
    expect((await resume(root)).complete).toBe(true);
    const counts = subjects(root);
    for (const [subject, n] of counts) expect(n, `${subject} committed ${n} times`).toBe(1);
    expect(counts.has('docs(SPC-007): all phases verified')).toBe(true);
    // Only the person's checkout and the integration worktree remain.
    expect(worktrees(root)).toBe(2);
  });

  it.each([
    ['the summary of a plan', 'summary of 01-01'],
    ["a phase's verification", 'phase 01 verified'],
  ])('before %s is committed (its documents written and staged), resumes to the same end, each committed once', async (_, subject) => {
    const root = await makeRepo(specTree(PLANS));
    expect(await killedRun(root, { beforeCommit: subject })).toBeNull();
    expect((await resume(root)).complete).toBe(true);
    const counts = subjects(root);
    for (const [s, n] of counts) expect(n, `${s} committed ${n} times`).toBe(1);
    expect(counts.has('docs(SPC-007): all phases verified')).toBe(true);
    expect(worktrees(root)).toBe(2);
  });

  it("before a verified plan's worktree is removed, leaves no worktree behind once resumed", async () => {
    const root = await makeRepo(specTree(PLANS));
    expect(await killedRun(root, { before: 'worktree remove' })).toBeNull();
    expect(worktrees(root)).toBeGreaterThan(2);
    expect((await resume(root)).complete).toBe(true);
    expect(worktrees(root)).toBe(2);
  });

  it("resumes past a plan's worktree half removed (its .git gone, files left), and past one half added", async () => {
    const root = await makeRepo(specTree(PLANS));
    expect(await killedRun(root, { before: 'worktree remove' })).toBeNull();
    const [kept] = planWorktrees(root);
    // What a kill inside `git worktree remove` leaves: the files, without the .git link.
    rmSync(join(kept, '.git'));
    expect((await resume(root)).complete).toBe(true);
    expect(existsSync(kept)).toBe(false);
    expect(worktrees(root)).toBe(2);
  });

  it('resumes past a worktree whose add a kill cut short (locked "initializing", checkout unfinished)', async () => {
    const root = await makeRepo(specTree(PLANS));
    expect(await killedRun(root, { before: 'worktree remove' })).toBeNull();
    // The state `git worktree add` is in until its checkout is done: locked, no index, files missing.
    const [kept] = planWorktrees(root);
    const admin = adminOf(kept!);
    writeFileSync(join(admin, 'locked'), 'initializing');
    rmSync(join(admin, 'index'));
    rmSync(join(kept!, 'README.md'));
    expect((await resume(root)).complete).toBe(true);
    expect(worktrees(root)).toBe(2);
  });

  it("resumes past a verified plan's worktree taken for the next plan and killed before its checkout (on the other plan's branch)", async () => {
    const root = await makeRepo(specTree(PLANS));
    expect(await killedRun(root, { before: 'checkout --quiet --force -b harness/SPC-007/01-02' })).toBeNull();
    const taken = worktreeOf(root, 'SPC-007', '01-02');
    // 01-01's worktree, moved to 01-02's place, still on 01-01's branch.
    expect(git(taken, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/harness/SPC-007/01-01');
    expect((await resume(root)).complete).toBe(true);
    const counts = subjects(root);
    for (const [s, n] of counts) expect(n, `${s} committed ${n} times`).toBe(1);
    expect(git(root, 'log', '--format=%s', 'harness/SPC-007/01-02').split('\n')[0]).toBe('01-02: Step 1');
    expect(git(root, 'show', 'harness/SPC-007/integration:out/01-02.txt')).toBe('b\n');
    expect(worktrees(root)).toBe(2);
  });

  it("resumes past a worktree moved only in part (git's record says the new place, the directory is at the old one)", async () => {
    const root = await makeRepo(specTree(PLANS));
    expect(await killedRun(root, { before: 'checkout --quiet --force -b harness/SPC-007/01-02' })).toBeNull();
    const taken = worktreeOf(root, 'SPC-007', '01-02');
    renameSync(taken, worktreeOf(root, 'SPC-007', '01-01'));
    expect((await resume(root)).complete).toBe(true);
    const counts = subjects(root);
    for (const [s, n] of counts) expect(n, `${s} committed ${n} times`).toBe(1);
    expect(git(root, 'show', 'harness/SPC-007/integration:out/01-02.txt')).toBe('b\n');
    expect(worktrees(root)).toBe(2);
    expect(planWorktrees(root)).toEqual([]);
  });

  it("resumes past the lock files a git command killed with its run left (index.lock, a branch's .lock)", async () => {
    const root = await makeRepo(specTree(PLANS));
    expect(await killedRun(root, { commit: 'summary of 01-01' })).toBeNull();
    writeFileSync(join(root, '.git/worktrees/integration/index.lock'), '');
    writeFileSync(join(root, '.git/refs/heads/harness/SPC-007/integration.lock'), '');
    expect((await resume(root)).complete).toBe(true);
    expect(existsSync(join(root, '.git/worktrees/integration/index.lock'))).toBe(false);
  });

  it("keeps STATUS.md's recent activity across a kill", async () => {
    const root = await makeRepo(specTree(PLANS));
    expect(await killedRun(root, { commit: 'phase 01 verified' })).toBeNull();
    expect((await resume(root)).complete).toBe(true);
    const status = readFileSync(join(worktreeOf(root, 'SPC-007', 'integration'), SPEC_DIR, 'STATUS.md'), 'utf8');
    // Recorded by the killed run, never again by the resumed one.
    expect(status).toContain('01-01 verified and merged');
    expect(status).toContain('02-01 verified and merged');
  });

  /** A plan with a check server (`serve`, running server.cjs) that writes its pid to the returned mark once it listens; /slow answers after 2 s. */
  async function withCheckServer(serve: string, request: string): Promise<{ root: string; mark: string; run: (env?: Record<string, string>) => ChildProcess }> {
    const mark = join(await mkdtemp(join(tmpdir(), 'harness-serve-')), 'server.pid');
    const server = [
      "const http = require('node:http');",
      "const fs = require('node:fs');",
      "http.createServer((req, res) => setTimeout(() => res.end('ok'), req.url === '/slow' ? 2000 : 0))",
      "  .listen(Number(process.env.PORT), '127.0.0.1', () => fs.appendFileSync(process.env.SERVER_MARK, process.pid + '\\n'));",
    ].join('\n');
    const plans: StepPlan[] = [
      {
        id: '01-01',
        steps: ['mkdir -p out && echo a > out/01-01.txt'],
        extra: `serve:\n  command: ${JSON.stringify(serve)}\n  url: "http://127.0.0.1:{port}"`,
        checks: [`  - { id: up, type: api_response, request: "${request}", expect: { status: 200 } }`],
      },
    ];
    const root = await makeRepo({ ...specTree(plans), 'server.cjs': server });
    return {
      root,
      mark,
      run: (env = {}) =>
        spawn(process.execPath, [BIN, 'run', SPEC_DIR, '--agent', 'script'], {
          cwd: root,
          env: { ...process.env, SERVER_MARK: mark, ...env },
          stdio: 'ignore',
        }),
    };
  }

  /**
   * The check servers running in `root`, by their ids on this machine: a server in a PID
   * namespace of its own (containment.ts) knows itself (process.pid) by its id there only.
   */
  // Started in the plans' worktrees, which harness keeps beside the repository.
  const servers = (root: string) =>
    everyLive().filter(
      (p) => p.command === 'node server.cjs' && [root, repoStateDir(join(root, '.git'))].some((dir) => p.cwd === dir || p.cwd?.startsWith(`${dir}/`)),
    );

  /** The server the killed run left runs; resumed, the run completes, and no server it or the killed run started is left. */
  async function resumeStopsServers(root: string, mark: string): Promise<void> {
    // The server's pid, not just the file: appended once it listens.
    await fileHolds(mark, (text) => /^\d+\n/.test(text));
    const orphans = servers(root);
    expect(orphans).toHaveLength(1);
    process.env.SERVER_MARK = mark;
    try {
      expect((await resume(root)).complete).toBe(true);
    } finally {
      delete process.env.SERVER_MARK;
    }
    expect(running(orphans[0]!.pid)).toBe(false);
    // The resumed run's own server was stopped too.
    expect(servers(root)).toEqual([]);
  }

  it('during an API check, leaves no check server running once resumed', async () => {
    const { root, mark, run } = await withCheckServer('node server.cjs', 'GET /slow');
    const child = run();
    // The server's pid, not just the file: appended after the file is made.
    await fileHolds(mark, (text) => /^\d+\n/.test(text));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    await resumeStopsServers(root, mark);
  });

  it('killed the moment a check server starts, before its group is recorded, leaves it to the next run to stop', async () => {
    // The first time, the server's shell SIGKILLs the run that started it (its parent) at once:
    // the run is gone before it can write the group's id, as a kill at the worst moment leaves it.
    // A process in a PID namespace of its own cannot see the run that started it: this run
    // keeps to a cgroup, or to the tag where there is none (the registry stops the namespace's
    // by its tag: test/machine/process-registry.test.ts).
    const { root, mark, run } = await withCheckServer(
      'if [ ! -e "$SERVER_MARK.killed" ]; then touch "$SERVER_MARK.killed"; kill -9 $PPID; fi; node server.cjs',
      'GET /',
    );
    const child = run({ [CONTAINMENT_ENV]: 'cgroup,tag' });
    expect(await new Promise((r) => child.once('exit', (_code, signal) => r(signal)))).toBe('SIGKILL');
    // The orphaned server comes up on its own, with nobody left to stop it, until the next run.
    await resumeStopsServers(root, mark);
  });

  it('a finished spec run again commits nothing', async () => {
    const root = await makeRepo(specTree(PLANS));
    expect((await resume(root)).complete).toBe(true);
    const head = git(root, 'rev-parse', 'harness/SPC-007/integration');
    expect((await resume(root)).complete).toBe(true);
    expect((await resume(root)).complete).toBe(true);
    expect(git(root, 'rev-parse', 'harness/SPC-007/integration')).toBe(head);
  });
});
