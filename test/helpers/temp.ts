/**
 * Where tests make temporary files. test/global-setup.ts points TMPDIR at one directory per
 * run; test/setup.ts gives each test worker its own subdirectory of it and empties that after
 * every test file, so that what a file (or the code it runs) makes in `os.tmpdir()` is removed
 * even when the file forgets to. SHARED is for fixtures built once per run and reused by
 * every file (a template repository, a bundle): it lives until the run ends.
 */
import { appendFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** The run's directory (set by the global setup; absent when a file runs outside vitest's setup). */
export const RUN_DIR_ENV = 'HARNESS_TEST_RUN_DIR';
export const SHARED_DIR = 'shared';
export const LEFTOVERS_LOG = 'leftovers.log';

/** A directory that lasts for the whole test run, for fixtures every file shares. */
export function sharedDir(): string {
  const run = process.env[RUN_DIR_ENV];
  const dir = run ? join(run, SHARED_DIR) : join(process.env.TMPDIR ?? '/tmp', 'harness-tests-shared');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** This worker's temporary directory: TMPDIR for the test file running in it and its children. */
export function enterWorkerDir(): string | undefined {
  const run = process.env[RUN_DIR_ENV];
  if (!run) return undefined;
  const dir = join(run, `w${process.env.VITEST_POOL_ID ?? process.pid}`);
  mkdirSync(dir, { recursive: true });
  process.env.TMPDIR = dir;
  return dir;
}

/** Remove everything in the worker's directory; note what there was, for the run's report. */
export function sweepWorkerDir(dir: string, testFile: string): void {
  const left = readdirSync(dir);
  for (const name of left) rmSync(join(dir, name), { recursive: true, force: true, maxRetries: 3 });
  const run = process.env[RUN_DIR_ENV];
  if (run && left.length > 0) appendFileSync(join(run, LEFTOVERS_LOG), left.map((n) => `${testFile}\t${n}\n`).join(''));
}
