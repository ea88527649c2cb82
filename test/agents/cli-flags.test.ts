import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';
// @ts-expect-error: the stand-ins' plain JavaScript helper has no types.
import { optionNames, PINNED } from '../fixtures/agents/cli-options.mjs';

/**
 * Every option an agent adapter passes is one its pinned CLI has, as scripts/cli-flags.ts read
 * them from the CLI itself into test/fixtures/agents/cli-flags.json (`npm run cli-flags` with a
 * new pin). A renamed or invented flag fails here, as it would fail on a runner.
 */

const names = optionNames as (cli: string, command?: string) => Set<string>;
const pinned = PINNED as Record<string, string>;

/** The options written out in an adapter's source: every `'--name'` literal. */
function passed(file: string): string[] {
  return [...new Set([...readFileSync(join(ROOT, 'app/agents', file), 'utf8').matchAll(/'(--[A-Za-z][\w-]*)'/g)].map((m) => m[1]!))].sort();
}

/** The pins the worker workflow installs, which the recorded options must be of. */
function workflowPin(name: string): string {
  return new RegExp(`${name}: \\$\\{\\{ vars\\.${name} \\|\\| '([^']+)' \\}\\}`).exec(
    readFileSync(join(ROOT, 'templates/workflows/harness-worker.yml'), 'utf8'),
  )![1]!;
}

describe('the options each agent adapter passes', () => {
  it('were recorded from the versions the worker workflow pins', () => {
    expect(pinned).toEqual({
      claude: workflowPin('CLAUDE_CODE_VERSION'),
      codex: workflowPin('CODEX_VERSION'),
      gemini: workflowPin('GEMINI_CLI_VERSION'),
      copilot: workflowPin('COPILOT_CLI_VERSION'),
    });
  });

  it.each([
    ['claude', 'claude.ts', ''],
    ['gemini', 'gemini.ts', ''],
    ['copilot', 'copilot.ts', ''],
  ])('%s: each is one the pinned CLI has', (cli, file, command) => {
    const options = passed(file);
    expect(options.length).toBeGreaterThan(2);
    expect(options.filter((o) => !names(cli, command).has(o))).toEqual([]);
  });

  it('codex: each is one `codex exec` and `codex exec resume` have', () => {
    const options = passed('codex.ts');
    expect(options.filter((o) => !names('codex', 'exec').has(o) || !names('codex', 'exec resume').has(o))).toEqual([]);
  });

  it('an option the pinned CLI does not have is not one (the list is no list of everything)', () => {
    expect(names('claude').has('--max-budget')).toBe(false);
    expect(names('claude').has('--max-budget-usd')).toBe(true);
    // Hidden from its --help, and asked of the CLI itself.
    expect(names('claude').has('--max-turns')).toBe(true);
  });
});

describe('the Claude stand-ins', () => {
  it.each(['fake-claude.mjs', 'mcp-claude.mjs'])(
    '%s refuses an option the pinned CLI does not have, or one missing its value, as Claude Code does',
    (standIn) => {
      const run = (...args: string[]) =>
        spawnSync(process.execPath, [join(ROOT, 'test/fixtures/claude', standIn), ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
      expect(run('-p', 'x', '--max-budget', '1')).toMatchObject({ status: 1, stderr: "error: unknown option '--max-budget'\n" });
      expect(run('-p', 'x', '--output-format', 'stream-json', '--max-budget-usd')).toMatchObject({
        status: 1,
        stderr: "error: option '--max-budget-usd <amount>' argument missing\n",
      });
    },
  );
});

describe('the other stand-ins', () => {
  /** A stand-in run with `args`, a scenario of no calls and a state directory of its own. */
  function standIn(path: string, args: string[]) {
    const dir = mkdtempSync(join(tmpdir(), 'harness-standin-'));
    writeFileSync(join(dir, 'scenario.json'), '{ "calls": [] }');
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      FAKE_CODEX_SCENARIO: join(dir, 'scenario.json'),
      FAKE_CODEX_STATE: dir,
      FAKE_GEMINI_SCENARIO: join(dir, 'scenario.json'),
      FAKE_GEMINI_STATE: dir,
      FAKE_COPILOT_SCENARIO: join(dir, 'scenario.json'),
      FAKE_COPILOT_STATE: dir,
    };
    return spawnSync(process.execPath, [join(ROOT, 'test/fixtures', path), ...args], { encoding: 'utf8', env, cwd: dir });
  }

  it('refuse an option their pinned CLI does not have, as that CLI does', () => {
    expect(standIn('codex/codex-standin.mjs', ['exec', '--max-budget-usd', '1', '-'])).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/^error: unexpected argument '--max-budget-usd' found\n/),
    });
    expect(standIn('gemini/gemini-standin.mjs', ['-p', 'x', '--max-budget-usd', '1'])).toMatchObject({
      status: 1,
      stderr: 'Unknown argument: max-budget-usd\n',
    });
    expect(standIn('copilot/copilot-standin.mjs', ['-p', 'x', '--max-budget-usd', '1'])).toMatchObject({
      status: 1,
      stderr: expect.stringMatching(/^error: unexpected argument '--max-budget-usd' found\n/),
    });
  });
});
