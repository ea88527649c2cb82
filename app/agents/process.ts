import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createWriteStream, writeFileSync, type WriteStream } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { isSystemError, readTextIfExists } from '../machine/files.js';
import { isProcessTag, PROCESS_TAG, processTag, reapTagged, type ReapedProcess } from '../machine/process-group.js';
import { contain, endCgroup, type Contained } from '../machine/containment.js';
import { isErrorHead } from '../engine/core/verify/telling-line.js';

/**
 * One agent process (a step's shell, claude, a command) in its own process group and its own
 * container of processes (containment.ts), so that an abort, a timeout or the end of the
 * process takes everything it started with it, whatever that did to its group or its
 * environment: a step that leaves a server running in the background must not keep writing
 * into the worktree after the worker moved on. Output is appended to a log file as it arrives
 * and handed over line by line.
 */

export interface ProcessOptions {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  /** Written to stdin, which is then closed unless keepStdin. */
  input?: string;
  /** Keep stdin open for writeLine (a command that reads answers to its checkpoints). */
  keepStdin?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Both streams are appended here, as they arrive. */
  logFile?: string;
  /**
   * Holds the process's PROCESS_TAG from before it starts, and its group's id once it runs. If
   * the worker itself is killed (SIGKILL), its children live on; a restarted worker ends them
   * with killOrphan before it touches the worktree, at whatever moment the kill came.
   */
  pidFile?: string;
  /** Called for each line, in order; a slow (async) handler holds back the next line, not the process. */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void | Promise<void>;
}

export interface ProcessResult {
  /** null when the process was ended by a signal or never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  aborted: boolean;
  timedOut: boolean;
  /** Why the process did not start (command not found), or what a line handler threw. */
  error?: Error;
  /** Lines of output, both streams. */
  lines: number;
  /** The last lines of output, both streams, for error messages. */
  tail: string[];
  /**
   * What the process left running when it ended, or when it was ended, and harness killed: a
   * background job, one that left the group with `setsid`. Its output pipes no longer hold the
   * run (they are cut CLOSE_GRACE_MS after the exit), and the log file says what was killed.
   */
  reaped: ReapedProcess[];
  /** The first line that heads an error (telling-line.ts), which a long output scrolls out of its tail. */
  firstError?: string;
}

export interface RunningProcess {
  readonly pid: number | undefined;
  /** Write one line to stdin; false when stdin is closed. */
  writeLine(line: string): boolean;
  closeStdin(): void;
  /** End the process group (SIGTERM, then SIGKILL after a grace period). */
  kill(): void;
  readonly done: Promise<ProcessResult>;
}

const TAIL_LINES = 30;
const MAX_TAIL_LINE = 1000;
/** Time a process group gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2000;
/**
 * After the process exits (or its time is up), how long its output pipes may stay open, held
 * by something it started, before they are cut and what holds them is killed.
 */
const CLOSE_GRACE_MS = 1000;

export function startProcess(options: ProcessOptions): RunningProcess {
  const result: ProcessResult = { code: null, signal: null, aborted: false, timedOut: false, lines: 0, tail: [], reaped: [] };
  if (options.signal?.aborted) {
    result.aborted = true;
    return { pid: undefined, writeLine: () => false, closeStdin: () => undefined, kill: () => undefined, done: Promise.resolve(result) };
  }

  const tag = processTag();
  // Inherited by everything it starts, in its group or not: how what escapes is found where there is no container (process-group.ts).
  const env = { ...options.env, [PROCESS_TAG]: tag };
  const container = contain(options.command, options.args, { tag, cwd: options.cwd, env });
  recordTag(options.pidFile, tag, container.cgroup);
  const child = spawn(container.command, container.args, {
    cwd: options.cwd,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group: kill(-pid) reaches every process it started that stayed in it.
    detached: true,
  });
  const log = options.logFile ? createWriteStream(options.logFile, { flags: 'a' }) : undefined;
  log?.on('error', () => undefined);
  const run: Running = { options, result, container, child, pid: child.pid, log, chain: Promise.resolve(), exited: false, buffers: { stdout: '', stderr: '' } };
  const pidWritten = recordPid(run, tag);
  readLines(run);
  stopOnAbortOrTimeout(run);
  feedStdin(run);
  child.on('exit', (code, signal) => onExit(run, code, signal));
  const done = settled(run, pidWritten);
  return {
    pid: run.pid,
    writeLine: (line) => {
      if (child.stdin.destroyed || child.stdin.writableEnded) return false;
      child.stdin.write(`${line}\n`);
      return true;
    },
    closeStdin: () => {
      if (!child.stdin.writableEnded) child.stdin.end();
    },
    kill: () => kill(run),
    done,
  };
}

