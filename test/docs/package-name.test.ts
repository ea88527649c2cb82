import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NPX_MCP, PACKAGE_NAME } from '../../app/cli/package-name.js';
import { runCli } from '../helpers/cli.js';

/**
 * `harness` on the npm registry is an unrelated package (a test organizer): `npx harness`
 * outside a checkout downloads and runs it. harness is published as PACKAGE_NAME, its command
 * stays `harness`, and no page, template or help text tells anyone to run `npx harness`.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; bin: Record<string, string> };

function filesUnder(dir: string, ends: string[]): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => ends.some((e) => f.endsWith(e)))
    .map((f) => `${dir}/${f}`);
}

const TEXTS = [
  'README.md',
  'app.yml',
  ...filesUnder('docs', ['.md']),
  ...filesUnder('templates', ['.md', '.yml']),
  ...filesUnder('app', ['.ts']),
  ...filesUnder('examples', ['.md']),
];
/** `npx harness`, `npx -y harness`, and npx's JSON form `"command": "npx", "args": ["harness"…`. */
const STRANGER = /npx\s+(?:(?:-y|--yes)\s+)?harness(?![\w-])|"npx",\s*"args":\s*\[\s*(?:"-y",\s*)?"harness"/;

describe('the package name', () => {
  it('is the one the CLI knows itself by, with the command still called harness', async () => {
    expect(pkg.name).toBe(PACKAGE_NAME);
    expect(pkg.name).not.toBe('harness');
    expect(Object.keys(pkg.bin)).toEqual(['harness']);
    // version() finds the package.json by this name; a mismatch prints "unknown".
    expect((await runCli(['--version'])).stdout).toBe(`${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`);
  });

  it('is never `npx harness` in a page, a template or a source file', () => {
    expect(TEXTS.length).toBeGreaterThan(50);
    const wrong = TEXTS.flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (STRANGER.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(wrong).toEqual([]);
  });

  it("is never `npx harness` in any command's --help, and harness mcp --help names commands that run this CLI", async () => {
    const top = (await runCli(['--help'])).stdout;
    const commands = [...top.matchAll(/^ {2}([a-z][a-z-]+)\s{2,}/gm)].map((m) => m[1]!);
    expect(commands).toContain('mcp');
    for (const command of commands) {
      const r = await runCli([command, '--help']);
      expect(STRANGER.test(r.stdout + r.stderr), `harness ${command} --help`).toBe(false);
    }
    const mcp = (await runCli(['mcp', '--help'])).stdout;
    const added = [...mcp.matchAll(/claude mcp add harness -- (.+)$/gm)].map((m) => m[1]!.trim());
    expect(added).toEqual(['harness mcp', NPX_MCP]);
  });

  it('is how every MCP snippet of the docs starts the server: harness on PATH, or npx of this package', () => {
    const snippets = TEXTS.filter((f) => f.endsWith('.md')).flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/claude mcp add harness -- (.+)$/gm)].map((m) => `${file}: ${m[1]!.trim()}`),
    );
    expect(snippets.length).toBeGreaterThan(0);
    for (const s of snippets) expect([`harness mcp`, NPX_MCP]).toContain(s.split(': ')[1]);
    // The README's first screen says how to get the command, under the published name.
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const firstScreen = readme.slice(0, readme.indexOf('## How it works'));
    expect(firstScreen).toContain('npm link');
    expect(firstScreen).toContain(`npx -y ${PACKAGE_NAME}`);
  });
});
