/**
 * The pinned agent CLIs themselves, for the tests that run them against a fake model on
 * 127.0.0.1: `npm run real-clis` installs them (.ci/run does). Where one is missing its tests are
 * skipped, and under CI that is an error: CI must run them.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_CLIS, pinned, type CliKey } from '../../scripts/agent-clis.js';
import { realCliDir } from '../../scripts/real-clis.js';

export interface RealCli {
  key: CliKey;
  version: string;
  /** The folder its package is installed in (`<dir>/node_modules/<pkg>`). */
  dir: string;
  /** Its executable. */
  bin: string;
  /** A folder holding only this CLI's executables, to put first on PATH. */
  binDir: string;
}

/** The installed CLI at its pin, or undefined (and under CI=true, a thrown error naming the fix). */
export function realCli(key: CliKey): RealCli | undefined {
  const cli = AGENT_CLIS.find((c) => c.key === key)!;
  const dir = realCliDir(cli);
  const binDir = join(dir, 'node_modules/.bin');
  const bin = join(binDir, cli.bin);
  if (!existsSync(join(dir, '.done')) || !existsSync(bin)) {
    if (process.env.CI === 'true') throw new Error(`${cli.pkg}@${pinned(cli.pin)} is not installed in ${dir}: run npm run real-clis`);
    return undefined;
  }
  return { key, version: pinned(cli.pin), dir, bin, binDir };
}
