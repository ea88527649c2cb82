import { link, mkdir, readdir, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HarnessError } from '../engine/core/error.js';
import { readTextIfExists, removeIfExists } from '../machine/files.js';
import { processAlive } from '../machine/process-group.js';

export class RunLockedError extends HarnessError {
  constructor(readonly pid: number) {
    super(`another harness run (pid ${pid}) is working on this spec; wait for it, or stop it first`);
  }
}

const GUARD = 'run.lock.takeover-';

/**
 * The pid of the live run holding the lock in `dir`; undefined when no run holds it or its
 * holder is gone (killed: what it left says "running" but nothing runs).
 */
export async function liveRunHolder(dir: string): Promise<number | undefined> {
  const holder = await holderOf(join(dir, 'run.lock'));
  return holder !== undefined && processAlive(holder) ? holder : undefined;
}

/**
 * Create `path` holding `text` only if nothing is there: the one atomic step everything rests
 * on. The text is written to a file of this process's own first and then hard-linked into
 * place (link fails with EEXIST when the name is taken), so `path` never exists empty: a run
 * killed between creating a file and writing it would otherwise leave an empty lock or guard
 * that no later run could tell from one being written, and every later run would give up.
 */
async function createExclusive(path: string, text: string): Promise<boolean> {
  const mine = `${path}.${process.pid}.new`;
  await writeFile(mine, text);
  try {
    await link(mine, path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    await removeIfExists(mine);
  }
}

/** How old an empty lock or guard must be to count as left by a killed run rather than being written now. */
const EMPTY_GRACE_MS = 2_000;

/** Is the file there, empty, and older than EMPTY_GRACE_MS? */
async function leftEmpty(path: string): Promise<boolean> {
  try {
    const info = await stat(path);
    return info.size === 0 && Date.now() - info.mtimeMs > EMPTY_GRACE_MS;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

/** The pid a lock or guard file names; undefined when it is gone or empty. */
async function holderOf(path: string): Promise<number | undefined> {
  const n = Number(((await readTextIfExists(path)) ?? '').trim());
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * One run per spec at a time. The lock is a file holding the holder's pid, created
 * exclusively. A lock whose holder is dead (a run killed with SIGKILL: the resume case) is
 * taken over, and the takeover is itself exclusive: contenders for the lock of dead holder
 * h race to create the guard `run.lock.takeover-h`; the one that does checks the lock still
 * names h and replaces it by an atomic rename, and the others find a live holder. Deleting
 * and re-creating the lock instead lets two runs that both saw it stale both take it.
 */
export async function acquireRunLock(dir: string): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, 'run.lock');
  const me = String(process.pid);
  const release = async () => {
    if ((await holderOf(path)) === process.pid) await removeIfExists(path);
  };
  for (let attempt = 0; attempt < 20; attempt++) {
    if (await createExclusive(path, me)) return done(dir, release);
    const holder = await holderOf(path);
    if (holder === undefined) {
      // Empty and old: left by a run killed as it wrote it (before locks were linked into place whole). Taken over like a dead holder's.
      if (await leftEmpty(path)) {
        if (await takeOver(dir, path, undefined, 'empty')) return done(dir, release);
        continue;
      }
      // Gone (released) this instant: look again.
      await new Promise((r) => setTimeout(r, 5));
      continue;
    }
    if (holder === process.pid) return done(dir, release);
    if (processAlive(holder)) throw new RunLockedError(holder);
    if (await takeOver(dir, path, holder, String(holder))) return done(dir, release);
  }
  throw new HarnessError(`could not take the run lock ${path}: other runs keep taking it; try again`);
}

/** Try to replace the lock of dead holder `stale` (undefined: an empty lock); `key` names the guard (a chain when a taker died mid-way). */
async function takeOver(dir: string, path: string, stale: number | undefined, key: string): Promise<boolean> {
  const guard = join(dir, `${GUARD}${key}`);
  if (!(await createExclusive(guard, String(process.pid)))) {
    const taker = await holderOf(guard);
    // A taker killed inside its takeover leaves its guard: the next level decides among the rest.
    if (taker !== undefined && taker !== process.pid && !processAlive(taker)) return takeOver(dir, path, stale, `${key}-${taker}`);
    if (taker === undefined && (await leftEmpty(guard))) return takeOver(dir, path, stale, `${key}-empty`);
    return false;
  }
  try {
    if ((await holderOf(path)) !== stale) return false;
    const next = join(dir, `run.lock.${process.pid}.tmp`);
    await writeFile(next, String(process.pid));
    await rename(next, path);
    return true;
  } finally {
    await removeIfExists(guard);
  }
}

/** Taken: guards left by takers that died are about a holder long replaced, and go; so do the files a killed contender was about to link. */
async function done(dir: string, release: () => Promise<void>): Promise<() => Promise<void>> {
  for (const name of await readdir(dir)) {
    if (name.startsWith(GUARD) && !name.endsWith('.new')) await removeIfExists(join(dir, name));
    const pending = /^run\.lock.*\.(\d+)\.(?:new|tmp)$/.exec(name);
    if (pending && Number(pending[1]) !== process.pid && !processAlive(Number(pending[1]))) await removeIfExists(join(dir, name));
  }
  return release;
}
