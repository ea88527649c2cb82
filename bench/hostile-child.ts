/**
 * One hostile input, in a process of its own (started by hostile.bench.ts), so that its
 * peak memory is its own: `hostile-child.ts cli <args…>` runs the CLI in process (as
 * `harness <args…>` would) with its output captured; `hostile-child.ts pattern <dir>
 * <pattern> <seconds>` runs one file_contains check with that pattern on <dir>/input.txt
 * through the machine's verification ports. Prints one JSON line.
 */
import { performance } from 'node:perf_hooks';
import { main } from '../app/cli/main.js';
import type { Check } from '../app/engine/core/spec/model.js';
import { runCheck } from '../app/engine/core/verify/checks.js';
import { localVerifyPorts } from '../app/machine/verify-ports.js';

export interface HostileChildResult {
  ms: number;
  maxRssKB: number;
  /** Exit code (cli), or 0 pass / 1 fail (pattern). */
  code: number;
  /** Bytes printed (cli). */
  outBytes: number;
  /** The verdict line (cli: the last line printed; pattern: the evidence). */
  last: string;
}

async function measure(): Promise<HostileChildResult> {
  const [mode, ...rest] = process.argv.slice(2);
  const started = performance.now();
  if (mode === 'cli') {
    let out = '';
    const code = await main(rest, { stdout: (t) => void (out += t), stderr: (t) => void (out += t), cwd: process.cwd(), env: {}, isTTY: false });
    const ms = performance.now() - started;
    return { ms, maxRssKB: process.resourceUsage().maxRSS, code, outBytes: Buffer.byteLength(out), last: out.trimEnd().split('\n').pop()!.slice(0, 300) };
  }
  if (mode === 'pattern') {
    const [dir, pattern, seconds] = rest as [string, string, string];
    const ports = localVerifyPorts(dir);
    const check = { id: 'hostile', type: 'file_contains', path: 'input.txt', pattern, timeout_seconds: Number(seconds) } as Check;
    const result = await runCheck(check, ports);
    const ms = performance.now() - started;
    await ports.close();
    return { ms, maxRssKB: process.resourceUsage().maxRSS, code: result.status === 'pass' ? 0 : 1, outBytes: 0, last: result.evidence.slice(0, 300) };
  }
  throw new Error(`hostile-child: unknown mode ${mode}`);
}

measure().then(
  (r) => {
    process.stdout.write(`${JSON.stringify(r)}\n`);
    // A worker thread or timer left behind must not keep the measurement alive.
    process.exit(0);
  },
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(70);
  },
);
