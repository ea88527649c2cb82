/**
 * The run lock: one run per spec. A lock left by a killed run is taken over, by exactly one
 * of the runs that start together against it; a live holder is never displaced.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireRunLock, RunLockedError } from '../../app/runner/lock.js';
import { ROOT } from '../helpers/paths.js';

/** A pid no process has now: a child that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

const CONTENDER = `
import { existsSync } from 'node:fs';
import { acquireRunLock } from ${JSON.stringify(join(ROOT, 'app/runner/lock.ts'))};
const [dir, go] = process.argv.slice(2);
while (!existsSync(go)) await new Promise((r) => setTimeout(r, 2));
try {
  const release = await acquireRunLock(dir);
  process.stdout.write('got');
  await new Promise((r) => setTimeout(r, 1500));
  await release();
} catch (e) {
  process.stdout.write((e as Error).constructor.name);
}
`;

describe('the run lock', () => {
  it('is taken over from a dead holder by exactly one of many runs starting together', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-lock-'));
    const script = join(dir, 'contender.mts');
    writeFileSync(script, CONTENDER);
    for (let trial = 0; trial < 3; trial++) {
      writeFileSync(join(dir, 'run.lock'), String(deadPid()));
      const go = join(dir, `go-${trial}`);
      const children = Array.from({ length: 12 }, () => {
        const child = spawn(process.execPath, ['--import', 'tsx', script, dir, go], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        return new Promise<string>((resolve) => child.once('exit', () => resolve(out)));
      });
      // Give every contender time to start and wait at the barrier, then let them all go.
      await new Promise((r) => setTimeout(r, 4000));
      writeFileSync(go, '');
      const results = await Promise.all(children);
      expect(results.filter((r) => r === 'got'), results.join(',')).toHaveLength(1);
      expect(results.filter((r) => r === 'RunLockedError')).toHaveLength(11);
      expect(existsSync(join(dir, 'run.lock'))).toBe(false);
    }
  }, 60_000);

  it('never displaces a live holder, and is free again once released', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-lock-'));
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    writeFileSync(join(dir, 'run.lock'), String(child.pid));
    await expect(acquireRunLock(dir)).rejects.toBeInstanceOf(RunLockedError);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const release = await acquireRunLock(dir);
    await release();
    expect(existsSync(join(dir, 'run.lock'))).toBe(false);
    await (await acquireRunLock(dir))();
  });

  it('takes over past a taker that was killed in the middle of its takeover', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-lock-'));
    const stale = deadPid();
    writeFileSync(join(dir, 'run.lock'), String(stale));
    writeFileSync(join(dir, `run.lock.takeover-${stale}`), String(deadPid()));
    const release = await acquireRunLock(dir);
    await release();
    expect(existsSync(join(dir, `run.lock.takeover-${stale}`))).toBe(false);
  });

  it('takes over a lock or a guard a run left empty when it was killed as it wrote it (found by the crash campaign)', async () => {
    const old = new Date(Date.now() - 10_000);
    const empty = mkdtempSync(join(tmpdir(), 'harness-lock-'));
    writeFileSync(join(empty, 'run.lock'), '');
    utimesSync(join(empty, 'run.lock'), old, old);
    await (await acquireRunLock(empty))();

    const guarded = mkdtempSync(join(tmpdir(), 'harness-lock-'));
    const stale = deadPid();
    writeFileSync(join(guarded, 'run.lock'), String(stale));
    writeFileSync(join(guarded, `run.lock.takeover-${stale}`), '');
    utimesSync(join(guarded, `run.lock.takeover-${stale}`), old, old);
    writeFileSync(join(guarded, `run.lock.${stale}.new`), String(stale));
    const release = await acquireRunLock(guarded);
    expect(readdirSync(guarded).sort()).toEqual(['run.lock']);
    await release();
  });

  it('leaves an empty lock that is being written this instant to its writer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-lock-'));
    writeFileSync(join(dir, 'run.lock'), '');
    await expect(acquireRunLock(dir)).rejects.toThrow(/could not take the run lock/);
  });
});
