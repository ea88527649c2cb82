import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { emptyDirectory, isSystemError, readTextIfExists } from '../machine/files.js';
import { GitError } from '../machine/git.js';
import { Mutex } from './mutex.js';
import type { Stopwatch, TimedGit } from './timed-git.js';

/**
 * A run's worktrees (RunRepo's): added, reused and removed, one administrative change at a time.
 *
 * A verified plan's worktree is not removed at once: it is kept as a spare, and the next plan
 * that needs a worktree takes it (moved to that plan's place, emptied, its branch checked
 * out: one git command instead of `worktree add`, which starts three more, and `worktree
 * remove`). The spares left when the run ends are removed then.
 */
export class WorktreePool {
  /**
   * Git's worktree administration is not safe to run concurrently: one `worktree add`
   * reads the admin files of another that is half written ("failed to read
   * .git/worktrees/<name>/commondir"). Adding, removing and pruning go one at a time.
   */
  readonly #admin = new Mutex();
  #pruned = false;
  /** Worktrees of verified plans, whole and clean, for the run's next plans to take. */
  readonly #spares: string[] = [];

  constructor(
    private readonly git: (cwd?: string) => TimedGit,
    private readonly watch: Stopwatch,
    private readonly branchExists: (branch: string) => Promise<boolean>,
  ) {}

