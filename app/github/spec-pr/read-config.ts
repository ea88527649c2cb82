import type { Context } from 'probot';
import { CONFIG_PATH } from '../../engine/core/config/parse.js';
import { DEFAULT_CONFIG } from '../../engine/core/config/schema.js';
import { problem } from '../../engine/core/spec/problem.js';
import { loadConfig, type LoadedConfig } from '../config.js';

/**
 * loadConfig, and a file that is not YAML at all (context.config throws for it) reported
 * like any other config problem: the defaults are used and the spec check says why. Errors
 * from GitHub itself still throw.
 */
export async function readConfig(context: Context): Promise<LoadedConfig> {
  try {
    return await loadConfig(context);
  } catch (e) {
    if ((e as { status?: number }).status !== undefined) throw e;
    const reason = e instanceof Error ? e.message.replace(/^\[@probot\/octokit-plugin-config\] /, '') : String(e);
    return { config: DEFAULT_CONFIG, problems: [problem(CONFIG_PATH, 1, 'yaml', `${CONFIG_PATH} could not be read: ${reason}`)] };
  }
}
