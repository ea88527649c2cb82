import { appendFile, lstat, mkdir, readdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import type { Dirent, Stats } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';

/**
 * Reading what may not be there. Only "not there" is expected: a file that cannot be read for
 * any other reason (permissions, a directory where a file should be, a failing disk) is an
 * error to surface, never the same as an empty file.
 */
export function isMissing(e: unknown): boolean {
  return (e as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/** The file's text, or undefined when there is no such file. */
export async function readTextIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if (isMissing(e)) return undefined;
    throw e;
  }
}

/** A failure the operating system reported (ENOENT, EACCES, EBUSY, …: an `Error` with a string `code`), not a bug. */
export function isSystemError(e: unknown): e is NodeJS.ErrnoException {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string';
}

/** Nothing at the path: no such entry, or a part of the path before it that is a file (ENOTDIR). */
function isAbsent(e: unknown): boolean {
  return isMissing(e) || (e as NodeJS.ErrnoException | undefined)?.code === 'ENOTDIR';
}

/** What is at `path` (links followed), or undefined when there is nothing (isAbsent). */
export async function statIfExists(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch (e) {
    if (isAbsent(e)) return undefined;
    throw e;
  }
}

/** What is at `path` itself (a link is not followed), or undefined when there is nothing (isAbsent). */
export async function lstatIfExists(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (e) {
    if (isAbsent(e)) return undefined;
    throw e;
  }
}

/** The directory's entries, or undefined when there is no such directory. */
export async function listIfExists(dir: string): Promise<Dirent[] | undefined> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (e) {
    if (isMissing(e)) return undefined;
    throw e;
  }
}

/** Remove a file; one that is gone already is what was wanted. */
export async function removeIfExists(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (e) {
    if (!isMissing(e)) throw e;
  }
}

/** Whether `path` is a directory; false when there is nothing there. */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch (e) {
    if (isMissing(e)) return false;
    throw e;
  }
}

/** Write (or append to) files, each in place, their directories made first, in order. */
export async function writeFiles(entries: readonly { path: string; content: string; append?: boolean }[]): Promise<void> {
  for (const { path, content, append } of entries) {
    await mkdir(dirname(path), { recursive: true });
    if (append) await appendFile(path, content);
    else await writeFile(path, content);
  }
}

/** Remove everything in `dir` but the entry named `keep` (a worktree's files, its .git kept). */
export async function emptyDirectory(dir: string, keep: string): Promise<void> {
  for (const name of await readdir(dir)) if (name !== keep) await rm(join(dir, name), { recursive: true, force: true });
}

/**
 * A path as a person standing in `cwd` types it: relative when it is under `cwd`, absolute
 * otherwise (a `cd ../../tmp/…` works only from one place; an absolute path from anywhere).
 */
export function pathFrom(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  if (rel === '') return '.';
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}
