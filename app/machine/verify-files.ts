import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { PathKind } from '../engine/core/verify/ports.js';
import { HarnessError } from '../engine/core/error.js';

/** A path a check named that would leave the checkout: a plan must not read the machine. */
export class PathEscapeError extends HarnessError {
  constructor(path: string, how: string) {
    super(`${path} is outside the checkout (${how}); checks may only read files under the repository root`);
  }
}

/** Files larger than this are not read as text for a check: no source file is this big. */
export const MAX_CHECK_FILE_BYTES = 16 * 1024 * 1024;

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function isMissing(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Paths under one root, checked twice: as written (no absolute paths, no climbing with
 * ..), and as the file system resolves them (no symbolic link out of the root).
 */
export class ConfinedFiles {
  private realRoot?: Promise<string>;

  constructor(readonly root: string) {}

  /** The real absolute path, undefined when nothing is there; throws PathEscapeError. */
  async resolve(path: string): Promise<string | undefined> {
    if (isAbsolute(path)) throw new PathEscapeError(path, 'an absolute path');
    this.realRoot ??= realpath(this.root);
    const root = await this.realRoot;
    const lexical = resolve(root, path);
    if (!inside(root, lexical)) throw new PathEscapeError(path, 'it climbs out with ..');
    let real: string;
    try {
      real = await realpath(lexical);
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw e;
    }
    if (!inside(root, real)) throw new PathEscapeError(path, 'a symbolic link leads out');
    return real;
  }

  async exists(path: string): Promise<PathKind | undefined> {
    const real = await this.resolve(path);
    if (real === undefined) return undefined;
    const s = await stat(real);
    return s.isDirectory() ? 'directory' : 'file';
  }

  async readFile(path: string): Promise<string | undefined> {
    const real = await this.resolve(path);
    if (real === undefined) return undefined;
    // Stat before opening: opening a named pipe would wait for a writer forever.
    const s = await stat(real);
    if (s.isDirectory()) return undefined;
    if (!s.isFile()) throw new Error(`${path} is not a regular file`);
    if (s.size > MAX_CHECK_FILE_BYTES) {
      throw new Error(`${path} is ${s.size} bytes, over the ${MAX_CHECK_FILE_BYTES}-byte limit for files a check reads`);
    }
    return readFile(real, 'utf8');
  }

  /** An existing directory under the root, for a command's cwd. */
  async directory(path: string | undefined): Promise<string> {
    const real = await this.resolve(path ?? '.');
    if (real === undefined || !(await stat(real)).isDirectory()) throw new Error(`cwd ${path} is not a directory in the checkout`);
    return real;
  }
}
