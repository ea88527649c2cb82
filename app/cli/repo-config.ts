import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { CONFIG_PATH, parseConfig } from '../engine/core/config/parse.js';
import { DEFAULT_CONFIG, type HarnessConfig } from '../engine/core/config/schema.js';
import type { Problem } from '../engine/core/spec/problem.js';
import { readTextIfExists } from '../machine/files.js';

export interface RepoConfig {
  /** The configuration to use: the file's, or the defaults when there is no file. Undefined when the file has errors. */
  config: HarnessConfig | undefined;
  /** The file's problems, each `file` as the person would open it from where they are. */
  problems: Problem[];
  /** The file as shown, when there is one. */
  shown?: string;
}

/**
 * `.github/harness.yml` of the repository a spec directory is in. The repository is the
 * nearest directory up from the spec that holds `.git` (a directory, or a worktree's file),
 * so that validate, graph and simulate read the same file `harness run` does, without git.
 */
export async function repoConfig(specDir: string, cwd: string): Promise<RepoConfig> {
  const root = repositoryRoot(resolve(cwd, specDir));
  if (root === undefined) return { config: DEFAULT_CONFIG, problems: [] };
  const path = join(root, CONFIG_PATH);
  const text = await readTextIfExists(path);
  if (text === undefined) return { config: DEFAULT_CONFIG, problems: [] };
  const shown = relative(cwd, path).split('\\').join('/') || CONFIG_PATH;
  const { config, problems } = parseConfig(text);
  return { config, problems: problems.map((p) => ({ ...p, file: shown })), shown };
}

function repositoryRoot(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}
