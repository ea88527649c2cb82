import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { appendFile, mkdir, readdir, rmdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { GitError, whenGitFails, type CommitInfo } from '../machine/git.js';
import type { CommitMessage } from '../engine/core/agents/commit-message.js';
import { Stopwatch, TimedGit } from './timed-git.js';
import { HarnessError } from '../engine/core/error.js';
import { readTextIfExists } from '../machine/files.js';
import { headFromFiles } from '../machine/git-head.js';
import { AttemptHistory, changedFiles } from './attempt-history.js';
import { abortInterruptedMerge, mergeBranch } from './merges.js';
import { clearStaleLocks } from './stale-locks.js';
import { WorktreePool } from './worktree-pool.js';

export class RunError extends HarnessError {}
/** The repository is not in a state a command can start from (no commit yet, a base that conflicts): not a usage mistake. */
export class RepoStateError extends RunError {}

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
 * Where harness keeps, on this machine, what runs make beside a repository (its worktrees,
 * planning's and spikes' checkouts): `$HARNESS_STATE_DIR`, else `$XDG_STATE_HOME/harness`, else
 * `~/.local/state/harness`. Outside the repository, so that the person's own checkout and the
 * tools that search it (test runners, linters) never see them, and outside its `.git`, where
 * coding agents refuse to write: Claude Code 2.1 calls any path under a `.git` folder a
 * sensitive file and will not edit it.
 */
export function stateRoot(env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (env.HARNESS_STATE_DIR) return resolve(env.HARNESS_STATE_DIR);
  return join(env.XDG_STATE_HOME ? resolve(env.XDG_STATE_HOME) : join(homedir(), '.local', 'state'), 'harness');
}

/**
 * One repository's folder there: its name and a hash of where its git directory is
 * (`orders-api-3f9c2a7d1e`), so that two clones never share one. The name is kept to letters,
 * digits, `.`, `_` and `-`.
 */
export function repoStateDir(commonDir: string, env: Readonly<Record<string, string | undefined>> = process.env): string {
  let real = commonDir;
  try {
    real = realpathSync(commonDir);
  } catch {
    // Not there (yet): named by the path as given.
  }
  const name =
    (basename(real) === '.git' ? basename(dirname(real)) : basename(real).replace(/\.git$/, '')).replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 40) || 'repo';
  return join(stateRoot(env), `${name}-${createHash('sha256').update(real).digest('hex').slice(0, 10)}`);
}

/**
 * The git side of a local run: one integration worktree where verified plans are merged
 * and phases verified, and one worktree per plan, all kept outside the repository
 * (repoStateDir) so that the person's own checkout is never touched. Its parts, each in a module
 * of its own: the worktrees (worktree-pool.ts, spares reused), merges (merges.ts), the lock
 * files a killed run left (stale-locks.ts) and what attempts committed (attempt-history.ts).
 */
