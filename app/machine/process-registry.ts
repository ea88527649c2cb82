import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readTextIfExists, removeIfExists } from './files.js';
import { cgroupFor, endCgroup, isMachinery } from './containment.js';
import { groupAlive, isProcessTag, reapTagged, statFields } from './process-group.js';

/**
 * The processes a run started and has not stopped yet (commands and servers of checks), one
 * file per process group in `dir`, named by the PROCESS_TAG its processes carry. A run killed
 * with SIGKILL cannot stop them; the next run of the spec reads the files and does.
 *
 * The file is written before the process starts (`track`), so a kill at any moment after
 * leaves something to find: the group's id, once `started` has recorded it, with its
 * leader's start time (a group id the system has since given to another process is left
 * alone); the cgroup the process is started in, where processes get one (containment.ts),
 * which holds everything it started; and in every case the tag, by which every process of the
 * group, what left it (setsid), and the first process of a PID namespace it runs in (whose
 * end ends the namespace) are found (process-group.ts).
 */
export class ProcessRegistry {
  constructor(readonly dir: string) {}

  /** Before the process starts: `tag` is the PROCESS_TAG its environment will carry. */
  async track(tag: string): Promise<void> {
    const file = this.file(tag);
    await mkdir(this.dir, { recursive: true });
    await writeFile(file, record('', tag));
  }

  /** Once it has started: its group's id, and the leader's start time. */
  async started(tag: string, pgid: number): Promise<void> {
    // Through a rename: a kill mid-write leaves the first record (found by its tag), never a cut-off id.
    const file = this.file(tag);
    await writeFile(`${file}.tmp`, record(`${pgid} ${(await startTime(pgid)) ?? ''}`.trim(), tag));
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
      const { pgid, recorded, tag, cgroup } = parseRecord(name, (await readTextIfExists(join(this.dir, name))) ?? '');
      if (pgid !== undefined) {
        const now = await startTime(pgid);
        // Same leader (or a system without /proc, where the group id is all there is), still alive.
        if ((recorded === undefined || now === undefined || now === recorded) && (await groupAlive(pgid))) {
          await stopPgid(pgid, graceMs);
          stopped.push(`process group ${pgid}`);
        }
      }
      // Everything in its cgroup, and every process that carries the tag: the group's, what left it, a
      // group killed before its id was written, a PID namespace's first process (and with it the namespace).
      if (tag) {
        const reaped = [...(cgroup ? await endCgroup(cgroup) : []), ...(await reapTagged(tag))].filter((p) => !isMachinery(p.command));
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

/** A record's text: "pgid start-time" once started (else empty), and on a line of its own the cgroup, where the process gets one. */
function record(group: string, tag: string): string {
  const cgroup = cgroupFor(tag);
  return cgroup === undefined ? group : `${group}\ncgroup ${cgroup}`;
}

/**
 * A file of the registry: named by the tag, holding "pgid start-time" once started, and "cgroup
 * <dir>" on a line of its own where the process got one. Files named by the group's id,
 * holding "start-time\ntag", are what earlier versions wrote; a run of this version still stops
 * what one of those left.
 */
function parseRecord(name: string, text: string): { pgid?: number; recorded?: string; tag?: string; cgroup?: string } {
  const valid = (n: number) => (Number.isInteger(n) && n > 1 ? n : undefined);
  if (/^\d+$/.test(name)) {
    const [recorded = '', tag = ''] = text.split('\n').map((l) => l.trim());
    return { pgid: valid(Number(name)), recorded: recorded || undefined, tag: tag || undefined };
  }
  const [first = '', ...rest] = text.split('\n');
  const [pgid = '', recorded = ''] = first.trim().split(/\s+/);
  const tag = isProcessTag(name) ? name : undefined;
  // Only the cgroup harness made for this tag: the file names what to kill, and is no more trusted than that.
  const cgroup = rest.find((l) => l.startsWith('cgroup '))?.slice('cgroup '.length);
  return {
    pgid: pgid ? valid(Number(pgid)) : undefined,
    recorded: recorded || undefined,
    tag,
    cgroup: tag && cgroup?.endsWith(`/harness-${tag}`) ? cgroup : undefined,
  };
}

/** The process's start time in clock ticks since boot (/proc/<pid>/stat, field 22). */
async function startTime(pid: number): Promise<string | undefined> {
  let stat: string;
  try {
    stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return statFields(stat)[19];
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
