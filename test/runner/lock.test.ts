/**
 * The run lock: one run per spec. A lock left by a killed run is taken over (by exactly one of
 * many runs starting together: lock-contention.test.ts); a live holder is never displaced.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireRunLock, RunLockedError } from '../../app/runner/lock.js';

/** A pid no process has now: a child that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('the run lock', () => {
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
    await (
      await acquireRunLock(dir)
    )();
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
    await (
      await acquireRunLock(empty)
    )();

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
    // Written "now" however long this machine takes to get to the next line.
    const now = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'run.lock'), now, now);
    await expect(acquireRunLock(dir)).rejects.toThrow(/could not take the run lock/);
  });
});
