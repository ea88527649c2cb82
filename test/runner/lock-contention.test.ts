/**
 * A lock left by a killed run is taken over by exactly one of the runs that start together
 * against it (the other cases of the run lock are in lock.test.ts). Every step waits on what the
 * processes say, never on the clock: all contenders ready, then go; all answered, then release.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

/** A pid no process has now: a child that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

/** Says "ready", waits for its input's first line (go), tries the lock, says what it got; the holder keeps it until the second (release). */
const CONTENDER = `
import { createInterface } from 'node:readline';
import { acquireRunLock } from ${JSON.stringify(join(ROOT, 'app/runner/lock.ts'))};
const [dir] = process.argv.slice(2);
const input = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
process.stdout.write('ready\\n');
await input.next();
try {
  const free = await acquireRunLock(dir);
  process.stdout.write('got\\n');
  await input.next();
  await free();
} catch (e) {
  process.stdout.write((e as Error).constructor.name + '\\n');
}
process.stdin.destroy();
`;

interface Contender {
  lines: string[];
  /** Resolves once the contender has written `n` lines. */
  said(n: number): Promise<void>;
  /** Writes a line to its input: the word it waits for. */
  tell(line: string): void;
  exited: Promise<void>;
}

function contender(script: string, dir: string): Contender {
  const child = spawn(process.execPath, ['--import', 'tsx', script, dir], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  // A contender that lost has stopped reading: a word written after that is not for it.
  child.stdin.on('error', () => undefined);
  const lines: string[] = [];
  let buffer = '';
  const waiting: { n: number; resolve: () => void }[] = [];
  child.stdout.on('data', (c: Buffer) => {
    buffer += c.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    lines.push(...parts);
    for (const w of waiting.filter((w) => lines.length >= w.n)) w.resolve();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    lines,
    said: (n) =>
      lines.length >= n
        ? Promise.resolve()
        : Promise.race([
            new Promise<void>((resolve) => waiting.push({ n, resolve })),
            exited.then(() => {
              if (lines.length < n) throw new Error(`a contender exited after saying only ${JSON.stringify(lines)}`);
            }),
          ]),
    tell: (line) => void child.stdin.write(`${line}\n`),
    exited,
  };
}

describe('the run lock', () => {
  it('is taken over from a dead holder by exactly one of many runs starting together', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-lock-'));
    const script = join(dir, 'contender.mts');
    writeFileSync(script, CONTENDER);
    for (let trial = 0; trial < 3; trial++) {
      writeFileSync(join(dir, 'run.lock'), String(deadPid()));
      const contenders = Array.from({ length: 12 }, () => contender(script, dir));
      await Promise.all(contenders.map((c) => c.said(1)));
      for (const c of contenders) c.tell('go');
      await Promise.all(contenders.map((c) => c.said(2)));
      const results = contenders.map((c) => c.lines[1]);
      for (const c of contenders) c.tell('release');
      await Promise.all(contenders.map((c) => c.exited));
      expect(
        results.filter((r) => r === 'got'),
        results.join(','),
      ).toHaveLength(1);
      expect(results.filter((r) => r === 'RunLockedError')).toHaveLength(11);
      expect(existsSync(join(dir, 'run.lock'))).toBe(false);
    }
  });
});
