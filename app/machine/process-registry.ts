import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readTextIfExists, removeIfExists } from './files.js';
import { groupAlive, reapTagged } from './process-group.js';

/**
 * The process groups a run started and has not stopped yet (servers of API and UI checks),
 * one file per group in `dir`. A run killed with SIGKILL cannot stop them; the next run of
 * the spec reads the files and does. Each file holds the leader's start time, so a group id
 * the system has since given to another process is left alone.
 */
export class ProcessRegistry {
  constructor(readonly dir: string) {}

  /** `tag`: the group's PROCESS_TAG, by which what left the group (setsid) is found too. */
  async track(pgid: number, tag?: string): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeFile(join(this.dir, String(pgid)), `${(await startTime(pgid)) ?? ''}${tag === undefined ? '' : `\n${tag}`}`);
  }

  untrack(pgid: number): Promise<void> {
    return removeIfExists(join(this.dir, String(pgid)));
  }

  /** Stop every group an earlier run left running; returns the ids of those it stopped. */
  async reap(graceMs = 3_000): Promise<number[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const stopped: number[] = [];
    for (const name of names) {
      const pgid = Number(name);
      if (!Number.isInteger(pgid) || pgid <= 1) continue;
      const [recorded = '', tag] = ((await readTextIfExists(join(this.dir, name))) ?? '').split('\n').map((l) => l.trim());
      const now = await startTime(pgid);
      // Same leader (or a system without /proc, where the group id is all there is), still alive.
      if ((recorded === '' || now === undefined || now === recorded) && (await groupAlive(pgid))) {
        await stopPgid(pgid, graceMs);
        stopped.push(pgid);
      }
      // What the group's commands took out of it (setsid), found by the tag they inherited.
      if (tag && (await reapTagged(tag)).length > 0 && !stopped.includes(pgid)) stopped.push(pgid);
      await this.untrack(pgid);
    }
    return stopped;
  }
}

/** The process's start time in clock ticks since boot (/proc/<pid>/stat, field 22). */
async function startTime(pid: number): Promise<string | undefined> {
  let stat: string;
  try {
    stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

async function stopPgid(pgid: number, graceMs: number): Promise<void> {
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-pgid, s);
    } catch {
      // ESRCH: gone already.
    }
  };
  signal('SIGTERM');
  const end = Date.now() + graceMs;
  while (Date.now() < end && (await groupAlive(pgid))) await new Promise((r) => setTimeout(r, 25));
  if (await groupAlive(pgid)) signal('SIGKILL');
}