/** A started process, and what the steps that watch it share. */
interface Running {
  readonly options: ProcessOptions;
  readonly result: ProcessResult;
  readonly container: Contained;
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number | undefined;
  readonly log: WriteStream | undefined;
  /** The line handler's calls, one after the other. */
  chain: Promise<void>;
  exited: boolean;
  /** What each stream holds of a line not yet ended. */
  readonly buffers: { stdout: string; stderr: string };
  killTimer?: NodeJS.Timeout;
  /** Once the process is gone (or its time is up), its pipes get CLOSE_GRACE_MS to close; then they are cut, whoever holds them. */
  cutTimer?: NodeJS.Timeout;
  cut?: () => void;
  timeout?: NodeJS.Timeout;
  onAbort?: () => void;
}

/**
 * The tag (and cgroup) written to the pid file before the start: a kill right after it leaves
 * them to find the process by. Synchronously: a start is rare, its file small, and startProcess returns what runs.
 */
function recordTag(pidFile: string | undefined, tag: string, cgroup: string | undefined): void {
  if (!pidFile) return;
  try {
    writeFileSync(pidFile, JSON.stringify({ tag, cgroup }));
  } catch (e) {
    if (!isSystemError(e)) throw e;
  }
}

/** The group's id added to the pid file, through a rename: a kill while it is written leaves the tag's record whole, never an empty file. */
function recordPid({ pid, options, container }: Running, tag: string): Promise<void> {
  const pidFile = options.pidFile;
  if (pid === undefined || !pidFile) return Promise.resolve();
  return writeFile(`${pidFile}.tmp`, JSON.stringify({ pid, tag, cgroup: container.cgroup }))
    .then(() => rename(`${pidFile}.tmp`, pidFile))
    .catch((e: unknown) => {
      // A pid file that could not be written only costs finding the process later; a bug is not that.
      if (!isSystemError(e)) throw e;
    });
}

function killGroup({ pid }: Running, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

function cutPipesLater(run: Running): void {
  run.cutTimer ??= setTimeout(() => run.cut?.(), CLOSE_GRACE_MS);
}

/** End the process group (SIGTERM, then SIGKILL after a grace period); once the process is gone, cut its pipes. */
function kill(run: Running): void {
  if (run.exited) {
    cutPipesLater(run);
    return;
  }
  killGroup(run, 'SIGTERM');
  run.killTimer ??= setTimeout(() => killGroup(run, 'SIGKILL'), KILL_GRACE_MS);
}

/** Both streams logged as they arrive and cut into lines. */
function readLines(run: Running): void {
  const { child, log, buffers } = run;
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream].setEncoding('utf8');
    child[stream].on('data', (chunk: string) => {
      log?.write(chunk);
      const text = buffers[stream] + chunk;
      const parts = text.split('\n');
      buffers[stream] = parts.pop()!;
      for (const part of parts) pushLine(run, part.replace(/\r$/, ''), stream);
    });
  }
}

/** One line: counted, kept in the tail (and as the first error), and handed to the handler after the lines before it. */
function pushLine(run: Running, line: string, stream: 'stdout' | 'stderr'): void {
  const { result } = run;
  result.lines++;
  const kept = line.length > MAX_TAIL_LINE ? `${line.slice(0, MAX_TAIL_LINE)}…` : line;
  result.tail.push(kept);
  if (result.tail.length > TAIL_LINES) result.tail.shift();
  if (result.firstError === undefined && isErrorHead(line)) result.firstError = kept;
  const handler = run.options.onLine;
  if (!handler) return;
  run.chain = run.chain
    .then(() => handler(line, stream))
    .catch((e: unknown) => {
      result.error ??= e instanceof Error ? e : new Error(String(e));
      kill(run);
    });
}

/** The process killed at an abort, or when its time is up. */
function stopOnAbortOrTimeout(run: Running): void {
  const { options, result } = run;
  run.onAbort = () => {
    result.aborted = true;
    kill(run);
  };
  options.signal?.addEventListener('abort', run.onAbort, { once: true });
  run.timeout =
    options.timeoutMs !== undefined
      ? setTimeout(
          () => {
            result.timedOut = true;
            kill(run);
          },
          Math.max(0, options.timeoutMs),
        )
      : undefined;
}

