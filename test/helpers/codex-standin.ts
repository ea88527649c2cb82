import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { standInScript } from './standin-bundles.js';

/** One action of the stand-in codex (test/fixtures/codex/codex-standin.mjs documents them). */
export type CodexAction = Record<string, unknown>;

export interface CodexCall {
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** What it read as its prompt (stdin for `-`). */
  prompt: string;
  gitConfig: string;
  /** The configuration it ran with: config.toml unless ignored, then each -c. */
  config: { mcp_servers: Record<string, { command: string; args?: string[]; env?: Record<string, string>; default_tools_approval_mode?: string }> } & Record<
    string,
    unknown
  >;
}

export interface StandInCodex {
  /** The directory with `codex` in it, for PATH. */
  bin: string;
  /** What an agent's environment needs to reach it (PATH first), with a CODEX_HOME and a key of its own. */
  env: Record<string, string>;
  calls(): Promise<CodexCall[]>;
}

/** A `codex` on PATH that speaks MCP to the servers of its config and plays `calls`, one list per run. */
export async function standInCodex(calls: CodexAction[][], codexHome?: string): Promise<StandInCodex> {
  const bin = await mkdtemp(join(tmpdir(), 'codex-standin-'));
  const scenario = join(bin, 'scenario.json');
  await writeFile(scenario, JSON.stringify({ calls }));
  await writeFile(join(bin, 'codex'), `#!/bin/sh\nexec "${process.execPath}" "${standInScript('codex/codex-standin.mjs')}" "$@"\n`);
  await chmod(join(bin, 'codex'), 0o755);
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    FAKE_CODEX_SCENARIO: scenario,
    FAKE_CODEX_STATE: bin,
    CODEX_HOME: codexHome ?? join(bin, 'codex-home'),
    CODEX_API_KEY: 'sk-proj-standin0123456789abcdefghijklmnop',
  };
  return {
    bin,
    env,
    calls: async () =>
      (await readFile(join(bin, 'calls.jsonl'), 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as CodexCall),
  };
}
