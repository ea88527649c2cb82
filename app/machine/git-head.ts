import { readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';

const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** A file's text; undefined when there is none; null when it is a directory. Other failures throw. */
async function read(path: string): Promise<string | undefined | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') return null;
    if (code === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * The commit HEAD points at, read from the repository's files the way git itself resolves
 * it (.git or the worktree's gitdir, HEAD, the loose ref, then packed-refs), without
 * starting a process: a run asked git for HEAD after every commit and merge. Returns
 * undefined whenever the files do not settle it (cwd below the top of the checkout, a
 * symbolic ref outside refs/heads, the reftable format, anything unexpected), and the
 * caller asks git.
 */
export async function headFromFiles(cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  // Git told where its directory is by the environment: leave it to git.
  if (env.GIT_DIR !== undefined || env.GIT_COMMON_DIR !== undefined) return undefined;
  const dotGit = join(cwd, '.git');
  const text = await read(dotGit);
  let gitDir: string | undefined;
  // A directory: the main checkout's own git directory.
  if (text === null) gitDir = dotGit;
  else if (text !== undefined) {
    const pointer = /^gitdir: (.+)$/m.exec(text)?.[1]?.trim();
    if (pointer) gitDir = isAbsolute(pointer) ? pointer : resolve(cwd, pointer);
  }
  if (!gitDir) return undefined;
  const head = (await read(join(gitDir, 'HEAD')))?.trim();
  if (!head) return undefined;
  if (SHA.test(head)) return head;
  const ref = /^ref: (refs\/heads\/\S+)$/.exec(head)?.[1];
  if (!ref || ref.includes('..')) return undefined;
  const commonText = (await read(join(gitDir, 'commondir')))?.trim();
  const common = commonText ? (isAbsolute(commonText) ? commonText : resolve(gitDir, commonText)) : gitDir;
  const loose = (await read(join(common, ref)))?.trim();
  if (loose !== undefined) return SHA.test(loose) ? loose : undefined;
  const packed = await read(join(common, 'packed-refs'));
  if (packed === undefined || packed === null) return undefined;
  for (const line of packed.split('\n')) {
    const [sha, name] = line.split(' ');
    if (name === ref && sha && SHA.test(sha)) return sha;
  }
  return undefined;
}
