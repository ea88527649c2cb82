import { headOnThread } from './git-thread.js';

/**
 * The commit HEAD points at, read from the repository's files the way git itself resolves
 * it (.git or the worktree's gitdir, HEAD, the loose ref, then packed-refs), without
 * starting a process: a run asked git for HEAD after every commit and merge. Returns
 * undefined whenever the files do not settle it (cwd below the top of the checkout, a
 * symbolic ref outside refs/heads, the reftable format, anything unexpected), and the
 * caller asks git. The few small files are read on harness's git helper thread, in one
 * request (git-thread.ts), not one by one on the main thread.
 */
export function headFromFiles(cwd: string): Promise<string | undefined> {
  return headOnThread(cwd);
}

/** What headOfFiles needs of the machine, so that it can run where it is given them (the helper thread). */
export interface HeadIo {
  /** A file's text; undefined when there is none; null when it is a directory. Other failures throw. */
  read(path: string): string | undefined | null;
  join(...parts: string[]): string;
  resolve(...parts: string[]): string;
  isAbsolute(path: string): boolean;
  env: NodeJS.ProcessEnv;
}

/**
 * headFromFiles' reading, synchronous and self-contained (no name from outside it):
 * git-thread.ts runs its text on the helper thread.
 */
export function headOfFiles(cwd: string, io: HeadIo): string | undefined {
  const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
  // Git told where its directory is by the environment: leave it to git.
  if (io.env.GIT_DIR !== undefined || io.env.GIT_COMMON_DIR !== undefined) return undefined;
  const dotGit = io.join(cwd, '.git');
  const text = io.read(dotGit);
  let gitDir: string | undefined;
  // A directory: the main checkout's own git directory.
  if (text === null) gitDir = dotGit;
  else if (text !== undefined) {
    const pointer = /^gitdir: (.+)$/m.exec(text)?.[1]?.trim();
    if (pointer) gitDir = io.isAbsolute(pointer) ? pointer : io.resolve(cwd, pointer);
  }
  if (!gitDir) return undefined;
  const head = io.read(io.join(gitDir, 'HEAD'))?.trim();
  if (!head) return undefined;
  if (SHA.test(head)) return head;
  const ref = /^ref: (refs\/heads\/\S+)$/.exec(head)?.[1];
  if (!ref || ref.includes('..')) return undefined;
  const commonText = io.read(io.join(gitDir, 'commondir'))?.trim();
  const common = commonText ? (io.isAbsolute(commonText) ? commonText : io.resolve(gitDir, commonText)) : gitDir;
  const loose = io.read(io.join(common, ref))?.trim();
  if (loose !== undefined) return SHA.test(loose) ? loose : undefined;
  const packed = io.read(io.join(common, 'packed-refs'));
  if (packed === undefined || packed === null) return undefined;
  for (const line of packed.split('\n')) {
    const [sha, name] = line.split(' ');
    if (name === ref && sha && SHA.test(sha)) return sha;
  }
  return undefined;
}
