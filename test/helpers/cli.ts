import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { main } from '../../app/cli/main.js';
import type { CliIO } from '../../app/cli/io.js';
import type { Ticker } from '../../app/engine/core/clock.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the CLI in-process with captured output; a run's heartbeat only with a `ticker` (test/helpers/ticker.ts). */
export async function runCli(argv: string[], cwd = process.cwd(), options: { ticker?: Ticker } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    cwd,
    env: {},
    isTTY: false,
    ...(options.ticker ? { ticker: options.ticker } : {}),
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