/** The input written to stdin, which is then closed unless it is kept open for answers. */
function feedStdin({ child, options }: Running): void {
  child.stdin.on('error', () => undefined);
  if (options.input !== undefined) child.stdin.write(options.input);
  if (!options.keepStdin) child.stdin.end();
}

function onExit(run: Running, code: number | null, signal: NodeJS.Signals | null): void {
  const { result, container } = run;
  run.exited = true;
  ({ code: result.code, signal: result.signal } = container.ended(code, signal));
  // Whatever the process left running in its group ends with it.
  killGroup(run, 'SIGKILL');
  cutPipesLater(run);
}

/** The result, once the process has closed its pipes (or they were cut), or never started. */
function settled(run: Running, pidWritten: Promise<void>): Promise<ProcessResult> {
  const { child, pid, result } = run;
  return new Promise<ProcessResult>((resolve) => {
    let once = false;
    const finish = async () => {
      if (once) return;
      once = true;
      await finishRun(run, pidWritten);
      resolve(result);
    };
    child.on('error', (e) => {
      result.error ??= e;
      // A process that never started emits no exit; one that did is finished by close.
      if (pid === undefined) void finish();
    });
    child.on('close', () => void finish());
    run.cut = () => {
      child.stdout.destroy();
      child.stderr.destroy();
      void finish();
    };
  });
}

/** The end of a run: timers and listener gone, what it left running ended and logged, the last lines handled, the log and the pid file closed. */
async function finishRun(run: Running, pidWritten: Promise<void>): Promise<void> {
  const { options, result, container, log, buffers } = run;
  if (run.timeout) clearTimeout(run.timeout);
  if (run.killTimer) clearTimeout(run.killTimer);
  if (run.cutTimer) clearTimeout(run.cutTimer);
  options.signal?.removeEventListener('abort', run.onAbort!);
  // What it left running, out of its group too (setsid, a cleared environment), ends now with its container, and is on record.
  result.reaped = await container.end();
  if (result.reaped.length > 0) {
    log?.write(
      `\n[harness] ended ${result.reaped.length} process${result.reaped.length === 1 ? '' : 'es'} left running: ${result.reaped.map((r) => `${r.pid} (${r.command.slice(0, 200)})`).join(', ')}\n`,
    );
  }
  for (const stream of ['stdout', 'stderr'] as const) {
    if (buffers[stream]) pushLine(run, buffers[stream], stream);
    buffers[stream] = '';
  }
  await run.chain;
  if (log) await new Promise<void>((r) => log.end(r));
  await pidWritten;
  if (options.pidFile) await rm(options.pidFile, { force: true });
}

/** Run to the end; see startProcess. */
export function runProcess(options: ProcessOptions): Promise<ProcessResult> {
  return startProcess(options).done;
}

/**
 * End what a killed worker's agent left running (see ProcessOptions.pidFile): its process group,
 * its cgroup where it had one, and every process carrying its tag (what left the group, or all
 * of it when the kill came before the group's id was written; in a PID namespace, the
 * namespace's first process, whose end ends the rest). Resolves with whether anything was still running.
 */
export async function killOrphan(pidFile: string): Promise<boolean> {
  const text = await readTextIfExists(pidFile);
  if (text === undefined) return false;
  let record: { pid?: unknown; tag?: unknown; cgroup?: unknown } = {};
  try {
    record = JSON.parse(text) as typeof record;
  } catch {
    // Cut short by the kill: nothing to find the process by.
  }
  let ended = false;
  const { pid, tag, cgroup } = record;
  if (typeof pid === 'number' && Number.isInteger(pid) && pid > 1) {
    try {
      process.kill(-pid, 'SIGKILL');
      ended = true;
    } catch {
      // ESRCH: the group is gone.
    }
  }
  // Only the cgroup harness made for this tag: the file names what to kill, and is no more trusted than that.
  if (isProcessTag(tag) && typeof cgroup === 'string' && cgroup.endsWith(`/harness-${tag}`) && (await endCgroup(cgroup)).length > 0) ended = true;
  if (isProcessTag(tag) && (await reapTagged(tag)).length > 0) ended = true;
  await rm(pidFile, { force: true });
  await rm(`${pidFile}.tmp`, { force: true });
  return ended;
}
