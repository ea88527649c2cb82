import { spawn } from 'node:child_process';
import { formatCommitMessage, parseTrailers, type ChangedFile, type CommitMessage, type Trailer } from '../engine/core/agents/commit-message.js';
import { HarnessError } from '../engine/core/error.js';
import { gitEnv } from './git-env.js';
import { headFromFiles } from './git-head.js';

/**
 * A small typed wrapper over the git CLI for one checkout. Commands run without a shell (no
 * quoting bugs, no injection through paths or titles), and a failure carries the command and
 * git's stderr, which is what a person needs to see.
 */

export class GitError extends HarnessError {
  constructor(
    readonly args: readonly string[],
    readonly cwd: string,
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed in ${cwd} (exit ${code ?? 'signal'}): ${stderr.trim() || '(no output)'}`);
  }
}

export interface GitOptions {
  /** Extra environment, e.g. GIT_AUTHOR_NAME for a bot identity. */
  env?: Record<string, string>;
}

export interface StatusEntry {
  /** The two-letter porcelain code, e.g. " M", "??", "A ". */
  code: string;
  path: string;
}

export interface CommitInfo {
  sha: string;
  subject: string;
  message: string;
  trailers: Trailer[];
}

export interface LogOptions {
  /** Only commits after this one (`base..HEAD`); the whole history of HEAD without it. */
  base?: string;
  /** Messages must match every extended regular expression (--grep, --all-match; ^ and $ anchor lines). */
  grep?: string[];
}

export interface CommitOptions {
  allowEmpty?: boolean;
  /** Skip the repository's commit hooks (--no-verify). */
  noVerify?: boolean;
}

/** Files whose diff is noise: package managers' lock files. */
const LOCK_FILES = [
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'Cargo.lock',
  'poetry.lock',
  'go.sum',
  'composer.lock',
  'Gemfile.lock',
];

export class Git {
  constructor(
    readonly cwd: string,
    private readonly options: GitOptions = {},
  ) {}

  /** Run git; resolves with stdout, rejects with a GitError. Its environment is git-env.ts's. */
  async run(args: string[], input?: string): Promise<string> {
    const ran = await runGit(args, this.cwd, gitEnv(process.env, this.options.env), input);
    if (ran.code === 0) return ran.stdout;
    throw new GitError(args, this.cwd, ran.code ?? null, ran.code === undefined ? (ran.error ?? 'git did not run') : ran.stderr);
  }

  /** The commit HEAD points at: read from the repository's files when they settle it, from git otherwise. */
  async head(): Promise<string> {
    return (await headFromFiles(this.cwd)) ?? (await this.run(['rev-parse', 'HEAD'])).trim();
  }

  /** Uncommitted changes, untracked files included (ignored ones are not). */
  async status(): Promise<StatusEntry[]> {
    const out = await this.run(['status', '--porcelain=v1', '-z', '--untracked-files=all']);
    const fields = out.split('\0');
    const entries: StatusEntry[] = [];
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i]!;
      if (field.length < 4) continue;
      const code = field.slice(0, 2);
      entries.push({ code, path: field.slice(3) });
      // A rename or copy is followed by its source path, which is not an entry of its own.
      if (code[0] === 'R' || code[0] === 'C') i++;
    }
    return entries;
  }

  /**
   * The diff from `from` to HEAD, without context lines (what the later commits add and take
   * away), or undefined when `from` is no commit of this checkout (a shallow clone, a branch
   * pushed over). Lock files are left out: their lines say nothing a person reads.
   */
  async diffSince(from: string): Promise<string | undefined> {
    const known = await this.run(['cat-file', '-e', `${from}^{commit}`]).then(
      () => true,
      (e: unknown) => {
        if (e instanceof GitError) return false;
        throw e;
      },
    );
    if (!known) return undefined;
    return this.run([
      'diff',
      '--no-color',
      '--no-ext-diff',
      '--no-renames',
      '--unified=0',
      from,
      'HEAD',
      '--',
      '.',
      ...LOCK_FILES.map((f) => `:(exclude,glob)**/${f}`),
    ]);
  }

  async addAll(): Promise<void> {
    await this.run(['add', '-A']);
  }

  /** What the index would commit, against HEAD. */
  async stagedFiles(): Promise<ChangedFile[]> {
    const out = await this.run(['diff', '--cached', '--name-status', '--no-renames', '-z']);
    const fields = out.split('\0').filter((f) => f.length > 0);
    const files: ChangedFile[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) files.push({ status: fields[i]!, path: fields[i + 1]! });
    return files;
  }

  /** Commit the index; resolves with the new commit's sha. */
  async commit(message: CommitMessage, options: CommitOptions = {}): Promise<string> {
    // --cleanup=whitespace keeps lines starting with "#", which the default would strip from titles and file lists.
    const args = ['commit', '--file=-', '--cleanup=whitespace', '--quiet'];
    if (options.allowEmpty) args.push('--allow-empty');
    if (options.noVerify) args.push('--no-verify');
    await this.run(args, formatCommitMessage(message));
    return this.head();
  }

  /** Commits, oldest first, with their trailers parsed. */
  async log(options: LogOptions = {}): Promise<CommitInfo[]> {
    const args = ['log', '--reverse', '--format=%H%x1f%B%x1e'];
    if (options.grep && options.grep.length > 0) {
      args.push('--all-match', '--extended-regexp', ...options.grep.map((g) => `--grep=${g}`));
    }
    args.push(options.base ? `${options.base}..HEAD` : 'HEAD', '--');
    const out = await this.run(args);
    const commits: CommitInfo[] = [];
    for (const record of out.split('\x1e')) {
      const [sha, message] = record.replace(/^\n/, '').split('\x1f');
      if (!sha || message === undefined) continue;
      commits.push({ sha, subject: message.split('\n')[0] ?? '', message, trailers: parseTrailers(message) });
    }
    return commits;
  }

  async resetHard(ref = 'HEAD'): Promise<void> {
    await this.run(['reset', '--hard', '--quiet', ref]);
  }

  /** Remove untracked files and directories; ignored files (node_modules, build output) stay. */
  async clean(): Promise<void> {
    await this.run(['clean', '-fd', '--quiet']);
  }

  /** A config value as git resolves it, or undefined when it is not set (git config exits 1). */
  async config(key: string): Promise<string | undefined> {
    try {
      const value = (await this.run(['config', '--get', key])).trim();
      return value === '' ? undefined : value;
    } catch (e) {
      if (e instanceof GitError && e.code === 1) return undefined;
      throw e;
    }
  }

  /** Would git ignore this path (relative to the checkout)? */
  async isIgnored(path: string): Promise<boolean> {
    try {
      await this.run(['check-ignore', '--quiet', '--no-index', path]);
      return true;
    } catch (e) {
      if (e instanceof GitError && e.code === 1) return false;
      throw e;
    }
  }

  /** Is `ancestor` an ancestor of (or equal to) `of`? */
  async isAncestor(ancestor: string, of = 'HEAD'): Promise<boolean> {
    try {
      await this.run(['merge-base', '--is-ancestor', ancestor, of]);
      return true;
    } catch (e) {
      if (e instanceof GitError && e.code === 1) return false;
      throw e;
    }
  }
}

interface Ran {
  /** Its exit code (null when a signal ended it); undefined when it never started. */
  code?: number | null;
  stdout: string;
  stderr: string;
  /** Why it could not be started. */
  error?: string;
}

/**
 * git started as a child process without a shell, fed `input` (or, without it, /dev/null: one
 * pipe fewer to make for most commands) and read to its end.
 */
function runGit(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, input: string | undefined): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn('git', args, { cwd, env, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let failed: Error | undefined;
    let inputLost: Error | undefined;
    child.stdout!.on('data', (d: Buffer) => stdout.push(d));
    child.stderr!.on('data', (d: Buffer) => stderr.push(d));
    // A git that could not start (no git on PATH, no such directory): 'close' follows.
    child.on('error', (e) => (failed = e));
    child.on('close', (code) => {
      if (child.pid === undefined) resolve({ stdout: '', stderr: '', error: failed?.message ?? 'git did not start' });
      else if (inputLost) resolve({ stdout: '', stderr: '', error: `its input could not be written: ${inputLost.message}` });
      else resolve({ code, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') });
    });
    // A git that exits before reading its input closes the pipe (EPIPE): its exit code says how it went.
    child.stdin?.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') inputLost = e;
    });
    child.stdin?.end(input);
  });
}

/**
 * For `.catch()` where git failing is expected: `value` when git ran and failed (with exit
 * `code`, when given), the error rethrown otherwise.
 */
export function whenGitFails<T>(value: T, code?: number): (e: unknown) => T {
  return (e) => {
    if (e instanceof GitError && (code === undefined || e.code === code)) return value;
    throw e;
  };
}

/** An extended regular expression matching `text` literally, for LogOptions.grep. */
export function grepLiteral(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
