import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { standInScript } from './standin-bundles.js';

/** One action of the stand-in gemini (test/fixtures/gemini/gemini-standin.mjs documents them). */
export type GeminiAction = Record<string, unknown>;

export interface StandInGemini {
  /** The directory with `gemini` in it, for PATH. */
  bin: string;
  /** What an agent's environment needs to reach it (PATH first, a key, a HOME of its own). */
  env: Record<string, string>;
  /** Each call: its argv, cwd and whole environment. */
  calls(): Promise<{ args: string[]; cwd: string; env: Record<string, string> }[]>;
  /** The MCP servers each call started. */
  servers(): Promise<{ call: number; servers: string[] }[]>;
  /** The user settings (harness's home's settings.json) and policy files each call read. */
  settings(): Promise<{ call: number; settings: Record<string, unknown>; policies: Record<string, string> }[]>;
  /** Each shell command the agent ran or was refused. */
  shell(): Promise<{ call: number; command: string; allowed: boolean }[]>;
}

const jsonl = async <T>(path: string): Promise<T[]> =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);

/** A `gemini` on PATH that speaks MCP to the servers of its settings and plays `calls`, one list per run. */
export async function standInGemini(calls: GeminiAction[][], home?: string): Promise<StandInGemini> {
  const bin = await mkdtemp(join(tmpdir(), 'gemini-standin-'));
  const scenario = join(bin, 'scenario.json');
  await writeFile(scenario, JSON.stringify({ calls }));
  await writeFile(join(bin, 'gemini'), `#!/bin/sh\nexec "${process.execPath}" "${standInScript('gemini/gemini-standin.mjs')}" "$@"\n`);
  await chmod(join(bin, 'gemini'), 0o755);
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    FAKE_GEMINI_SCENARIO: scenario,
    FAKE_GEMINI_STATE: bin,
    GEMINI_API_KEY: 'test-gemini-key',
    HOME: home ?? join(bin, 'home'),
  };
  return {
    bin,
    env,
    calls: () => jsonl(join(bin, 'calls.jsonl')),
    servers: () => jsonl(join(bin, 'servers.jsonl')),
    settings: () => jsonl(join(bin, 'settings.jsonl')),
    shell: () => jsonl(join(bin, 'shell.jsonl')),
  };
}
