import { open } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { HarnessError } from '../engine/core/error.js';
import { readTextIfExists, removeIfExists } from '../machine/files.js';

export class RunLockedError extends HarnessError {
  constructor(readonly pid: number) {
    super(`another harness run (pid ${pid}) is working on this spec; wait for it, or stop it first`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One run per spec at a time. The lock is a file holding the holder's pid, created
 * exclusively; a lock whose holder is dead (a run killed with SIGKILL) is taken over,
 * which is exactly the resume case.
 */
export async function acquireRunLock(dir: string): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, 'run.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return async () => {
        const holder = Number(((await readTextIfExists(path)) ?? '').trim());
        if (holder === process.pid) await removeIfExists(path);
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = Number(((await readTextIfExists(path)) ?? '').trim());
      if (holder && holder !== process.pid && alive(holder)) throw new RunLockedError(holder);
      await removeIfExists(path);
    }
  }
  throw new Error(`could not take the run lock ${path}`);
}
