import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { statIfExists } from './files.js';
import { dirname, isAbsolute, relative, resolve } from 'node:path';

export interface TreeOutput {
  /** Relative to the directory written, forward slashes. */
  path: string;
  text: string;
}

export type DirectoryState = 'missing' | 'empty' | 'non-empty' | 'not-a-directory';

/** Whether a target directory can be written without touching anything that is there. */
export async function directoryState(dir: string): Promise<DirectoryState> {
  const info = await statIfExists(dir);
  if (!info) return 'missing';
  if (!info.isDirectory()) return 'not-a-directory';
  return (await readdir(dir)).length === 0 ? 'empty' : 'non-empty';
}

/**
 * Write files under `dir`, creating directories as needed and replacing files of the same
 * name. Files already there and not in `files` are left alone. A path that would land
 * outside `dir` is refused before anything is written.
 */
export async function writeTree(dir: string, files: readonly TreeOutput[]): Promise<void> {
  const root = resolve(dir);
  const targets = files.map((file) => {
    const full = resolve(root, file.path);
    const inside = relative(root, full);
    if (!inside || inside.startsWith('..') || isAbsolute(inside)) throw new Error(`refusing to write ${file.path}: outside ${dir}`);
    return { full, text: file.text };
  });
  for (const target of targets) {
    await mkdir(dirname(target.full), { recursive: true });
    await writeFile(target.full, target.text, 'utf8');
  }
}
