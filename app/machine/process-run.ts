import { spawn } from 'node:child_process';
import type { ExecResult } from '../engine/core/verify/ports.js';
import { contain } from './containment.js';
import { killGroup, PROCESS_TAG, processTag } from './process-group.js';
import { ProcessTail } from './process-tail.js';

export interface RunShellOptions {
  /** Absolute working directory. */
  cwd: string;
  timeoutMs: number;
  env?: Record<string, string>;
  /** Bytes of each stream kept (the tail). */
  maxOutputBytes?: number;
  /** What the command inherits before `env`; this process's whole environment unless told. */
  inherit?: NodeJS.ProcessEnv;
  /** The PROCESS_TAG the command and all it starts carry; a value of its own unless told (a caller records it before the start: process-registry.ts). */
  tag?: string;
  /**
   * Told the group's id as soon as it starts, so that a run killed before the command ends
   * can be cleaned up after by the next (process-registry.ts).
   */
  onStart?: (pgid: number) => void;
}

export const DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024;
/** After SIGTERM at the timeout, how long the group has before SIGKILL. */
const KILL_GRACE_MS = 2_000;
/** After the shell exits, how long its output pipes may stay open (held by a background child) before they are cut. */
const CLOSE_GRACE_MS = 1_000;

/**
 * `sh -c command` in its own process group and its own container of processes (containment.ts),
 * stdin closed (so nothing waits for a person and watch modes stay off), output captured up to
 * a cap. Never hangs: at the timeout the whole group is killed, and once the shell exits
 * anything it left running, in the group or not, is ended with its container.
 */
export function runShell(command: string, options: RunShellOptions): Promise<ExecResult> {
  const started = Date.now();
  const cap = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const stdout = new ProcessTail(cap);
  const stderr = new ProcessTail(cap);
  const tag = options.tag ?? processTag();
  // Inherited by whatever it starts, out of its group too: found and ended by it where there is no container (process-group.ts).
  const env = { ...(options.inherit ?? process.env), ...options.env, [PROCESS_TAG]: tag };
  const container = contain('sh', ['-c', command], { tag, cwd: options.cwd, env });
  return new Promise((resolve) => {
    const child = spawn(container.command, container.args, {
      cwd: options.cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let timedOut = false;
    let settled = false;
    let exitCode: number | null = null;
    const timers: NodeJS.Timeout[] = [];

    if (child.pid !== undefined) options.onStart?.(child.pid);
    const settle = async (spawnError?: Error) => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      // What left the group (setsid, a cleared environment) and still runs ends with the command's container.
      await container.end();
      const err = stderr.text();
      resolve({
        code: timedOut ? null : exitCode,
        stdout: stdout.text(),
        stderr: spawnError ? `${err}${err ? '\n' : ''}could not start sh: ${spawnError.message}` : err,
        timedOut,
        durationMs: Date.now() - started,
      });
    };

    child.stdout!.on('data', (c: Buffer) => stdout.push(c));
    child.stderr!.on('data', (c: Buffer) => stderr.push(c));
    child.once('error', (e) => void settle(e));
    child.once('exit', (code, signal) => {
      exitCode = container.ended(code, signal).code;
      // Whatever the shell left behind in its group (a backgrounded server) ends with it.
      killGroup(child, 'SIGKILL');
      timers.push(
        setTimeout(() => {
          child.stdout!.destroy();
          child.stderr!.destroy();
          void settle();
        }, CLOSE_GRACE_MS),
      );
    });
    child.once('close', () => void settle());

    timers.push(
      setTimeout(() => {
        timedOut = true;
        killGroup(child, 'SIGTERM');
        timers.push(setTimeout(() => killGroup(child, 'SIGKILL'), KILL_GRACE_MS));
      }, options.timeoutMs),
    );
  });
}
