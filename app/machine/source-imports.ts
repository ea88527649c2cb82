import { open, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { importedFrom, importsOf } from '../engine/knowledge/documents/plan-profile.js';
import { isSystemError } from './files.js';

/** Files read for their imports at most, and how much of each: imports are at the top of a file. */
const MAX_FILES = 40;
const HEAD_BYTES = 64 * 1024;

/** The first bytes of a file inside `root`, or undefined when it is not there, not a file, or reached through a link out of `root`. */
async function headOf(root: string, realRoot: string, file: string): Promise<string | undefined> {
  if (isAbsolute(file) || file.split(/[\\/]/).includes('..')) return undefined;
  let real: string;
  try {
    real = await realpath(join(root, file));
  } catch (e) {
    // Not there (a plan's new file before its first attempt), or not a path at all: nothing imported.
    if (isSystemError(e) && (e.code === 'ENOENT' || e.code === 'ENOTDIR' || e.code === 'ELOOP' || e.code === 'ENAMETOOLONG')) return undefined;
    throw e;
  }
  const rel = relative(realRoot, real);
  if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) return undefined;
  const handle = await open(real, 'r');
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    const text = buffer.subarray(0, bytesRead);
    // A binary file imports nothing.
    return text.includes(0) ? undefined : text.toString('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * The modules some files of a checkout import (knowledge/documents/plan-profile.ts importsOf),
 * for a plan's profile: files that are not there yet, outside the checkout (by a path or a
 * link) or binary import nothing.
 */
export async function readImports(root: string, files: readonly string[]): Promise<string[]> {
  const realRoot = await realpath(root);
  const out = new Set<string>();
  for (const file of files.slice(0, MAX_FILES)) {
    const text = await headOf(root, realRoot, file);
    if (text !== undefined) for (const m of importsOf(file, text)) out.add(m);
  }
  return [...out].sort();
}

/** Each plan's imports, read from its files (those it writes, not globs, and those it reads) in a checkout: what a completion signal's profiles record. */
export async function planImports(
  root: string,
  plans: readonly { id: string; filesModified: string[]; filesRead: string[] }[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const p of plans) out.set(p.id, await readImports(root, importedFrom(p)));
  return out;
}
