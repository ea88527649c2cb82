import { existsSync } from 'node:fs';
import { appendFile, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { GitError, whenGitFails, type CommitInfo } from '../machine/git.js';
import { commitBody, commitLine, formatTrailers, parseTrailers, type CommitMessage } from '../engine/core/agents/commit-message.js';
import { Mutex } from './mutex.js';
import { Stopwatch, TimedGit } from './timed-git.js';
import { HarnessError } from '../engine/core/error.js';
import { emptyDirectory, isSystemError, readTextIfExists } from '../machine/files.js';
import { headFromFiles } from '../machine/git-head.js';
import { ObjectReader, ObjectReaderError, parseCommit, parseTree, type TreeEntry } from './objects.js';

export class RunError extends HarnessError {}

/** Commits an attempt's history is read through before git is asked instead. */
const MAX_WALKED = 500;
const TREE = '40000';
const GITLINK = '160000';

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
 *
 * A verified plan's worktree is not removed at once: it is kept as a spare, and the next plan
 * that needs a worktree takes it (moved to that plan's place, emptied, its branch checked
 * out: one git command instead of `worktree add`, which starts three more, and `worktree
 * remove`). The spares left when the run ends are removed then.
 */
export class RunRepo {
  readonly watch = new Stopwatch();
  /**
   * Git's worktree administration is not safe to run concurrently: one `worktree add`
   * reads the admin files of another that is half written ("failed to read
   * .git/worktrees/<name>/commondir"). Adding, removing and pruning go one at a time.
   */
  readonly #admin = new Mutex();
  #pruned = false;
  /** Worktrees of verified plans, whole and clean, for the run's next plans to take. */
  readonly #spares: string[] = [];
  /** The run's one `git cat-file --batch`, started when first asked. */
  readonly #objects: ObjectReader;

  private constructor(
    readonly root: string,
    readonly commonDir: string,
  ) {
    this.#objects = new ObjectReader(root);
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
    if (ref === 'HEAD') {
      const head = await headFromFiles(cwd);
      if (head !== undefined) return head;
    }
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

  /**
   * Lock files a git command killed with its run left in this spec's worktrees and branches
   * (`index.lock`, `<ref>.lock`): git refuses every later command on them ("Another git
   * process seems to be running"). Only runs of the spec touch these, one at a time under
   * its run lock, so whatever lock is there when a run starts is stale.
   */
  async clearStaleLocks(spec: string): Promise<string[]> {
    const cleared: string[] = [];
    const ours = join(this.commonDir, 'harness', 'worktrees', spec) + sep;
    const admin = join(this.commonDir, 'worktrees');
    for (const name of await namesIn(admin)) {
      const gitdir = (await readTextIfExists(join(admin, name, 'gitdir')))?.trim();
      if (gitdir === undefined || !gitdir.startsWith(ours)) continue;
      for (const lock of ['index.lock', 'HEAD.lock', 'ORIG_HEAD.lock', 'MERGE_HEAD.lock']) {
        if (existsSync(join(admin, name, lock))) {
          await rm(join(admin, name, lock), { force: true });
          cleared.push(join(admin, name, lock));
        }
      }
    }
    const refs = join(this.commonDir, 'refs', 'heads', 'harness', spec);
    for (const entry of await namesIn(refs, true)) {
      if (!entry.endsWith('.lock')) continue;
      await rm(join(refs, entry), { force: true });
      cleared.push(join(refs, entry));
    }
    return cleared;
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

  /**
   * Merge a plan's branch into the integration worktree. Idempotent: a branch already
   * merged (a crash after the merge, before the run recorded it) returns the commit that
   * merged it. A conflict leaves the integration worktree as it was.
   */
  async merge(worktree: string, branch: string, message: CommitMessage): Promise<{ ok: true; sha: string } | { ok: false; conflicts: string[] }> {
    const git = this.git(worktree);
    // Merged straight away: a branch merged already ("Already up to date", even with
    // --no-ff) leaves HEAD where it was, and only then is the merge that took it looked up.
    const before = await git.head();
    try {
      await git.run(['merge', '--no-ff', '--no-edit', '--quiet', '-m', formatMessage(message), branch]);
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      const conflicts = (await git.run(['diff', '--name-only', '--diff-filter=U'])).split('\n').filter(Boolean);
      // A merge that never started (nothing to merge) has nothing to abort.
      await git.run(['merge', '--abort']).catch(whenGitFails(undefined));
      return { ok: false, conflicts: conflicts.length > 0 ? conflicts : [e.stderr.trim()] };
    }
    const after = await git.head();
    if (after !== before) return { ok: true, sha: after };
    const merged = (await git.run(['log', '--merges', '--format=%H', '--ancestry-path', `${branch}..HEAD`])).trim().split('\n').filter(Boolean);
    return { ok: true, sha: merged[merged.length - 1] ?? after };
  }

  /**
   * A merge a killed run left unconcluded in `cwd` (MERGE_HEAD there: git was killed inside
   * `git merge`, or between a conflict and its abort) is aborted, which puts the worktree back
   * where it was before that merge; the resumed run merges the plan again. Left, every later
   * merge fails with "You have not concluded your merge". True when there was one.
   */
  async abortInterruptedMerge(cwd: string): Promise<boolean> {
    const git = this.git(cwd);
    const gitDir = (await git.run(['rev-parse', '--absolute-git-dir'])).trim();
    if (!existsSync(join(gitDir, 'MERGE_HEAD'))) return false;
    await git.run(['merge', '--abort']).catch((e: unknown) => {
      if (!(e instanceof GitError)) throw e;
      return git.run(['reset', '--merge']);
    });
    return true;
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
    const changed = (await git.run(['status', '--porcelain', '--untracked-files=all', ...spec])).split('\n').filter(Boolean).map((l) => l.slice(3));
    if (changed.length === 0) return [];
    await git.run(['reset', '--quiet', ...spec]);
    await git.run(['checkout', ...spec]);
    await git.run(['clean', '-fdq', ...spec]);
    return changed;
  }

  /** Files changed on `head` since `base`. */
  async changedFiles(cwd: string, base: string, head = 'HEAD'): Promise<string[]> {
    return (await this.git(cwd).run(['diff', '--name-only', '--no-renames', '-z', `${base}...${head}`])).split('\0').filter(Boolean);
  }

  /**
   * What an attempt left on its branch: the commits after `base` (oldest first, as `git log`
   * lists them) and the files that differ between `base` and HEAD (as `git diff base...HEAD`).
   * Read from the run's object reader when the commits are a line from `base` to HEAD, each
   * with one parent (what an agent's commits are): the commits walked back from HEAD, the
   * files from the two trees, no process started. Otherwise (or when the reader cannot say)
   * from one `git log --raw`, see #loggedHistory.
   */
  async attemptHistory(cwd: string, base: string): Promise<{ commits: CommitInfo[]; changed: string[] }> {
    const head = await headFromFiles(cwd);
    if (head !== undefined) {
      const read = await this.watch.time(() => this.#readHistory(head, base)).catch((e: unknown) => {
        // The reader cannot be used: git answers below.
        if (!(e instanceof ObjectReaderError)) throw e;
        return undefined;
      });
      if (read !== undefined) return read;
    }
    return this.#loggedHistory(cwd, base);
  }

  /** Commits and files from the object reader, or undefined when the branch is not a plain line of commits from `base` to `head`. */
  async #readHistory(head: string, base: string): Promise<{ commits: CommitInfo[]; changed: string[] } | undefined> {
    const commits: CommitInfo[] = [];
    let headTree: string | undefined;
    for (let id = head; id !== base; ) {
      // A branch this long is no attempt's: git answers.
      if (commits.length >= MAX_WALKED) return undefined;
      const object = await this.#objects.read(id);
      if (object?.type !== 'commit') return undefined;
      const commit = parseCommit(object.body);
      if (commit.parents.length !== 1 || commit.encoding !== undefined) return undefined;
      headTree ??= commit.tree;
      commits.push({ sha: id, subject: commit.message.split('\n')[0] ?? '', message: commit.message, trailers: parseTrailers(commit.message) });
      id = commit.parents[0]!;
    }
    if (commits.length === 0) return { commits, changed: [] };
    const baseObject = await this.#objects.read(base);
    if (baseObject?.type !== 'commit') return undefined;
    const baseTree = parseCommit(baseObject.body).tree;
    const changed: string[] = [];
    if (!(await this.#treeChanges(baseTree, headTree, '', changed, base.length / 2))) return undefined;
    // In git's order: by the bytes of the whole path.
    changed.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return { commits: commits.reverse(), changed };
  }

  /**
   * The files that differ between two trees (either may be absent), added to `out` as
   * `git diff --name-only --no-renames` names them; false when a submodule differs (whether
   * git shows that depends on the repository's diff.ignoreSubmodules: git answers then).
   */
  async #treeChanges(a: string | undefined, b: string | undefined, prefix: string, out: string[], idBytes: number): Promise<boolean> {
    if (a === b) return true;
    const entries = async (id: string | undefined) => {
      if (id === undefined) return new Map<string, TreeEntry>();
      const object = await this.#objects.read(id);
      if (object?.type !== 'tree') throw new Error(`${id} is no tree`);
      return parseTree(object.body, idBytes);
    };
    const [left, right] = await Promise.all([entries(a), entries(b)]);
    for (const name of new Set([...left.keys(), ...right.keys()])) {
      const x = left.get(name);
      const y = right.get(name);
      if (x && y && x.id === y.id && x.mode === y.mode) continue;
      if (x?.mode === GITLINK || y?.mode === GITLINK) return false;
      const xTree = x?.mode === TREE;
      const yTree = y?.mode === TREE;
      if (xTree && yTree) {
        if (!(await this.#treeChanges(x.id, y.id, `${prefix}${name}/`, out, idBytes))) return false;
        continue;
      }
      // A file on one side or both; a directory on one side (a file became one, or went with it) is all its files.
      if ((x && !xTree) || (y && !yTree)) out.push(`${prefix}${name}`);
      if (xTree && !(await this.#treeChanges(x.id, undefined, `${prefix}${name}/`, out, idBytes))) return false;
      if (yTree && !(await this.#treeChanges(undefined, y.id, `${prefix}${name}/`, out, idBytes))) return false;
    }
    return true;
  }

  /** Stop reading objects: the run is over. */
  close(): void {
    this.#objects.close();
  }

  /**
   * The commits after `base` and the files changed since, from one `git log --raw`. When the
   * commits are a line from `base` to HEAD, each with one parent, a file differs exactly when
   * its first recorded version and its last differ, so no second command is needed; any other
   * shape (a merge on the branch, a branch moved off its base) is asked of git as two questions.
   */
  async #loggedHistory(cwd: string, base: string): Promise<{ commits: CommitInfo[]; changed: string[] }> {
    const git = this.git(cwd);
    const out = await git.run(['log', '--reverse', '--no-renames', '--raw', '--no-abbrev', '-z', '--format=%x1e%H%x1f%P%x1f%B%x1f', `${base}..HEAD`, '--']);
    const commits: CommitInfo[] = [];
    // Path → its version before the first commit that touched it, and after the last.
    const versions = new Map<string, { before: string; after: string }>();
    let parent = base;
    let line = true;
    for (const record of out.split('\x1e').slice(1)) {
      const [sha = '', parents = '', message = ''] = record.split('\x1f', 3);
      const raw = record.slice(sha.length + parents.length + message.length + 3);
      if (parents !== parent) line = false;
      parent = sha;
      commits.push({ sha, subject: message.split('\n')[0] ?? '', message, trailers: parseTrailers(message) });
      // After the header: NUL, a newline, then ":<mode> <mode> <blob> <blob> <status>" NUL "<path>" NUL, per file.
      const fields = raw.replace(/^\0\n?/, '').split('\0');
      for (let i = 0; i + 1 < fields.length; i += 2) {
        const [oldMode, newMode, oldBlob, newBlob] = fields[i]!.slice(1).split(' ');
        const path = fields[i + 1]!;
        const seen = versions.get(path);
        const after = `${newMode} ${newBlob}`;
        if (seen) seen.after = after;
        else versions.set(path, { before: `${oldMode} ${oldBlob}`, after });
      }
    }
    if (!line) return { commits, changed: await this.changedFiles(cwd, base) };
    // No commits: HEAD is base or behind it, and nothing differs from where they meet.
    const changed = [...versions].filter(([, v]) => v.before !== v.after).map(([path]) => path);
    // In git's order: by the bytes of the whole path.
    return { commits, changed: changed.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))) };
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

function formatMessage(message: CommitMessage): string {
  // Subjects and trailers carry plan titles and ids an author wrote: one sanitised line each.
  const parts = [commitLine(message.subject)];
  if (message.body) parts.push(commitBody(message.body));
  if (message.trailers.length > 0) parts.push(formatTrailers(message.trailers));
  return parts.join('\n\n');
}

/** The administrative directory (under the repository's .git/worktrees/) that the worktree at `path` points to. */
async function adminDir(path: string): Promise<string | undefined> {
  const pointer = (await readTextIfExists(join(path, '.git')))?.match(/^gitdir: (.+)$/m)?.[1]?.trim();
  if (pointer === undefined) return undefined;
  return isAbsolute(pointer) ? pointer : resolve(path, pointer);
}

/** The names in a directory (with `recursive`, the paths below it); none when it does not exist. */
async function namesIn(dir: string, recursive = false): Promise<string[]> {
  try {
    return await readdir(dir, { recursive });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

/**
 * A worktree removal that failed where failing is no reason to stop the run (spares, failed
 * plans' worktrees): git refused, or the file system did. Anything else is rethrown.
 */
export function cannotRemove(e: unknown): void {
  if (!(e instanceof GitError) && !isSystemError(e)) throw e;
}