export class RunRepo {
  readonly watch = new Stopwatch();
  readonly #worktrees = new WorktreePool(
    (cwd) => this.git(cwd),
    this.watch,
    (branch) => this.branchExists(branch),
  );
  readonly #history: AttemptHistory;

  /** This repository's folder beside it on this machine (repoStateDir): worktrees, planning, spikes. */
  readonly stateDir: string;

  private constructor(
    readonly root: string,
    readonly commonDir: string,
  ) {
    this.stateDir = repoStateDir(commonDir);
    this.#history = new AttemptHistory(root, (cwd) => this.git(cwd), this.watch);
  }

  static async open(dir: string): Promise<RunRepo> {
    const probe = new TimedGit(dir, new Stopwatch());
    let root: string;
    let common: string;
    try {
      // One process for both answers, a line each, in the order asked.
      const [top, commonDir] = (await probe.run(['rev-parse', '--show-toplevel', '--git-common-dir'])).split('\n');
      root = top!.trim();
      common = commonDir!.trim();
    } catch (e) {
      if (e instanceof GitError)
        throw new RunError(`${dir} is not inside a git repository; harness run works on a git checkout (git init, then commit the spec)`);
      throw e;
    }
    return new RunRepo(root, isAbsolute(common) ? common : resolve(dir, common));
  }

  git(cwd = this.root): TimedGit {
    return new TimedGit(cwd, this.watch);
  }

  worktreePath(spec: string, name: string): string {
    return join(this.stateDir, 'worktrees', spec, name);
  }

  /**
   * A spec's worktrees from before they moved out of the git directory (`.git/harness/worktrees/<spec>/`,
   * where agents would not write): each moved where worktreePath keeps it now (`git worktree move`, which
   * keeps what is in it, an interrupted attempt's work too), once. Returns the names moved.
   */
  async moveOldWorktrees(spec: string): Promise<string[]> {
    const old = join(this.commonDir, 'harness', 'worktrees', spec);
    if (!existsSync(old)) return [];
    const moved: string[] = [];
    for (const name of await readdir(old)) {
      if (!existsSync(join(old, name, '.git'))) continue;
      const to = this.worktreePath(spec, name);
      if (existsSync(to))
        throw new RunError(
          `${join(old, name)} is a worktree of an earlier harness, and ${to} is taken: remove one of them (git worktree remove), then run again`,
        );
      await mkdir(dirname(to), { recursive: true });
      await this.git().run(['worktree', 'move', join(old, name), to]);
      moved.push(name);
    }
    await rmdir(old).catch(() => undefined);
    return moved;
  }

  /** The checked-out branch; undefined when HEAD is detached (symbolic-ref exits 1). */
  async currentBranch(): Promise<string | undefined> {
    return (await this.git().run(['symbolic-ref', '--quiet', '--short', 'HEAD']).catch(whenGitFails(undefined, 1)))?.trim();
  }

  async revParse(ref: string, cwd = this.root): Promise<string> {
    if (ref === 'HEAD') {
      const head = await headFromFiles(cwd);
      if (head !== undefined) return head;
    }
    return (await this.git(cwd).run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).trim();
  }

  /**
   * The commit HEAD stands on, which every branch a command makes starts from. A repository with
   * no commit yet (git init and nothing more) says so, with what to do, instead of git's words.
   */
  async headCommit(command: string): Promise<string> {
    try {
      return await this.revParse('HEAD');
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      const born = await this.git()
        .run(['rev-parse', '--verify', '--quiet', 'HEAD'])
        .then(() => true, whenGitFails(false, 1));
      if (born) throw e;
      throw new RepoStateError(
        `${this.root} has no commit yet: ${command} starts its branches from a commit. Commit the spec first: git add . && git commit -m "Add the spec"`,
      );
    }
  }

  /** Whether the branch exists (show-ref exits 1 when it does not). */
  async branchExists(branch: string): Promise<boolean> {
    return this.git()
      .run(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`])
      .then(() => true, whenGitFails(false, 1));
  }

  /**
   * A worktree for `branch` at `path`, creating the branch at `startPoint` when it does not
   * exist: a spare moved there when the run has one, else a new worktree. Reused as it is
   * when it already exists (a resumed run). Says whether the checkout was made now (and is
   * clean, at the branch) rather than found.
   */
  ensureWorktree(path: string, branch: string, startPoint: string): Promise<boolean> {
    return this.#worktrees.ensureWorktree(path, branch, startPoint);
  }

  /** A verified plan's worktree: kept for the run's next plan instead of removed (WorktreePool). */
  retireWorktree(path: string): Promise<void> {
    return this.#worktrees.retireWorktree(path);
  }

  /** The spares no plan took: removed, as each verified plan's worktree is once the run is over. */
  removeSpares(): Promise<void> {
    return this.#worktrees.removeSpares();
  }

  removeWorktree(path: string): Promise<void> {
    return this.#worktrees.removeWorktree(path);
  }

  /** Lock files a git command killed with its run left in this spec's worktrees and branches (stale-locks.ts). */
  clearStaleLocks(spec: string): Promise<string[]> {
    return clearStaleLocks(this.commonDir, join(this.stateDir, 'worktrees', spec), spec);
  }

  /** Merge a plan's branch into the integration worktree at `worktree` (merges.ts). */
  merge(worktree: string, branch: string, message: CommitMessage): Promise<{ ok: true; sha: string } | { ok: false; conflicts: string[] }> {
    return mergeBranch(this.git(worktree), branch, message);
  }

  /** A merge a killed run left unconcluded in `cwd`, aborted (merges.ts); true when there was one. */
  abortInterruptedMerge(cwd: string): Promise<boolean> {
    return abortInterruptedMerge(this.git(cwd));
  }

  /**
   * Put back what is written in `dir` of `cwd` and not committed, staged or not (untracked files
   * go): the records a run killed before committing them left in the integration worktree.
   * They are derived from the run's state and written again as the resumed run reaches them;
   * left in place, they stop the next merge that touches them ("your local changes would be
   * overwritten"). The knowledge store is left as it is: signals filed and not committed go
   * into the next document commit. Returns what was put back.
   */
  async discardUncommitted(cwd: string, dir: string, keep: string): Promise<string[]> {
    const git = this.git(cwd);
    const spec = ['--', dir, `:(exclude)${keep}`];
    const changed = (await git.run(['status', '--porcelain', '--untracked-files=all', ...spec]))
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(3));
    if (changed.length === 0) return [];
    await git.run(['reset', '--quiet', ...spec]);
    await git.run(['checkout', ...spec]);
    await git.run(['clean', '-fdq', ...spec]);
    return changed;
  }

  /** Files changed on `head` since `base`. */
  changedFiles(cwd: string, base: string, head = 'HEAD'): Promise<string[]> {
    return changedFiles(this.git(cwd), base, head);
  }

  /**
   * What an attempt left on its branch: the commits after `base` (oldest first, as `git log`
   * lists them) and the files that differ between `base` and HEAD (as `git diff base...HEAD`),
   * through the run's object reader when it can say (attempt-history.ts).
   */
  attemptHistory(cwd: string, base: string): Promise<{ commits: CommitInfo[]; changed: string[] }> {
    return this.#history.read(cwd, base);
  }

  /** Stop reading objects: the run is over. */
  close(): Promise<void> {
    return this.#history.close();
  }

  /** Paths under `dir` (relative to the root) that differ from HEAD or are untracked, as git status lists them. */
  async uncommitted(dir: string): Promise<string[]> {
    const out = await this.git().run(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', dir]);
    return out
      .split('\0')
      .filter((e) => e.length > 3)
      .map((e) => e.slice(3));
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
    // Nearly every call has something to commit: git is asked whether nothing was staged
    // only when the commit fails, which is what it does then.
    try {
      return await git.commit(message);
    } catch (e) {
      if (e instanceof GitError && (await git.run(['diff', '--cached', '--name-only'])).trim() === '') return undefined;
      throw e;
    }
  }

  /**
   * The commit on `cwd`'s branch since `since` whose message carries `trailer: value`, if
   * any: how a resumed run recognises a document commit an earlier run made just before it
   * was killed. Trailers are matched as whole lines.
   */
  async findTrailer(cwd: string, since: string, trailer: string, value: string): Promise<string | undefined> {
    const line = `${trailer}: ${value}`;
    const out = await this.git(cwd).run(['log', '--format=%H', '--fixed-strings', `--grep=${line}`, `${since}..HEAD`]);
    for (const sha of out.split('\n').filter(Boolean)) {
      const body = await this.git(cwd).run(['log', '-1', '--format=%B', sha]);
      if (body.split('\n').some((l) => l.trim() === line)) return sha;
    }
    return undefined;
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
