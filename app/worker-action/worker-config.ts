import { join } from 'node:path';
import { CONFIG_PATH, parseConfig } from '../engine/core/config/parse.js';
import { DEFAULT_CONFIG, type HarnessConfig } from '../engine/core/config/schema.js';
import { readTextIfExists } from '../machine/files.js';

export interface WorkerConfig {
  config: HarnessConfig;
  /** Problems in the file, `file:line: message`; the defaults stand in for a broken file, as in the app. */
  problems: string[];
}

/** `.github/harness.yml` as the checkout has it (the runner reads files, not `context.config`). */
export async function readWorkerConfig(root: string): Promise<WorkerConfig> {
  const text = await readTextIfExists(join(root, CONFIG_PATH));
  if (text === undefined) return { config: DEFAULT_CONFIG, problems: [] };
  const { config, problems } = parseConfig(text);
  return { config: config ?? DEFAULT_CONFIG, problems: problems.map((p) => `${p.file}:${p.line}: ${p.message}`) };
}
