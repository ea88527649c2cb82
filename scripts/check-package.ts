// `npm run check:package`: the package as users get it. Packs this checkout (`npm pack`, which
// builds dist/ first), installs the tarball into an empty directory as a user would (the registry
// is read for what the npm cache lacks: .ci/run runs this where npm ci has just reached it; tests
// never do), and runs the installed `harness`: --help, validate on the example spec, and `mcp`
// answering an MCP client over stdio. Fails on any npm warning, and when the packages installed
// are not those the lockfile promises (scripts/package-tree.ts).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { installedForUsers, pkg, ROOT } from './package-tree.js';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const problems: string[] = [];
const say = (line: string) => console.log(`check:package: ${line}`);

function run(command: string, args: string[], cwd: string): { stdout: string; stderr: string; status: number } {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' }, maxBuffer: 64 * 1024 * 1024 });
  return { stdout: r.stdout ?? '', stderr: r.stderr ?? '', status: r.status ?? 1 };
}

/** npm's warnings in what it printed: `npm warn …` (npm 9+) and `npm WARN …` (earlier). */
function warnings(output: string): string[] {
  return output.split('\n').filter((l) => /^npm warn/i.test(l));
}

/** `name@version` of every package under `dir`'s node_modules, the package itself aside. */
function installedNames(dir: string): Set<string> {
  const out = execFileSync(NPM, ['ls', '--all', '--parseable', '--long'], { cwd: dir, encoding: 'utf8' });
  const names = new Set<string>();
  for (const line of out.trim().split('\n').slice(1)) {
    const id = line.slice(line.indexOf(':') + 1).split(':')[0]!;
    names.add(id.slice(0, id.lastIndexOf('@')));
  }
  names.delete(pkg.name);
  return names;
}

async function mcpAnswers(bin: string, cwd: string): Promise<string[]> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp'],
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'check-package', version: '1' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

async function check(work: string): Promise<void> {
  // 1. The tarball, as `npm publish` would make it.
  const packed = run(NPM, ['pack', '--json', '--pack-destination', work], ROOT);
  if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string; size: number; entryCount: number }[];
  say(`packed ${info!.filename}: ${info!.entryCount} files, ${(info!.size / 1024).toFixed(0)} KiB`);
  problems.push(...warnings(packed.stderr).map((w) => `npm pack: ${w}`));

  // 2. Installed into an empty project, as a user installs it.
  const user = join(work, 'user');
  execFileSync('mkdir', ['-p', user]);
  writeFileSync(join(user, 'package.json'), '{ "name": "a-user", "private": true }\n');
  const install = run(NPM, ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, info!.filename)], user);
  if (install.status !== 0) throw new Error(`npm install of the tarball failed:\n${install.stderr}`);
  problems.push(...warnings(`${install.stdout}\n${install.stderr}`).map((w) => `npm install: ${w}`));
  const got = installedNames(user);
  const promised = new Set([...installedForUsers().keys()].map((key) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length)));
  const extra = [...got].filter((n) => !promised.has(n)).sort();
  const missing = [...promised].filter((n) => !got.has(n)).sort();
  say(`installed ${got.size} packages besides ${pkg.name} (the lockfile promises ${promised.size})`);
  if (extra.length > 0 || missing.length > 0)
    problems.push(
      `the install differs from package-lock.json: ${extra.length > 0 ? `installed but not locked: ${extra.join(', ')}` : ''}${extra.length > 0 && missing.length > 0 ? '; ' : ''}${missing.length > 0 ? `locked but not installed: ${missing.join(', ')}` : ''} (run npm update and commit the lockfile)`,
    );

  // 3. The installed command.
  const bin = join(user, 'node_modules', pkg.name, 'bin', 'harness.js');
  const help = run(process.execPath, [bin, '--help'], user);
  if (help.status !== 0 || !help.stdout.startsWith('Usage: harness'))
    problems.push(`harness --help: exit ${help.status}, ${JSON.stringify(help.stdout.slice(0, 80))}`);
  const validate = run(process.execPath, [bin, 'validate', join(ROOT, 'examples', 'specs', 'SPC-001-notes-service')], user);
  if (validate.status !== 0 || !/: valid$/m.test(validate.stdout))
    problems.push(`harness validate on the example spec: exit ${validate.status}\n${validate.stdout}${validate.stderr}`);
  else say(`validate: ${validate.stdout.trim()}`);
  const tools = await mcpAnswers(bin, user).catch((e: unknown) => {
    problems.push(`harness mcp: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  });
  if (tools === undefined) return;
  if (tools.length === 0) problems.push('harness mcp: listed no tools');
  else say(`mcp: ${tools.length} tools (${tools.slice(0, 4).join(', ')}, …)`);
}

const work = mkdtempSync(join(tmpdir(), 'harness-package-'));
// npm pack builds dist/ (prepack); a checkout that had none gets none back, so that what runs after (the tests) runs as before.
const built = existsSync(join(ROOT, 'dist'));
try {
  await check(work);
} finally {
  rmSync(work, { recursive: true, force: true });
  if (!built) rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
}

if (problems.length > 0) {
  for (const p of problems) console.error(`check:package: ${p}`);
  process.exit(1);
}
say('the package installs without a warning and runs');
