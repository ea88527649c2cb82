import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTree } from './cli.js';
import { gitBatch } from './git-batch.js';

/**
 * A GitHub repository as the worker meets it on a runner: a bare `origin` with `main` and the
 * plan branch the app claimed at main's head, and a fresh clone of that branch (what
 * actions/checkout leaves), with no Git identity of its own.
 */
export interface WorkerRepo {
  /** The bare remote. */
  remote: string;
  /** The runner's checkout ($GITHUB_WORKSPACE). */
  checkout: string;
  /** Scratch space outside the checkout ($RUNNER_TEMP). */
  temp: string;
  /** main's head, where the plan branch starts. */
  base: string;
}

/** Every commit gets this date (author and committer), so that shas are the same on every run. */
export const COMMIT_DATE = '2024-05-01T12:00:00Z';

const SEED = ['-c', 'user.name=Seed', '-c', 'user.email=seed@example.com'];

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/**
 * Isolate git from this machine's own configuration (a global user.name would hide whether the
 * worker sets the bot identity) and fix commit dates. Returns the function that undoes it.
 */
export function isolateGit(): () => void {
  const saved = { ...process.env };
  const empty = join(mkdtempSync(join(tmpdir(), 'harness-gitconfig-')), 'gitconfig');
  writeFileSync(empty, '');
  Object.assign(process.env, {
    GIT_CONFIG_GLOBAL: empty,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_DATE: COMMIT_DATE,
    GIT_COMMITTER_DATE: COMMIT_DATE,
  });
  return () => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  };
}

export async function workerRepo(files: Record<string, string>, branch: string): Promise<WorkerRepo> {
  const root = mkdtempSync(join(tmpdir(), 'harness-worker-'));
  const remote = join(root, 'origin.git');
  const seed = join(root, 'seed');
  const checkout = join(root, 'checkout');
  await writeTree(seed, { 'README.md': '# demo\n', ...files });
  const base = gitBatch(
    seed,
    ['init', '--quiet', '--bare', '--initial-branch=main', remote],
    ['init', '--quiet', '--initial-branch=main'],
    ['add', '-A'],
    [...SEED, 'commit', '--quiet', '-m', 'initial'],
    ['push', '--quiet', remote, 'main', `main:refs/heads/${branch}`],
    // A new runner's checkout of the branch, as cloneBranch makes it.
    ['-C', tmpdir(), ...cloneArgs(remote, branch, checkout)],
    ['rev-parse', 'HEAD'],
  ).trim();
  return { remote, checkout, temp: join(root, 'runner-temp'), base };
}

/** A new runner's checkout of a branch, as actions/checkout makes it (a local branch tracking origin). */
export function cloneBranch(remote: string, branch: string, into: string): string {
  git(tmpdir(), ...cloneArgs(remote, branch, into));
  return into;
}

/** The git command that makes that checkout, run from tmpdir(). */
const cloneArgs = (remote: string, branch: string, into: string): string[] => ['clone', '--quiet', '--branch', branch, remote, into];

/** Add a commit on main in the remote (the base moving on while a plan runs). */
export async function commitOnMain(remote: string, files: Record<string, string>): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), 'harness-main-'));
  git(work, 'clone', '--quiet', '--branch', 'main', remote, 'w');
  const dir = join(work, 'w');
  await writeTree(dir, files);
  return gitBatch(
    dir,
    ['add', '-A'],
    [...SEED, 'commit', '--quiet', '-m', 'main moves on'],
    ['push', '--quiet', 'origin', 'main'],
    ['rev-parse', 'HEAD'],
  ).trim();
}

export interface RemoteCommit {
  sha: string;
  subject: string;
  author: string;
  trailers: string;
}

/** The commits of a branch of the remote after `base`, oldest first. */
export function remoteCommits(remote: string, branch: string, base: string): RemoteCommit[] {
  const out = git(remote, 'log', '--reverse', '--format=%H%x1f%s%x1f%an <%ae>%x1f%(trailers:only,unfold)%x1e', `${base}..refs/heads/${branch}`);
  return out
    .split('\x1e')
    .map((r) => r.trim())
    .filter((r) => r !== '')
    .map((r) => {
      const [sha, subject, author, trailers] = r.split('\x1f');
      return { sha: sha!, subject: subject!, author: author!, trailers: trailers!.trim() };
    });
}
