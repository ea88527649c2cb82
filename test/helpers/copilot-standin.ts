import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { standInScript } from './standin-bundles.js';

/** One action of the stand-in copilot (test/fixtures/copilot/copilot-standin.mjs documents them). */
export type CopilotAction = Record<string, unknown>;

export interface StandInCopilot {
  /** The directory with `copilot` in it, for PATH. */
  bin: string;
  /** Its COPILOT_HOME, where it keeps sessions. */
  home: string;
  /** What an agent's environment needs to reach it (PATH first) and sign it in. */
  env: Record<string, string>;
  /** Each call: its argv, cwd and whole environment. */
  calls(): Promise<{ args: string[]; cwd: string; env: Record<string, string> }[]>;
  /** The MCP servers each call loaded. */
  servers(): Promise<{ call: number; servers: string[] }[]>;
}

const lines = async <T>(path: string): Promise<T[]> =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);

/** A `copilot` on PATH that speaks MCP to the servers of its --additional-mcp-config and plays `calls`, one list per run. */
export async function standInCopilot(calls: CopilotAction[][], options: { home?: string; token?: boolean } = {}): Promise<StandInCopilot> {
  const bin = await mkdtemp(join(tmpdir(), 'copilot-standin-'));
  const scenario = join(bin, 'scenario.json');
  await writeFile(scenario, JSON.stringify({ calls }));
  await writeFile(join(bin, 'copilot'), `#!/bin/sh\nexec "${process.execPath}" "${standInScript('copilot/copilot-standin.mjs')}" "$@"\n`);
  await chmod(join(bin, 'copilot'), 0o755);
  const home = options.home ?? join(bin, 'copilot-home');
  const env: Record<string, string> = {
    PATH: `${bin}:${process.env.PATH}`,
    FAKE_COPILOT_SCENARIO: scenario,
    FAKE_COPILOT_STATE: bin,
    COPILOT_HOME: home,
    ...(options.token === false ? {} : { COPILOT_GITHUB_TOKEN: 'github_pat_copilot_only' }),
  };
  return { bin, home, env, calls: () => lines(join(bin, 'calls.jsonl')), servers: () => lines(join(bin, 'servers.jsonl')) };
}
