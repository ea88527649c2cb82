import type { Context } from 'probot';
import { stringify } from 'yaml';
import { CONFIG_PATH, parseConfig } from '../engine/core/config/parse.js';
import { DEFAULT_CONFIG, type HarnessConfig } from '../engine/core/config/schema.js';
import { problem, type Problem } from '../engine/core/spec/problem.js';
import { GitHubError, gitHubError } from '../gateway/github-error.js';
import { appOctokit } from './app-gateway.js';

export interface LoadedConfig {
  config: HarnessConfig;
  /** Problems in .github/harness.yml; the defaults stand in for a broken file. */
  problems: Problem[];
}

/**
 * `.github/harness.yml` through Probot's `context.config` (which also follows `_extends`
 * and an organisation's `.github` repository). Every key is optional; a file with problems
 * is reported and the defaults are used, so a typo never stops the app.
 */
export async function loadConfig(context: Context): Promise<LoadedConfig> {
  // Its read made conditional like every other (app-gateway.ts): an unchanged file costs nothing.
  appOctokit(context);
  const raw = (await context.config<Record<string, unknown>>('harness.yml')) ?? null;
  if (raw === null) return { config: DEFAULT_CONFIG, problems: [] };
  const { config, problems } = parseConfig(stringify(raw));
  // context.config hands back data, not the file: lines are lost, so problems point at the
  // top of the file and name the key instead.
  return { config: config ?? DEFAULT_CONFIG, problems: problems.map((p) => ({ ...p, file: CONFIG_PATH, line: 1 })) };
}

/**
 * loadConfig, and a file that is not YAML at all (context.config throws for it) reported
 * like any other config problem: the defaults are used and the spec check says why. Errors
 * from GitHub itself still throw, as the gateway's GitHubError (Probot's config plugin makes
 * the request, so its failure is translated here).
 */
export async function readConfig(context: Context): Promise<LoadedConfig> {
  try {
    return await loadConfig(context);
  } catch (e) {
    const failure = gitHubError(e, 'GET /repos/{owner}/{repo}/contents/{path}', 'app');
    if (failure instanceof GitHubError) throw failure;
    const reason = e instanceof Error ? e.message.replace(/^\[@probot\/octokit-plugin-config\] /, '') : String(e);
    return { config: DEFAULT_CONFIG, problems: [problem(CONFIG_PATH, 1, 'yaml', `${CONFIG_PATH} could not be read: ${reason}`)] };
  }
}
