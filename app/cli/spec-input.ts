import { dirname, join, relative, resolve } from 'node:path';
import { SPEC_ID } from '../engine/core/spec/schema.js';
import { isDirectory, readTextIfExists } from '../machine/files.js';
import { LocalSpecs } from '../mcp/local-specs.js';
import { McpToolError } from '../mcp/tool-result.js';
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

/**
 * A spec named by its directory or by its id (`SPC-002`), as every command takes it: an id
 * that is not a directory here is looked up under the repository's specs_root. The answer is
 * a directory as the person would have written it, relative to where they are.
 */
export async function specDirOf(named: string, io: Pick<CliIO, 'cwd'>): Promise<string> {
  if (!SPEC_ID.test(named) || (await isDirectory(resolve(io.cwd, named)))) return named;
  const root = await repositoryRoot(io.cwd);
  if (root === undefined) throw new UsageError(`${named}: no such directory, and no repository here to find spec ${named} in`);
  try {
    const found = await new LocalSpecs(root).resolve(named);
    return relative(io.cwd, join(root, found.dir)).split('\\').join('/') || '.';
  } catch (e) {
    if (e instanceof McpToolError) throw new UsageError(e.message.replace(/^no spec "([^"]+)" in [^:]+:/, 'no spec "$1" here:'));
    throw e;
  }
}

/** The nearest directory up from `dir` that holds .git (a directory or a worktree's file). */
async function repositoryRoot(dir: string): Promise<string | undefined> {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if ((await isDirectory(join(at, '.git'))) || (await readTextIfExists(join(at, '.git'))) !== undefined) return at;
    if (dirname(at) === at) return undefined;
  }
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
