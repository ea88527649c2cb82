import { formatCommitMessage, parseTrailers, type ChangedFile, type CommitMessage, type Trailer } from '../engine/core/agents/commit-message.js';
import { HarnessError } from '../engine/core/error.js';
import { gitOnThread } from './git-thread.js';
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
const LOCK_FILES = ['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'Cargo.lock', 'poetry.lock', 'go.sum', 'composer.lock', 'Gemfile.lock'];

export class Git {
  constructor(
    readonly cwd: string,
    private readonly options: GitOptions = {},
  ) {}

  /**
   * Run git; resolves with stdout, rejects with a GitError. The process is started, fed and
   * read on harness's git helper thread (git-thread.ts), with the environment of git-env.ts.
   */
  run(args: string[], input?: string): Promise<string> {
    return this.runThenHead(args, input, false).then((r) => r.stdout);
  }

  /** run(), and HEAD afterwards read in the same request to the helper thread (see head()): what a commit needs. */
  protected async runThenHead(args: string[], input: string | undefined, head: boolean): Promise<{ stdout: string; head?: string }> {
    const outcome = await gitOnThread(args, this.cwd, this.options.env ?? {}, input, { head });
    if (outcome.code === 0) return { stdout: outcome.stdout, ...(outcome.head === undefined ? {} : { head: outcome.head }) };
    if (outcome.code === undefined) throw new GitError(args, this.cwd, null, outcome.error ?? 'git did not run');
    throw new GitError(args, this.cwd, outcome.code, outcome.stderr);
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
    return this.run(['diff', '--no-color', '--no-ext-diff', '--no-renames', '--unified=0', from, 'HEAD', '--', '.', ...LOCK_FILES.map((f) => `:(exclude,glob)**/${f}`)]);
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
    const { head } = await this.committing(args, formatCommitMessage(message));
    return head ?? (await this.run(['rev-parse', 'HEAD'])).trim();
  }

  /** The commit command run, with HEAD after it. Overridden where git's time is measured. */
  protected committing(args: string[], input: string): Promise<{ stdout: string; head?: string }> {
    return this.runThenHead(args, input, true);
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

/** An extended regular expression matching `text` literally, for LogOptions.grep. */
export function grepLiteral(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
