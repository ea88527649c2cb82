import { basename, join, resolve } from 'node:path';
import { CONFIG_PATH, parseConfig } from '../../engine/core/config/parse.js';
import { DEFAULT_CONFIG, type HarnessConfig } from '../../engine/core/config/schema.js';
import { countErrors, formatProblem } from '../../engine/core/spec/problem.js';
import { KNOWLEDGE_ROOT, projectName } from '../../engine/forge/knowledge-draft.js';
import { isDirectory, readTextIfExists } from '../../machine/files.js';
import { Git, GitError } from '../../machine/git.js';
import { UsageError, type CliIO } from '../io.js';
import { displayPath } from '../spec-input.js';

/**
 * Where a knowledge command works, as `harness reflect` finds it: the store (`--knowledge DIR`,
 * else `.harness/knowledge` of this repository), the repository its paths are given in, this
 * repository's config, and the project its knowledge is filed under.
 */
export interface KnowledgePlace {
  store: string;
  root: string;
  repoRoot: string;
  project: string;
}

async function gitRoot(dir: string): Promise<string | undefined> {
  try {
    return (await new Git(dir).run(['rev-parse', '--show-toplevel'])).trim();
  } catch (e) {
    if (e instanceof GitError) return undefined;
    throw e;
  }
}

async function originName(root: string): Promise<string | undefined> {
  try {
    const url = (await new Git(root).run(['config', '--get', 'remote.origin.url'])).trim();
    return (
      url
        .replace(/\/+$/, '')
        .split(/[/:]/)
        .at(-1)
        ?.replace(/\.git$/, '') || undefined
    );
  } catch (e) {
    if (e instanceof GitError) return undefined;
    throw e;
  }
}

export async function knowledgePlace(io: CliIO, knowledge: string | undefined): Promise<KnowledgePlace> {
  const repoRoot = (await gitRoot(io.cwd)) ?? io.cwd;
  const store = knowledge !== undefined ? resolve(io.cwd, knowledge) : join(repoRoot, KNOWLEDGE_ROOT);
  if (knowledge !== undefined && !(await isDirectory(store))) throw new UsageError(`--knowledge ${displayPath(knowledge)}: no such directory`);
  const root = knowledge !== undefined ? ((await gitRoot(store)) ?? repoRoot) : repoRoot;
  return { store, root, repoRoot, project: projectName((await originName(repoRoot)) ?? basename(repoRoot)) };
}

/** This repository's config; undefined (the problems printed) when it has errors. */
export async function readConfig(root: string, io: CliIO, command: string): Promise<HarnessConfig | undefined> {
  const text = await readTextIfExists(join(root, CONFIG_PATH));
  if (text === undefined) return DEFAULT_CONFIG;
  const { config, problems } = parseConfig(text);
  for (const p of problems) io.stderr(`${formatProblem(p)}\n`);
  if (countErrors(problems) > 0) {
    io.stderr(`harness ${command}: ${CONFIG_PATH} has errors; fix them and run again\n`);
    return undefined;
  }
  return config;
}

/** `--at`: an ISO-8601 instant with its zone; decisions are made as of then. */
export function parseAt(value: string | undefined): Date {
  if (value === undefined) return new Date();
  const at = new Date(value);
  if (!/^\d{4}-\d\d-\d\dT/.test(value) || Number.isNaN(at.getTime())) throw new UsageError(`--at ${value}: not an ISO-8601 time such as 2026-03-09T12:00:00Z`);
  return at;
}
