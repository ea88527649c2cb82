import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../app/cli/main.js';
import type { CliIO } from '../../app/cli/io.js';
import type { Ticker } from '../../app/engine/core/clock.js';
import { findExecutable } from '../../app/machine/executable.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Run the CLI in-process with captured output; `env` is the CLI's own environment (PATH, say),
 * over the process's; a run's heartbeat only with a `ticker` (test/helpers/ticker.ts).
 */
export async function runCli(
  argv: string[],
  cwd = process.cwd(),
  options: { ticker?: Ticker; env?: Record<string, string>; clock?: CliIO['clock'] } = {},
): Promise<CliResult> {
  const env = options.env ?? {};
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    cwd,
    env,
    isTTY: false,
    ...(options.ticker ? { ticker: options.ticker } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

export async function tempDir(prefix = 'harness-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Write files (path → text) under a directory. */
export async function writeTree(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, content);
  }
}

/** A PATH that holds only `programs` (as this machine has them): an agent's CLI is not on it, git and sh can be. */
export async function pathOnly(...programs: string[]): Promise<string> {
  const dir = await tempDir('harness-path-');
  for (const name of programs) {
    const found = findExecutable(name, process.env.PATH, process.cwd());
    if (found === undefined) throw new Error(`${name} is not on this machine's PATH`);
    await symlink(found, join(dir, name));
  }
  return dir;
}

const HARNESS_BIN = fileURLToPath(new URL('../../bin/harness.js', import.meta.url));

/** `harness <args>` as a person runs it: a process of its own, this process's environment with `env` over it. */
export function harnessProcess(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return startHarness(args, cwd, env).done;
}

/** `harness <args>` started as harnessProcess starts it, with the process at hand (to interrupt it, say): `done` when it has exited. */
export function startHarness(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): { child: ChildProcess; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [HARNESS_BIN, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return { child, done: new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))) };
}
