import type { CommitInfo } from '../machine/git.js';
import { parseTrailers } from '../engine/core/agents/commit-message.js';
import { headFromFiles } from '../machine/git-head.js';
import { ObjectReader, ObjectReaderError, parseCommit, parseTree, type TreeEntry } from './objects.js';
import type { Stopwatch, TimedGit } from './timed-git.js';

/** Commits an attempt's history is read through before git is asked instead. */
const MAX_WALKED = 500;
const TREE = '40000';
const GITLINK = '160000';

/** Files changed on `head` since `base`, in `git`'s checkout. */
export async function changedFiles(git: TimedGit, base: string, head = 'HEAD'): Promise<string[]> {
  return (await git.run(['diff', '--name-only', '--no-renames', '-z', `${base}...${head}`])).split('\0').filter(Boolean);
}

/** What a run's attempts left on their branches (RunRepo.attemptHistory), read through the run's one object reader. */
export class AttemptHistory {
  /** The run's one `git cat-file --batch`, started when first asked. */
  readonly #objects: ObjectReader;

  constructor(
    root: string,
    private readonly git: (cwd?: string) => TimedGit,
    private readonly watch: Stopwatch,
  ) {
    this.#objects = new ObjectReader(root);
  }

  /**
   * What an attempt left on its branch: the commits after `base` (oldest first, as `git log`
   * lists them) and the files that differ between `base` and HEAD (as `git diff base...HEAD`).
   * Read from the run's object reader when the commits are a line from `base` to HEAD, each
   * with one parent (what an agent's commits are): the commits walked back from HEAD, the
   * files from the two trees, no process started. Otherwise (or when the reader cannot say)
   * from one `git log --raw`, see #loggedHistory.
   */
  async read(cwd: string, base: string): Promise<{ commits: CommitInfo[]; changed: string[] }> {
    const head = await headFromFiles(cwd);
    if (head !== undefined) {
      const read = await this.watch
        .time(() => this.#readHistory(head, base))
        .catch((e: unknown) => {
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
    for (let id = head; id !== base;) {
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
      if (object?.type !== 'tree') throw new ObjectReaderError(`${id} is no tree`);
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
  close(): Promise<void> {
    return this.#objects.close();
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
    if (!line) return { commits, changed: await changedFiles(git, base) };
    // No commits: HEAD is base or behind it, and nothing differs from where they meet.
    const changed = [...versions].filter(([, v]) => v.before !== v.after).map(([path]) => path);
    // In git's order: by the bytes of the whole path.
    return { commits, changed: changed.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))) };
  }
}
