import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';

/**
 * Checks and servers run in a process group of their own (spawned detached), so that a
 * timeout or a stop ends everything the command started, not just its shell: `sh -c "npm
 * start"` leaves node running if only sh is killed.
 */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Resolves once the process has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
}

function wait(ms: number): Promise<'timeout'> {
  return new Promise((resolve) => setTimeout(() => resolve('timeout'), ms).unref());
}

/** Is there a process with this id (one of another user's counts: signalling it is refused, not failed)? */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Does the group still have a live member? Zombies do not count: they are dead, but in a
 * container whose init reaps no one they stay in the process table (and in the group) for
 * good. Read from /proc where there is one; elsewhere any member counts.
 */
export async function groupAlive(pgid: number): Promise<boolean> {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = await readFile(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const [state, , pgrp] = statFields(stat);
    if (state !== 'Z' && state !== 'X' && Number(pgrp) === pgid) return true;
  }
  return false;
}

async function groupGone(pgid: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (!(await groupAlive(pgid))) return true;
    if (Date.now() >= end) return false;
    await wait(25);
  }
}

/**
 * SIGTERM the group, SIGKILL it after `graceMs`, and wait until every member is gone (not
 * just the shell that leads it: `sh -c "node server.js"` may leave node a moment longer).
 */
export async function stopGroup(child: ChildProcess, graceMs = 3_000): Promise<void> {
  const pgid = child.pid;
  if (pgid === undefined) return;
  killGroup(child, 'SIGTERM');
  if (!(await groupGone(pgid, graceMs))) {
    killGroup(child, 'SIGKILL');
    await groupGone(pgid, graceMs);
  }
  await Promise.race([exited(child), wait(graceMs)]);
}

/**
 * The variable every process harness starts (an agent, a step, a check) carries, with a value
 * of its own, and every process those start inherit: `setsid` takes a process out of its group
 * and session, not out of its environment. So what escaped the group is found by it (/proc/<pid>/environ,
 * where there is a /proc) and ended with the rest. A process that clears its environment is
 * not found; none of the escapes an agent stumbles into does.
 */
export const PROCESS_TAG = 'HARNESS_PROCESS_TAG';

/** A value of its own for PROCESS_TAG. */
export function processTag(): string {
  return randomUUID();
}

/** Is `value` one processTag() makes (a tag read back from a file may be anything)? */
export function isProcessTag(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f-]{36}$/.test(value);
}

/** A process harness ended because it outlived what started it: its id and command line. */
export interface ReapedProcess {
  pid: number;
  command: string;
}

/**
 * The fields of a /proc/<pid>/stat from its state on (field 3 of proc(5): state, ppid, pgrp,
 * session, tty, tpgid, flags, …). "pid (comm) state …": comm may hold spaces and parentheses, so
 * the fields start after the last ")".
 */
export function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Where reapTagged looks, and how it waits before it looks again (the tests' own /proc and pause). */
export interface ReapLooks {
  proc?: string;
  pause?: () => Promise<unknown>;
}

/**
 * SIGKILL every live process carrying PROCESS_TAG=`tag` (this one aside), and say which:
 * what an agent or a check left running after it ended, in its group or out of it. Nothing
 * where there is no /proc to read.
 */
export async function reapTagged(tag: string, looks: ReapLooks = {}): Promise<ReapedProcess[]> {
  const proc = looks.proc ?? '/proc';
  // A timer that keeps the process alive: a reap may be all that is left to do (the CLI's last
  // step), and on an unref'd one node ends with the reap's await unsettled (exit 13).
  const pause = looks.pause ?? (() => new Promise((resolve) => setTimeout(resolve, UNSETTLED_WAIT_MS)));
  const reaped: ReapedProcess[] = [];
  let looksLeft = UNSETTLED_LOOKS;
  // Again while a pass finds one it had not: a process forked between a pass's listing and its
  // parent's kill is seen by the next. And again, a little later, while a process is between two
  // programs (unsettled), up to UNSETTLED_LOOKS times: its environment is unreadable until its exec is done.
  for (;;) {
    const pass = await reapTaggedOnce(tag, proc);
    if (pass === undefined) return reaped;
    const fresh = pass.reaped.filter((p) => !reaped.some((r) => r.pid === p.pid));
    reaped.push(...fresh);
    if (fresh.length > 0) continue;
    if (!pass.unsettled || looksLeft-- === 0) return reaped;
    await pause();
  }
}

/** How many more passes reapTagged makes while a process is between two programs, UNSETTLED_WAIT_MS apart: up to a second. */
const UNSETTLED_LOOKS = 100;
const UNSETTLED_WAIT_MS = 10;
/** PF_KTHREAD in the flags of /proc/<pid>/stat: a kernel thread, which has no environment ever. */
const KERNEL_THREAD = 0x00200000;

/**
 * One pass of reapTagged over `proc`. `unsettled` when a process's environment read empty while
 * it was neither a kernel thread nor ended, its command line empty too: a process inside an exec
 * (or its exit) shows no memory, so what it carries is not known yet. A process started with an
 * empty environment (`env -i`) still has its command line, so it is not counted.
 */
async function reapTaggedOnce(tag: string, proc: string): Promise<{ reaped: ReapedProcess[]; unsettled: boolean } | undefined> {
  let entries: string[];
  try {
    entries = await readdir(proc);
  } catch {
    return undefined;
  }
  const needle = `${PROCESS_TAG}=${tag}`;
  const reaped: ReapedProcess[] = [];
  let unsettled = false;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: string;
    try {
      environ = await readFile(`${proc}/${entry}/environ`, 'latin1');
    } catch {
      // Gone meanwhile, or another user's: not ours either way.
      continue;
    }
    const tagged = environ.split('\0').includes(needle);
    if (!tagged && environ !== '') continue;
    const stat = await readFile(`${proc}/${entry}/stat`, 'utf8').catch(() => '');
    const fields = statFields(stat);
    // Killed already, not yet waited for by its parent: nothing more to end.
    if (stat === '' || ['Z', 'X'].includes(fields[0] ?? '')) continue;
    const command = await readFile(`${proc}/${entry}/cmdline`, 'utf8').then(
      (c) => c.split('\0').join(' ').trim(),
      () => '',
    );
    if (!tagged) {
      if (command === '' && (Number(fields[6]) & KERNEL_THREAD) === 0) unsettled = true;
      continue;
    }
    try {
      process.kill(Number(entry), 'SIGKILL');
      reaped.push({ pid: Number(entry), command });
    } catch {
      // ESRCH: it ended by itself meanwhile.
    }
  }
  return { reaped, unsettled };
}
