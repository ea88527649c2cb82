import { existsSync } from 'node:fs';
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { GitError } from '../workers/git.js';
import type { CommitMessage } from '../engine/core/agents/commit-message.js';
import { Mutex } from './mutex.js';
import { Stopwatch, TimedGit } from './timed-git.js';
import { HarnessError } from '../engine/core/error.js';
import { readTextIfExists } from '../machine/files.js';

export class RunError extends HarnessError {}

/** Names on the repository for one spec's run. */
export function planBranch(spec: string, plan: string): string {
  return `harness/${spec}/${plan}`;
}

/**
 * The branch that collects a spec's verified plans. It cannot be `harness/<spec>` itself:
 * git cannot hold both that ref and the plan refs below it.
 */
export function integrationBranch(spec: string): string {
  return `harness/${spec}/integration`;
}

/**
 * The git side of a local run: one integration worktree where verified plans are merged
 * and phases verified, and one worktree per plan, all kept under the repository's git
 * directory so that the person's own checkout is never touched.
 */
export class RunRepo {
  readonly watch = new Stopwatch();
  /**
   * Git's worktree administration is not safe to run concurrently: one `worktree add`
   * reads the admin files of another that is half written ("failed to read
   * .git/worktrees/<name>/commondir"). Adding, removing and pruning go one at a time.
   */
  readonly #admin = new Mutex();

  private constructor(
    readonly root: string,
    readonly commonDir: string,
  ) {}

  static async open(dir: string): Promise<RunRepo> {
    const probe = new TimedGit(dir, new Stopwatch());
    let root: string;
    let common: string;
    try {
      root = (await probe.run(['rev-parse', '--show-toplevel'])).trim();
      common = (await probe.run(['rev-parse', '--git-common-dir'])).trim();
    } catch (e) {
      if (e instanceof GitError) throw new RunError(`${dir} is not inside a git repository; harness run works on a git checkout (git init, then commit the spec)`);
      throw e;
    }
    return new RunRepo(root, isAbsolute(common) ? common : resolve(dir, common));
  }

  git(cwd = this.root): TimedGit {
    return new TimedGit(cwd, this.watch);
  }

  worktreePath(spec: string, name: string): string {
    return join(this.commonDir, 'harness', 'worktrees', spec, name);
  }

  async currentBranch(): Promise<string | undefined> {
    try {
      return (await this.git().run(['symbolic-ref', '--quiet', '--short', 'HEAD'])).trim();
    } catch {
      return undefined;
    }
  }

  async revParse(ref: string, cwd = this.root): Promise<string> {
    return (await this.git(cwd).run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).trim();
  }

  async branchExists(branch: string): Promise<boolean> {
    try {
      await this.git().run(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`]);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * A worktree for `branch` at `path`, creating the branch at `startPoint` when it does not
   * exist. Reused as it is when it already exists (a resumed run).
   */
  ensureWorktree(path: string, branch: string, startPoint: string): Promise<void> {
    return this.#admin.run(async () => {
      if (existsSync(join(path, '.git'))) return;
      await this.git().run(['worktree', 'prune']);
      await mkdir(dirname(path), { recursive: true });
      if (await this.branchExists(branch)) await this.git().run(['worktree', 'add', '--quiet', path, branch]);
      else await this.git().run(['worktree', 'add', '--quiet', '-b', branch, path, startPoint]);
    });
  }

  removeWorktree(path: string): Promise<void> {
    return this.#admin.run(async () => {
      if (!existsSync(path)) return;
      await this.git().run(['worktree', 'remove', '--force', path]);
    });
  }

  /**
   * Merge a plan's branch into the integration worktree. Idempotent: a branch already
   * merged (a crash after the merge, before the run recorded it) returns the commit that
   * merged it. A conflict leaves the integration worktree as it was.
   */
  async merge(worktree: string, branch: string, message: CommitMessage): Promise<{ ok: true; sha: string } | { ok: false; conflicts: string[] }> {
    const git = this.git(worktree);
    if (await git.isAncestor(branch, 'HEAD')) {
      const merged = (await git.run(['log', '--merges', '--format=%H', '--ancestry-path', `${branch}..HEAD`])).trim().split('\n').filter(Boolean);
      return { ok: true, sha: merged[merged.length - 1] ?? (await git.head()) };
    }
    try {
      await git.run(['merge', '--no-ff', '--no-edit', '--quiet', '-m', formatMessage(message), branch]);
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      const conflicts = (await git.run(['diff', '--name-only', '--diff-filter=U'])).split('\n').filter(Boolean);
      await git.run(['merge', '--abort']).catch(() => undefined);
      return { ok: false, conflicts: conflicts.length > 0 ? conflicts : [e.stderr.trim()] };
    }
    return { ok: true, sha: await git.head() };
  }

  /** Files changed on `head` since `base`. */
  async changedFiles(cwd: string, base: string, head = 'HEAD'): Promise<string[]> {
    return (await this.git(cwd).run(['diff', '--name-only', '--no-renames', `${base}...${head}`])).split('\n').filter(Boolean);
  }

  async trackedFiles(cwd: string): Promise<string[]> {
    return (await this.git(cwd).run(['ls-files', '-z'])).split('\0').filter(Boolean);
  }

  /**
   * Stage `paths` in `cwd` and commit them if anything changed; returns the new sha or
   * undefined. Forced: these are harness's own records in the spec directory, and a
   * project's .gitignore (a `*.log` rule, say) must not silently drop them.
   */
  async commitPaths(cwd: string, paths: string[], message: CommitMessage): Promise<string | undefined> {
    const git = this.git(cwd);
    await git.run(['add', '--force', '--', ...paths]);
    const staged = await git.run(['diff', '--cached', '--name-only']);
    if (!staged.trim()) return undefined;
    return git.commit(message);
  }

  /** Keep run state out of commits: `.orchestration/` goes into the repository's own exclude file. */
  async excludeOrchestration(): Promise<void> {
    const path = join(this.commonDir, 'info', 'exclude');
    const current = (await readTextIfExists(path)) ?? '';
    if (current.split('\n').some((l) => l.trim() === '/.orchestration/')) return;
    await mkdir(dirname(path), { recursive: true });
    await appendFile(path, `${current === '' || current.endsWith('\n') ? '' : '\n'}# harness run state\n/.orchestration/\n`);
  }
}

function formatMessage(message: CommitMessage): string {
  const parts = [message.subject];
  if (message.body) parts.push(message.body);
  if (message.trailers.length > 0) parts.push(message.trailers.map((t) => `${t.key}: ${t.value}`).join('\n'));
  return parts.join('\n\n');
}
