import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { main } from '../../app/cli/main.js';
import type { CliIO } from '../../app/cli/io.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the CLI in-process with captured output. */
export async function runCli(argv: string[], cwd = process.cwd()): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    cwd,
    env: {},
    isTTY: false,
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