  /**
   * A worktree for `branch` at `path`, creating the branch at `startPoint` when it does not
   * exist: a spare moved there when the run has one, else a new worktree. Reused as it is
   * when it already exists (a resumed run). Says whether the checkout was made now (and is
   * clean, at the branch) rather than found.
   */
  ensureWorktree(path: string, branch: string, startPoint: string): Promise<boolean> {
    return this.#admin.run(async () => {
      this.#forgetSpare(path);
      if (existsSync(join(path, '.git'))) {
        const found = await this.#inspect(path);
        if (found.kind === 'whole') {
          // A spare moved here for this plan by a run killed before its checkout was done
          // still has another plan's branch: the checkout is done now.
          if (found.head === undefined || found.head === branch || !found.head.startsWith('harness/')) return false;
          await this.#checkout(path, branch, startPoint);
          return true;
        }
        await this.#discard(path, found.admin);
      }
      // Stale entries (a worktree whose directory a crash or a person removed) would refuse
      // an add at their path: pruned once a run, before its first add, and again only when
      // an add fails. Worktrees this run removes, it removes with `worktree remove`.
      if (!this.#pruned) {
        await this.git().run(['worktree', 'prune']);
        this.#pruned = true;
      }
      // A directory without `.git` at a worktree's place is what a run killed inside
      // `worktree remove` (or early in `worktree add`) leaves: harness's own, and in the way.
      if (existsSync(path)) await rm(path, { recursive: true, force: true });
      await mkdir(dirname(path), { recursive: true });
      if (await this.#takeSpare(path)) await this.#checkout(path, branch, startPoint);
      else {
        await this.#addWorktree(path, branch, startPoint).catch(async (e: unknown) => {
          if (!(e instanceof GitError)) throw e;
          await this.git().run(['worktree', 'prune']);
          await this.#addWorktree(path, branch, startPoint);
        });
      }
      return true;
    });
  }

  /**
   * A verified plan's worktree: kept for the run's next plan (ensureWorktree) instead of
   * removed; whatever is left of the spares when the run ends goes with removeSpares.
   */
  retireWorktree(path: string): Promise<void> {
    return this.#admin.run(() => {
      if (existsSync(path) && !this.#spares.includes(path)) this.#spares.push(path);
      return Promise.resolve();
    });
  }

  /** The spares no plan took: removed, as each verified plan's worktree is once the run is over. */
  async removeSpares(): Promise<void> {
    for (;;) {
      const path = await this.#admin.run(() => Promise.resolve(this.#spares.pop()));
      if (path === undefined) return;
      // As a verified plan's worktree always was: one that cannot be removed is no reason to fail the run.
      await this.removeWorktree(path).catch(cannotRemove);
    }
  }

  #forgetSpare(path: string): void {
    const at = this.#spares.indexOf(path);
    if (at >= 0) this.#spares.splice(at, 1);
  }

  /**
   * Move a spare to `path`, if the run has one it can use. Git's own record of where the
   * worktree is (its gitdir file) is rewritten first, then the directory renamed: what
   * `git worktree move` does, without the process. A run killed between the two leaves a
   * spare whose record points at `path`, found again and put right by the next run (or
   * pruned, and the spare removed by hand); one killed after leaves the worktree at `path`
   * on the other plan's branch, which ensureWorktree checks out anew.
   */
  async #takeSpare(path: string): Promise<boolean> {
    for (;;) {
      const spare = this.#spares.pop();
      if (spare === undefined) return false;
      const found = existsSync(join(spare, '.git')) ? await this.#inspect(spare) : undefined;
      // A project with submodules: git will not move a worktree that has them checked out.
      if (found?.kind !== 'whole' || existsSync(join(spare, '.gitmodules'))) {
        await this.#discard(spare, found?.admin);
        continue;
      }
      await writeFile(join(found.admin, 'gitdir'), `${join(path, '.git')}\n`);
      // The worktree's own config (git config --worktree) was the other plan's.
      await rm(join(found.admin, 'config.worktree'), { force: true });
      await rename(spare, path);
      return true;
    }
  }

  /**
   * Check out `branch` (made at `startPoint` when it does not exist) in the worktree at
   * `path`, from nothing: everything in it is removed first, so that it holds what a new
   * worktree would, and no file (ignored or not) of the plan it had before.
   */
  async #checkout(path: string, branch: string, startPoint: string): Promise<void> {
    // Worktree work, as `worktree remove` deleting the files was: timed with git.
    await this.watch.time(() => emptyDirectory(path, '.git'));
    const git = this.git(path);
    try {
      await git.run(['checkout', '--quiet', '--force', '-b', branch, startPoint]);
    } catch (e) {
      if (!(e instanceof GitError) || !(await this.branchExists(branch))) throw e;
      await git.run(['checkout', '--quiet', '--force', branch]);
    }
  }

  /**
   * What is at `path`, which has a `.git`: a whole worktree (its administrative directory, and
   * the branch its HEAD names), or one git could not use: added only in part, or whose
   * administrative directory is gone (pruned). A whole one whose record of its place is
   * another (a run killed as it moved it) has it put right.
   */
  async #inspect(path: string): Promise<{ kind: 'whole'; admin: string; head: string | undefined } | { kind: 'broken'; admin: string | undefined }> {
    const admin = await adminDir(path);
    if (admin === undefined || !existsSync(join(admin, 'HEAD'))) return { kind: 'broken', admin };
    if ((await this.#halfAdded(path)) !== undefined) return { kind: 'broken', admin };
    const gitdir = (await readTextIfExists(join(admin, 'gitdir')))?.trim();
    if (gitdir !== undefined && resolve(admin, gitdir) !== join(path, '.git')) await writeFile(join(admin, 'gitdir'), `${join(path, '.git')}\n`);
    const head = /^ref: refs\/heads\/(\S+)$/.exec((await readTextIfExists(join(admin, 'HEAD')))?.trim() ?? '')?.[1];
    return { kind: 'whole', admin, head };
  }

  /**
   * A worktree git cannot use any more (added in part by a run killed inside `worktree add`,
   * or left without its administrative directory): its missing files would read as a plan's
   * own changes. Removed by hand: git's own `worktree remove` refuses a worktree it cannot
   * validate, and `prune` keeps a locked one.
   */
  async #discard(path: string, admin: string | undefined): Promise<void> {
    if (admin !== undefined) await rm(join(admin, 'locked'), { force: true });
    await rm(path, { recursive: true, force: true });
    await this.git().run(['worktree', 'prune']);
    this.#pruned = true;
  }

  /** The administrative directory of the worktree at `path` when its `worktree add` never finished. */
  async #halfAdded(path: string): Promise<string | undefined> {
    const admin = await adminDir(path);
    if (admin === undefined) return undefined;
    const reason = await readTextIfExists(join(admin, 'locked'));
    // git locks a worktree as "initializing" until its checkout is done (the word may be
    // translated; a checkout that never finished has no index either). A lock a person
    // set on a finished worktree has an index, and is left alone.
    return reason !== undefined && (reason.trim() === 'initializing' || !existsSync(join(admin, 'index'))) ? admin : undefined;
  }

  /** A new branch at startPoint in most runs: only when that fails is the branch looked for (a resumed run). */
  async #addWorktree(path: string, branch: string, startPoint: string): Promise<void> {
    try {
      await this.git().run(['worktree', 'add', '--quiet', '-b', branch, path, startPoint]);
    } catch (e) {
      if (!(e instanceof GitError) || !(await this.branchExists(branch))) throw e;
      await this.git().run(['worktree', 'add', '--quiet', path, branch]);
    }
  }

  removeWorktree(path: string): Promise<void> {
    return this.#admin.run(async () => {
      this.#forgetSpare(path);
      if (!existsSync(path)) return;
      const found = existsSync(join(path, '.git')) ? await this.#inspect(path) : undefined;
      // Half removed (or half added, or forgotten) by a run killed inside git: git no longer
      // takes it for a worktree it may remove ("validation failed", "locked").
      if (found?.kind !== 'whole') return this.#discard(path, found?.admin);
      await this.git().run(['worktree', 'remove', '--force', path]);
    });
  }
}

/** The administrative directory (under the repository's .git/worktrees/) that the worktree at `path` points to. */
async function adminDir(path: string): Promise<string | undefined> {
  const pointer = (await readTextIfExists(join(path, '.git')))?.match(/^gitdir: (.+)$/m)?.[1]?.trim();
  if (pointer === undefined) return undefined;
  return isAbsolute(pointer) ? pointer : resolve(path, pointer);
}

/**
 * A worktree removal that failed where failing is no reason to stop the run (spares, failed
 * plans' worktrees): git refused, or the file system did. Anything else is rethrown.
 */
export function cannotRemove(e: unknown): void {
  if (!(e instanceof GitError) && !isSystemError(e)) throw e;
}
