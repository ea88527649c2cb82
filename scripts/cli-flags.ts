// `npm run cli-flags [-- --from <dir>]`: the options each pinned agent CLI has, read from the CLI
// itself, into test/fixtures/agents/cli-flags.json, which the stand-ins refuse anything else by
// (test/fixtures/agents/cli-options.mjs). The pins are the worker workflow's
// (templates/workflows/harness-worker.yml: CLAUDE_CODE_VERSION, CODEX_VERSION, GEMINI_CLI_VERSION,
// COPILOT_CLI_VERSION). Each is installed into a temporary prefix (the npm registry; Claude Code's
// native binary through its own install.cjs), or read from `--from <dir>` where they are installed
// already. Options come from each command's --help; Claude Code hides some (--max-turns), so every
// option its adapter (app/agents/claude.ts) can pass is also asked of the CLI itself: `claude -p x
// <option> --zz-unknown` is refused for an option it does not have, and for a flag names the
// sentinel instead. Re-run it with every new pin, and commit the JSON.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENT_CLIS, installClis, pinned } from './agent-clis.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TARGET = join(ROOT, 'test/fixtures/agents/cli-flags.json');

/** An option as the CLI parses it: its names, and whether it takes a value (`optional`: it may). */
export interface CliOption {
  names: string[];
  value: 'none' | 'required' | 'optional';
  /** It takes every argument up to the next option (commander's `<x...>`). */
  variadic?: boolean;
  /** How the CLI names it in its errors: `--max-budget-usd <amount>`. */
  usage: string;
}

const CLIS = AGENT_CLIS;

/**
 * The options of a --help text: each line that starts (after spaces) with `-x, --long` or
 * `--long`, aliases after commas; a value when `<…>` or `[…]` follows (commander, clap), or when
 * yargs types it `[string]`, `[array]` or `[number]`.
 */
export function parseHelp(text: string): CliOption[] {
  const options: CliOption[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s{1,8}((?:-{1,2}[A-Za-z0-9][\w-]*(?:, )?)+)(?:[ =](<[^>]+>(?:\.\.\.)?|\[[^\]]+\]))?(.*)$/.exec(line);
    if (!m) continue;
    const names = m[1]!
      .split(', ')
      .map((n) => n.trim())
      .filter(Boolean);
    const typed = /\[(string|array|number)\]/.exec(m[3] ?? '');
    const value = m[2]?.startsWith('<')
      ? 'required'
      : m[2]?.startsWith('[')
        ? /^\[(string|array|number|boolean)\]$/.test(m[2])
          ? m[2] === '[boolean]'
            ? 'none'
            : 'required'
          : 'optional'
        : typed
          ? 'required'
          : 'none';
    options.push({
      names,
      value,
      ...(m[2]?.endsWith('...>') ? { variadic: true } : {}),
      usage: `${names.at(-1)}${m[2] && value !== 'none' ? ` ${m[2]}` : ''}`,
    });
  }
  return options;
}

/** Options Claude Code has but does not list: each one its adapter passes, asked of the CLI. */
function hiddenClaudeOptions(bin: string, listed: CliOption[]): CliOption[] {
  const adapter = readFileSync(join(ROOT, 'app/agents/claude.ts'), 'utf8');
  const known = new Set(listed.flatMap((o) => o.names));
  const found: CliOption[] = [];
  for (const name of new Set([...adapter.matchAll(/'(--[a-z][a-z-]+)'/g)].map((m) => m[1]!))) {
    if (known.has(name)) continue;
    const said = spawnSync(bin, ['-p', 'x', name, '--zz-unknown'], { encoding: 'utf8', timeout: 20_000, env: { ...process.env, ANTHROPIC_API_KEY: '' } });
    const text = `${said.stderr}${said.stdout}`;
    if (text.includes(`unknown option '${name}'`)) continue;
    const flag = text.includes("unknown option '--zz-unknown'");
    // "option '--max-turns <turns>' argument …": how the CLI names it.
    const usage = new RegExp(`option '(${name} [^']+)'`).exec(text)?.[1] ?? name;
    found.push({ names: [name], value: flag ? 'none' : 'required', usage });
  }
  return found;
}

const fromArg = process.argv.includes('--from') ? process.argv[process.argv.indexOf('--from') + 1] : undefined;
const dir = fromArg ?? mkdtempSync(join(tmpdir(), 'harness-cli-flags-'));
try {
  if (!fromArg) installClis(dir, CLIS);
  const out: Record<string, { version: string; commands: Record<string, CliOption[]> }> = {};
  for (const cli of CLIS) {
    const bin = join(dir, 'node_modules/.bin', cli.bin);
    const version = (JSON.parse(readFileSync(join(dir, 'node_modules', cli.pkg, 'package.json'), 'utf8')) as { version: string }).version;
    if (version !== pinned(cli.pin)) throw new Error(`${cli.pkg} is ${version} in ${dir}, the workflow pins ${pinned(cli.pin)}`);
    const commands: Record<string, CliOption[]> = {};
    for (const [command, args] of Object.entries(cli.commands)) {
      const help = spawnSync(bin, args, { encoding: 'utf8', timeout: 30_000 });
      const options = parseHelp(`${help.stdout}\n${help.stderr}`);
      if (options.length === 0) throw new Error(`${cli.bin} ${args.join(' ')} listed no options`);
      commands[command] = cli.key === 'claude' ? [...options, ...hiddenClaudeOptions(bin, options)] : options;
    }
    out[cli.key] = { version, commands };
    console.log(
      `${cli.bin} ${version}: ${Object.entries(commands)
        .map(([c, o]) => `${c || '(top)'} ${o.length} options`)
        .join(', ')}`,
    );
  }
  writeFileSync(TARGET, `${JSON.stringify(out, null, 1)}\n`);
  console.log(`wrote ${TARGET}`);
} finally {
  if (!fromArg) rmSync(dir, { recursive: true, force: true });
}
