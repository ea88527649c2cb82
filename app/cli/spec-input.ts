import { resolve } from 'node:path';
import { oneLine } from '../engine/core/spec/problem.js';
import { loadSpec, type LoadedSpec } from '../engine/core/spec/load.js';
import type { SpecFile } from '../engine/core/spec/text.js';
import { readSpecFiles, SpecDirError } from '../machine/spec-files.js';
import { UsageError, type CliIO } from './io.js';
import { PLAN_READING } from '../engine/importers/dialects.js';

export function specDirArg(positionals: string[], what = '<spec-dir>'): string {
  if (positionals.length === 0) throw new UsageError(`missing ${what}`);
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
  return positionals[0]!;
}

/** The spec directory as the user wrote it, for messages: "docs/specs/SPC-001". */
export function displayPath(dir: string): string {
  // On one line whatever the directory is called: a name with a newline must not print a line of its own (problem.ts, oneLine).
  return oneLine(dir.replace(/\\/g, '/').replace(/\/+$/, '') || '.');
}

export async function readSpec(dir: string, io: CliIO): Promise<SpecFile[]> {
  try {
    return await readSpecFiles(resolve(io.cwd, dir));
  } catch (e) {
    if (e instanceof SpecDirError) throw new UsageError(`${displayPath(dir)}: ${e.message.slice(e.message.lastIndexOf(': ') + 2)}`);
    throw e;
  }
}

export async function loadSpecDir(dir: string, io: CliIO): Promise<LoadedSpec> {
  return loadSpec(await readSpec(dir, io), PLAN_READING);
}
