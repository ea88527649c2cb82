import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readTextIfExists, removeIfExists } from './files.js';
import { groupAlive, isProcessTag, reapTagged } from './process-group.js';

/**
 * The processes a run started and has not stopped yet (commands and servers of checks), one
 * file per process group in `dir`, named by the PROCESS_TAG its processes carry. A run killed
 * with SIGKILL cannot stop them; the next run of the spec reads the files and does.
 *
 * The file is written before the process starts (`track`), so a kill at any moment after
 * leaves something to find: the group's id, once `started` has recorded it, with its
 * leader's start time (a group id the system has since given to another process is left
 * alone), and in every case the tag, by which every process of the group, and what left it
 * (setsid), is found (process-group.ts).
 */
export class ProcessRegistry {
  constructor(readonly dir: string) {}

  /** Before the process starts: `tag` is the PROCESS_TAG its environment will carry. */
  async track(tag: string): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeFile(this.file(tag), '');
  }

  /** Once it has started: its group's id, and the leader's start time. */
  async started(tag: string, pgid: number): Promise<void> {
    // Through a rename: a kill mid-write leaves the empty record (found by its tag), never a cut-off id.
    const file = this.file(tag);
    await writeFile(`${file}.tmp`, `${pgid} ${(await startTime(pgid)) ?? ''}`.trim());
    await rename(`${file}.tmp`, file);
  }

  untrack(tag: string): Promise<void> {
    return removeIfExists(this.file(tag));
  }

  /** Stop every group an earlier run left running; says what it stopped ("process group 123", or "process 456" of a group whose id was never recorded). */
  async reap(graceMs = 3_000): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const stopped: string[] = [];
    for (const name of names) {
      // A record's half-written replacement: the record itself is still there.
      if (name.endsWith('.tmp')) {
        await removeIfExists(join(this.dir, name));
        continue;
      }
      const { pgid, recorded, tag } = parseRecord(name, (await readTextIfExists(join(this.dir, name))) ?? '');
      if (pgid !== undefined) {
        const now = await startTime(pgid);
        // Same leader (or a system without /proc, where the group id is all there is), still alive.
        if ((recorded === undefined || now === undefined || now === recorded) && (await groupAlive(pgid))) {
          await stopPgid(pgid, graceMs);
          stopped.push(`process group ${pgid}`);
        }
      }
      // Every process that carries the tag: the group's, what left it, and a group killed before its id was written.
      if (tag) {
        const reaped = await reapTagged(tag);
        if (pgid === undefined) stopped.push(...reaped.map((p) => `process ${p.pid} (${p.command})`));
        else if (reaped.length > 0 && !stopped.includes(`process group ${pgid}`)) stopped.push(`process group ${pgid}`);
      }
      await removeIfExists(join(this.dir, name));
    }
    return stopped;
  }

  private file(tag: string): string {
    if (!isProcessTag(tag)) throw new Error(`not a process tag: ${JSON.stringify(tag)}`);
    return join(this.dir, tag);
  }
}

/**
 * A file of the registry: named by the tag, holding "pgid start-time" once started. Files named
 * by the group's id, holding "start-time\ntag", are what earlier versions wrote; a run of this
 * version still stops what one of those left.
 */
function parseRecord(name: string, text: string): { pgid?: number; recorded?: string; tag?: string } {
  const valid = (n: number) => (Number.isInteger(n) && n > 1 ? n : undefined);
  if (/^\d+$/.test(name)) {
    const [recorded = '', tag = ''] = text.split('\n').map((l) => l.trim());
    return { pgid: valid(Number(name)), recorded: recorded || undefined, tag: tag || undefined };
  }
  const [pgid = '', recorded = ''] = text.trim().split(/\s+/);
  return { pgid: pgid ? valid(Number(pgid)) : undefined, recorded: recorded || undefined, tag: isProcessTag(name) ? name : undefined };
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
