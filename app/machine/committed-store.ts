import { Git, GitError } from './git.js';

/** A store file, its path relative to the store's root. */
interface StoreFile {
  path: string;
  text: string;
}

/**
 * A knowledge store as it is committed: nothing is active before a person merged it, and on
 * this machine merged means committed on the checked-out branch. A lesson, skill or gene that
 * is new and not committed (what `harness reflect`, a run's extraction or a person wrote and
 * nobody reviewed yet) is pending, and left out; one changed and not committed counts as its
 * committed version. A store outside Git has nothing to tell pending from merged: all of it counts.
 */
export async function committedFiles<T extends StoreFile>(store: string, files: readonly T[]): Promise<{ files: T[]; pending: string[] }> {
  const git = new Git(store);
  let prefix: string;
  try {
    prefix = (await git.run(['rev-parse', '--show-prefix'])).trim();
  } catch (e) {
    if (e instanceof GitError) return { files: [...files], pending: [] };
    throw e;
  }
  const changed = new Map<string, string>();
  for (const entry of await git.status()) {
    if (!entry.path.startsWith(prefix)) continue;
    changed.set(entry.path.slice(prefix.length), entry.code);
  }
  const out: T[] = [];
  const pending: string[] = [];
  for (const f of files) {
    const code = changed.get(f.path);
    if (code === undefined) {
      out.push(f);
      continue;
    }
    pending.push(f.path);
    // Untracked or only added: not in the commit at all.
    if (code === '??' || code[0] === 'A') continue;
    const committed = await git.run(['show', `HEAD:./${f.path}`]).catch((e: unknown) => {
      // Not in HEAD (a repository without commits, a path added since): nothing committed to count.
      if (e instanceof GitError) return undefined;
      throw e;
    });
    if (committed !== undefined) out.push({ ...f, text: committed });
  }
  return { files: out, pending };
}
