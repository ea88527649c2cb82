import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { readTextIfExists } from '../machine/files.js';

/**
 * Write a file so that a reader (or a run restarted after SIGKILL) sees either the old
 * content or the new, never half of it: write a sibling temp file, then rename over.
 * No fsync: state must survive the process dying, which the page cache already gives;
 * surviving power loss is not worth an fsync per state change.
 */
export async function writeAtomic(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, content);
  await rename(tmp, path);
}

export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await writeAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

export async function readJson<T>(path: string): Promise<T | undefined> {
  const text = await readTextIfExists(path);
  return text === undefined ? undefined : (JSON.parse(text) as T);
}
