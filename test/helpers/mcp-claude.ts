import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { standInScript } from './standin-bundles.js';

/** One action of the stand-in claude (test/fixtures/claude/mcp-claude.mjs documents them). */
export type ClaudeAction = Record<string, unknown>;

export interface StandInClaude {
  /** The directory with `claude` in it, for PATH. */
  bin: string;
  /** What an agent's environment needs to reach it (PATH first). */
  env: Record<string, string>;
  /** Each call: its argv, cwd, whole environment and `git config --list`. */
  calls(): Promise<{ args: string[]; cwd: string; env: Record<string, string>; gitConfig: string }[]>;
}

/** A `claude` on PATH that speaks MCP to the servers of its --mcp-config and plays `calls`, one list per run. */
export async function standInClaude(calls: ClaudeAction[][], configDir?: string): Promise<StandInClaude> {
  const bin = await mkdtemp(join(tmpdir(), 'mcp-claude-'));
  const scenario = join(bin, 'scenario.json');
  await writeFile(scenario, JSON.stringify({ calls }));
  await writeFile(join(bin, 'claude'), `#!/bin/sh\nexec "${process.execPath}" "${standInScript('claude/mcp-claude.mjs')}" "$@"\n`);
  await chmod(join(bin, 'claude'), 0o755);
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    FAKE_CLAUDE_SCENARIO: scenario,
    FAKE_CLAUDE_STATE: bin,
    CLAUDE_CONFIG_DIR: configDir ?? join(bin, 'claude-home'),
  };
  return {
    bin,
    env,
    calls: async () =>
      (await readFile(join(bin, 'calls.jsonl'), 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { args: string[]; cwd: string; env: Record<string, string>; gitConfig: string }),
  };
}
