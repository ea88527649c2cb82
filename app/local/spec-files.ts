import { open, readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import pLimit from 'p-limit';
import { MAX_DOCUMENT_BYTES, MAX_PLAN_BYTES } from '../engine/spec/limits.js';
import { PLANS_DIR } from '../engine/spec/load.js';
import type { SpecFile } from '../engine/spec/text.js';

/** Files are read many at a time, but not so many that a large spec runs out of descriptors. */
const READ_CONCURRENCY = 64;

export class SpecDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = SpecDirError.name;
  }
}

/**
 * Read the files of a spec directory that the engine looks at: SPEC.md, ROADMAP.md and
 * every *PLAN.md under planning/plans/. Each read stops one byte past its limit, so an
 * oversized file costs no more than that.
 */
export async function readSpecFiles(dir: string): Promise<SpecFile[]> {
  const info = await stat(dir).catch(() => undefined);
  if (!info) throw new SpecDirError(`${dir}: no such directory`);
  if (!info.isDirectory()) throw new SpecDirError(`${dir}: not a directory`);

  const paths: string[] = [];
  for (const name of ['SPEC.md', 'ROADMAP.md']) {
    const s = await stat(join(dir, name)).catch(() => undefined);
    if (s?.isFile()) paths.push(name);
  }
  const plansRoot = join(dir, PLANS_DIR);
  const entries = await readdir(plansRoot, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith('PLAN.md')) continue;
    const full = join(entry.parentPath, entry.name);
    paths.push(relative(dir, full).split(sep).join('/'));
  }
  const limit = pLimit(READ_CONCURRENCY);
  return Promise.all(
    paths.map((path) => limit(() => readCapped(join(dir, path), path, path.startsWith(PLANS_DIR) ? MAX_PLAN_BYTES : MAX_DOCUMENT_BYTES))),
  );
}

/** Read at most `max + 1` bytes of a file, keeping its true size. */
export async function readCapped(full: string, path: string, max: number): Promise<SpecFile> {
  const handle = await open(full, 'r');
  try {
    const { size } = await handle.stat();
    const want = Math.min(size, max + 1);
    const bytes = new Uint8Array(want);
    let offset = 0;
    while (offset < want) {
      const { bytesRead } = await handle.read(bytes, offset, want - offset, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
    }
    return { path, bytes: offset === want ? bytes : bytes.subarray(0, offset), size };
  } finally {
    await handle.close();
  }
}
