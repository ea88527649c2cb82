// The agent CLIs harness drives, at the versions the worker workflow pins
// (templates/workflows/harness-worker.yml: CLAUDE_CODE_VERSION, CODEX_VERSION, GEMINI_CLI_VERSION,
// COPILOT_CLI_VERSION), and how to install one from the npm registry. scripts/cli-flags.ts reads
// their options; scripts/real-clis.ts keeps them installed for the tests that run them for real.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export type CliKey = 'claude' | 'codex' | 'gemini' | 'copilot';

export interface AgentCli {
  key: CliKey;
  /** The workflow's variable that pins it. */
  pin: string;
  pkg: string;
  bin: string;
  /** The commands harness runs, as the arguments that name them, and how to ask each for its help. */
  commands: Record<string, string[]>;
}

export const AGENT_CLIS: AgentCli[] = [
  { key: 'claude', pin: 'CLAUDE_CODE_VERSION', pkg: '@anthropic-ai/claude-code', bin: 'claude', commands: { '': ['--help'] } },
  {
    key: 'codex',
    pin: 'CODEX_VERSION',
    pkg: '@openai/codex',
    bin: 'codex',
    commands: { exec: ['exec', '--help'], 'exec resume': ['exec', 'resume', '--help'] },
  },
  { key: 'gemini', pin: 'GEMINI_CLI_VERSION', pkg: '@google/gemini-cli', bin: 'gemini', commands: { '': ['--help'] } },
  { key: 'copilot', pin: 'COPILOT_CLI_VERSION', pkg: '@github/copilot', bin: 'copilot', commands: { '': ['--help'] } },
];

/** The version the workflow pins: `NAME: ${{ vars.NAME || 'x.y.z' }}`. */
export function pinned(name: string): string {
  const workflow = readFileSync(join(ROOT, 'templates/workflows/harness-worker.yml'), 'utf8');
  const m = new RegExp(`${name}: \\$\\{\\{ vars\\.${name} \\|\\| '([^']+)' \\}\\}`).exec(workflow);
  if (!m) throw new Error(`templates/workflows/harness-worker.yml pins no ${name}`);
  return m[1]!;
}

/**
 * Installs these CLIs at their pins into `dir` (an empty folder): npm with install scripts off
 * (npm 11 asks before running them), then Claude Code's own installer for its native binary.
 */
export function installClis(dir: string, clis: AgentCli[]): void {
  writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...clis.map((c) => `${c.pkg}@${pinned(c.pin)}`)], {
    cwd: dir,
    stdio: 'inherit',
  });
  if (clis.some((c) => c.key === 'claude')) {
    execFileSync(process.execPath, [join(dir, 'node_modules/@anthropic-ai/claude-code/install.cjs')], { cwd: dir, stdio: 'inherit' });
  }
}
