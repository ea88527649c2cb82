import { readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { readTextIfExists } from '../machine/files.js';

const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * The commit HEAD points at, read from the repository's files the way git itself resolves
 * it (.git or the worktree's gitdir, HEAD, the loose ref, then packed-refs), without
 * starting a process: a run asked git for HEAD after every commit and merge. Returns
 * undefined whenever the files do not settle it (cwd below the top of the checkout, a
 * symbolic ref outside refs/heads, the reftable format, anything unexpected), and the
 * caller asks git.
 */
export async function headFromFiles(cwd: string): Promise<string | undefined> {
  // Git told where its directory is by the environment: leave it to git.
  if (process.env.GIT_DIR !== undefined || process.env.GIT_COMMON_DIR !== undefined) return undefined;
  const gitDir = await findGitDir(cwd);
  if (!gitDir) return undefined;
  const head = (await readTextIfExists(join(gitDir, 'HEAD')))?.trim();
  if (!head) return undefined;
  if (SHA.test(head)) return head;
  const ref = /^ref: (refs\/heads\/\S+)$/.exec(head)?.[1];
  if (!ref || ref.includes('..')) return undefined;
  const commonText = (await readTextIfExists(join(gitDir, 'commondir')))?.trim();
  const common = commonText ? (isAbsolute(commonText) ? commonText : resolve(gitDir, commonText)) : gitDir;
  const loose = (await readTextIfExists(join(common, ref)))?.trim();
  if (loose !== undefined) return SHA.test(loose) ? loose : undefined;
  const packed = await readTextIfExists(join(common, 'packed-refs'));
  if (packed === undefined) return undefined;
  for (const line of packed.split('\n')) {
    const [sha, name] = line.split(' ');
    if (name === ref && sha && SHA.test(sha)) return sha;
  }
  return undefined;
}

async function findGitDir(cwd: string): Promise<string | undefined> {
  const dotGit = join(cwd, '.git');
  let text: string;
  try {
    text = await readFile(dotGit, 'utf8');
  } catch (e) {
    // A directory: the main checkout's own git directory.
    if ((e as NodeJS.ErrnoException).code === 'EISDIR') return dotGit;
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const pointer = /^gitdir: (.+)$/m.exec(text)?.[1]?.trim();
  if (!pointer) return undefined;
  return isAbsolute(pointer) ? pointer : resolve(cwd, pointer);
}
