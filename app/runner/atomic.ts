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
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(tmp, content);
  await rename(tmp, path);
}

/**
 * One state file written often, each write whole (writeAtomic), in order, and only the latest
 * content when writes come faster than the disk takes them. `now` is on disk when it
 * resolves; `soon` (what only people read: a plan's current step and message) is written
 * within `delayMs` with whatever else came meanwhile, or superseded by the next `now`, so a
 * burst of changes is one write, not one per change. A `soon` that fails is reported by the
 * next `now`.
 */
export class LatestFile {
  #chain: Promise<void> = Promise.resolve();
  #pending: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failed: unknown;

  constructor(
    readonly path: string,
    private readonly delayMs: number,
  ) {}

  now(content: string): Promise<void> {
    this.#cancel();
    if (this.#failed !== undefined) {
      const failed = this.#failed;
      this.#failed = undefined;
      return Promise.reject(failed as Error);
    }
    return this.#write(content);
  }

  soon(content: string): void {
    this.#pending = content;
    // Not holding the process open: the last change of a file that matters is written with `now`.
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      const content = this.#pending;
      this.#pending = undefined;
      if (content !== undefined) this.#write(content).catch((e: unknown) => (this.#failed = e));
    }, this.delayMs).unref();
  }

  #cancel(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = undefined;
  }

  #write(content: string): Promise<void> {
    const next = this.#chain.then(() => writeAtomic(this.path, content));
    this.#chain = next.catch(() => undefined);
    return next;
  }
}

export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await writeAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

export async function readJson<T>(path: string): Promise<T | undefined> {
  const text = await readTextIfExists(path);
  return text === undefined ? undefined : (JSON.parse(text) as T);
}
