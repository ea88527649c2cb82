import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CONTAINMENT_ENV, containment, type ContainmentKind } from '../../app/machine/containment.js';
import { repoStateDir } from '../../app/runner/repo.js';

/** The kinds of container harness puts processes in, besides the tag alone (containment.ts). */
export const CONTAINER_KINDS = ['cgroup', 'pidns'] as const;

/** Use `kind` (HARNESS_CONTAINMENT) from now on; gives back the function that puts the old value back. */
export function usingContainment(kind: string | undefined): () => void {
  const saved = process.env[CONTAINMENT_ENV];
  if (kind === undefined) delete process.env[CONTAINMENT_ENV];
  else process.env[CONTAINMENT_ENV] = kind;
  return () => {
    if (saved === undefined) delete process.env[CONTAINMENT_ENV];
    else process.env[CONTAINMENT_ENV] = saved;
  };
}

/** Whether this machine gives processes `kind`, found as harness finds it: by trying. */
export function containmentWorks(kind: ContainmentKind): boolean {
  const restore = usingContainment(kind);
  try {
    return containment().kind === kind;
  } finally {
    restore();
  }
}

/** Running: in /proc and not a zombie (dead, waiting for a parent that may never come). */
export function running(pid: number | string): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

export interface LiveProcess {
  pid: number;
  command: string;
  cwd?: string;
}

/** The ids of the live processes whose command line is exactly `command`. */
export function runningCommand(command: string): number[] {
  return everyLive()
    .filter((p) => p.command === command)
    .map((p) => p.pid);
}

/**
 * A script's line that waits until the process whose id `pid` (a shell word: `$p`, `$(cat f)`)
 * names runs exactly `command`, after its exec: the kernel sends no event when a process execs,
 * so the script reads its /proc again until it does (its own /proc, in a PID namespace too).
 */
export function untilRunningAs(pid: string, command: string): string {
  return `while [ "$(tr '\\0' ' ' < /proc/${pid}/cmdline)" != "${command} " ]; do :; done`;
}

/** Every live process of this machine, with its command line and working directory (where this process may read it). */
export function everyLive(): LiveProcess[] {
  const found: LiveProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || !running(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      let cwd: string | undefined;
      try {
        cwd = readlinkSync(`/proc/${entry}/cwd`);
      } catch {
        // Another user's, or gone meanwhile.
      }
      found.push({ pid: Number(entry), command, cwd });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/**
 * What still runs in `dir` (its working directory there or below): whatever a command started
 * there and left, before or after its exec, under any id, with any environment.
 */
export function leftIn(dir: string): LiveProcess[] {
  return everyLive().filter((p) => p.cwd === dir || p.cwd?.startsWith(`${dir}/`));
}

/** What still runs in the repository at `root` or in the worktrees harness run keeps beside it (repoStateDir). */
export function leftInRun(root: string): LiveProcess[] {
  return [...leftIn(root), ...leftIn(repoStateDir(join(root, '.git')))];
}

/**
 * A script's lines that leave four processes behind, each a `sleep <n><i>` that writes its id
 * (as it knows it) to `<dir>/p<i>`: out of the group with an empty environment (setsid env -i),
 * a double fork with an empty environment and out of the session (a daemon), out of the group
 * ignoring SIGTERM, in the group ignoring SIGTERM. The script goes on once all four have
 * written and are sleeping (not a fork on the way to it), and says so in `<dir>/sleeping`. The
 * two that write from a shell of their own say so on a named pipe the script holds open both
 * ways (descriptor 7: their lines wait in it until it reads them, blocked in the kernel); that
 * they sleep, their command lines say (untilRunningAs).
 */
export function leavingBehind(n: string, dir: string): string {
  return [
    `mkfifo ${dir}/written && exec 7<> ${dir}/written`,
    `setsid env -i sh -c 'sleep ${n}1 & echo $! > ${dir}/p1; echo >&7' &`,
    `env -i sh -c '(setsid sleep ${n}2 & echo $! > ${dir}/p2; echo >&7) &' &`,
    `setsid sh -c 'trap "" TERM; exec sleep ${n}3' & echo $! > ${dir}/p3`,
    `sh -c 'trap "" TERM; exec sleep ${n}4' & echo $! > ${dir}/p4`,
    'read -r written <&7 && read -r written <&7 && exec 7>&-',
    ...[1, 2, 3, 4].map((i) => untilRunningAs(`$(cat ${dir}/p${i})`, `sleep ${n}${i}`)),
    `: > ${dir}/sleeping`,
  ].join('\n');
}

/** When the process with id `pid` started (clock ticks since boot), or undefined once it has ended: an id with its start names one process, never a later one given the same id. */
function startOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // state is field 3 of stat(5), starttime field 22.
    return fields[0] === 'Z' || fields[0] === 'X' ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

/**
 * What still runs in `dir` once the processes being killed there have gone: a PID namespace
 * whose first process died has its others killed by the kernel, which takes a moment after that
 * death is seen. /proc sends no event when a process that is not this one's child ends, so this
 * looks again, yielding to the event loop between looks and waiting on no clock. A full look
 * reads every process of the machine; between full looks it watches only those it found (their
 * /proc/<pid>/stat), so that the looking takes little of the CPU the ending processes need.
 * Processes that are not being killed keep it looking until the test's time-out aborts `signal`,
 * and are returned.
 */
export async function leftInOnceGone(dir: string, signal: AbortSignal): Promise<LiveProcess[]> {
  for (let left = leftIn(dir); left.length > 0 && !signal.aborted; left = leftIn(dir)) {
    const watched = left.map((p) => ({ pid: p.pid, start: startOf(p.pid) }));
    while (!signal.aborted && watched.some((p) => p.start !== undefined && startOf(p.pid) === p.start)) await new Promise((resolve) => setImmediate(resolve));
  }
  return leftIn(dir);
}
