import { readdir } from 'node:fs/promises';
import { statIfExists } from './files.js';
import { join, relative, sep } from 'node:path';
import { formatBytes, MAX_DOCUMENT_BYTES } from '../engine/core/spec/limits.js';
import { readCapped } from './spec-files.js';
import { HarnessError } from '../engine/core/error.js';

/** A GSD `.planning/` has dozens of files; thousands means the path points at something else (a repository root). */
export const MAX_TREE_FILES = 5_000;

export interface TreeFile {
  /** Relative to the directory read, forward slashes. */
  path: string;
  text: string;
}

export interface UnreadFile {
  path: string;
  reason: string;
}

export interface Tree {
  files: TreeFile[];
  /** Files present but not read as text, each with the reason. */
  unread: UnreadFile[];
}

export class TreeError extends HarnessError {}

/** How many files a tree may hold before reading it is a mistake, and what to say then. */
export interface TreeLimit {
  maxFiles: number;
  /** Completes "over the N …". */
  holds: string;
  fix: string;
}

const PLANNING_TREE: TreeLimit = {
  maxFiles: MAX_TREE_FILES,
  holds: 'a GSD .planning directory could hold',
  fix: 'is this the right directory?',
};

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Read every regular file under `dir` as UTF-8 text. Symbolic links are not followed (they
 * could lead out of the tree); files too large or not text are listed in `unread`.
 */
export async function readTree(dir: string, maxBytes = MAX_DOCUMENT_BYTES, limit: TreeLimit = PLANNING_TREE): Promise<Tree> {
  const info = await statIfExists(dir);
  if (!info) throw new TreeError(`${dir}: no such directory`);
  if (!info.isDirectory()) throw new TreeError(`${dir}: not a directory`);

  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const paths: string[] = [];
  const unread: UnreadFile[] = [];
  for (const entry of entries) {
    if (entry.isDirectory()) continue;
    const path = relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/');
    if (entry.isFile()) paths.push(path);
    else unread.push({ path, reason: entry.isSymbolicLink() ? 'a symbolic link; not followed' : 'not a regular file' });
  }
  if (paths.length > limit.maxFiles) {
    throw new TreeError(`${dir}: ${paths.length} files, over the ${limit.maxFiles} ${limit.holds}; ${limit.fix}`);
  }

  const read = paths.map((path) => readCapped(join(dir, path), path, maxBytes));
  const files: TreeFile[] = [];
  for (const file of read) {
    const size = file.size ?? file.bytes.length;
    if (size > maxBytes) {
      unread.push({ path: file.path, reason: `${formatBytes(size)}, over the ${formatBytes(maxBytes)} limit` });
      continue;
    }
    try {
      files.push({ path: file.path, text: decoder.decode(file.bytes) });
    } catch {
      unread.push({ path: file.path, reason: 'not UTF-8 text' });
    }
  }
  const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  return { files: files.sort(byPath), unread: unread.sort(byPath) };
}
