/**
 * Bundles every action under actions/ into the one file its action.yml runs, so that a
 * workflow using it needs no install step: actions/<name>/src/index.ts becomes
 * actions/<name>/dist/index.js. The bundles are committed; `--check` rebuilds them in memory
 * and fails, naming each file, when what is committed is not what the sources build to.
 *
 *   npm run build:actions              write the bundles
 *   npm run build:actions -- --check   fail if any bundle is stale or missing
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Probot, pino and Octokit are ES modules or ship both kinds; some of what they pull in is
 * CommonJS that calls `require` for Node's built-ins, which an ES module bundle does not have.
 * The names are unlikely to collide with anything bundled (esbuild cannot see into a banner).
 */
const BANNER = ["import { createRequire as __harnessCreateRequire } from 'node:module';", 'const require = __harnessCreateRequire(import.meta.url);'].join(
  '\n',
);

/**
 * Files a bundled dependency looks for beside the bundle when it runs, which esbuild cannot
 * inline: copied into the action's dist/ when its bundle holds that dependency (found by a
 * marker in the bundle), and checked like the bundle. sandbox-runtime looks for its seccomp
 * helper and its JVM proxy agent in dist/vendor/ (its generate-seccomp-filter.js and
 * java-proxy-agent.js).
 */
const BESIDE = [
  {
    marker: 'apply-seccomp',
    from: 'node_modules/@anthropic-ai/sandbox-runtime/vendor',
    to: 'vendor',
    files: ['seccomp/x64/apply-seccomp', 'seccomp/arm64/apply-seccomp', 'java-proxy-agent/srt-proxy-agent.jar'],
  },
];

/** The files to copy beside a bundle: source and target, relative to the root. */
export function besideFiles(action: ActionBundle, bundle: Uint8Array): { from: string; to: string }[] {
  const text = Buffer.from(bundle).toString('utf8');
  const dist = dirname(action.outfile);
  return BESIDE.filter((b) => text.includes(b.marker)).flatMap((b) => b.files.map((f) => ({ from: `${b.from}/${f}`, to: `${dist}/${b.to}/${f}` })));
}

function sameFile(root: string, file: { from: string; to: string }): boolean {
  const target = join(root, file.to);
  if (!existsSync(target)) return false;
  const source = join(root, file.from);
  return readFileSync(source).equals(readFileSync(target)) && (statSync(source).mode & 0o111) === (statSync(target).mode & 0o111);
}

export interface ActionBundle {
  /** The action's folder name under actions/. */
  name: string;
  /** Relative to the repository root, with forward slashes, as people and CI print them. */
  entry: string;
  outfile: string;
}

/** Every actions/<name>/src/index.ts, sorted so that output and messages never depend on the file system's order. */
export function findActions(root: string = ROOT): ActionBundle[] {
  const actionsDir = join(root, 'actions');
  if (!existsSync(actionsDir)) return [];
  return readdirSync(actionsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(actionsDir, entry.name, 'src', 'index.ts')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => ({ name, entry: `actions/${name}/src/index.ts`, outfile: `actions/${name}/dist/index.js` }));
}

/** The bundle's bytes. Deterministic: no timestamps, no absolute paths, no source maps. */
export async function bundleAction(action: ActionBundle, root: string = ROOT): Promise<Uint8Array> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [action.entry],
    outfile: action.outfile,
    bundle: true,
    platform: 'node',
    // probot 14, its adapter and @actions/core 3 ship only ES modules. Node reads
    // dist/index.js as one because the root package.json says "type": "module" (an action is
    // checked out with its whole repository).
    format: 'esm',
    // The runtime action.yml names (runs.using: node24): nothing is lowered for older Nodes.
    target: 'node24',
    banner: { js: BANNER },
    // The dependencies' licence comments are kept, gathered at the end of the file.
    legalComments: 'eof',
    charset: 'utf8',
    sourcemap: false,
    write: false,
    logLevel: 'silent',
  }).catch((error: unknown) => {
    throw new Error(`${action.entry} does not bundle: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  });
  const [output] = result.outputFiles;
  if (!output || result.outputFiles.length !== 1) throw new Error(`${action.entry}: expected one output file, got ${result.outputFiles.length}`);
  return output.contents;
}

export interface CheckResult {
  /** Bundles that differ from what their sources build to, or are missing. */
  stale: string[];
  /** Bundles whose action has no src/index.ts any more. */
  orphaned: string[];
}

/** Rebuilds every bundle in memory and compares it with the file on disk. */
export async function checkActions(root: string = ROOT): Promise<CheckResult> {
  const actions = findActions(root);
  const stale: string[] = [];
  for (const action of actions) {
    const built = await bundleAction(action, root);
    const path = join(root, action.outfile);
    if (!existsSync(path) || !Buffer.from(built).equals(readFileSync(path))) stale.push(action.outfile);
    for (const file of besideFiles(action, built)) if (!sameFile(root, file)) stale.push(file.to);
  }
  const built = new Set(actions.map((a) => a.outfile));
  const actionsDir = join(root, 'actions');
  const orphaned = existsSync(actionsDir)
    ? readdirSync(actionsDir)
        .sort()
        .map((name) => `actions/${name}/dist/index.js`)
        .filter((outfile) => existsSync(join(root, outfile)) && !built.has(outfile))
    : [];
  return { stale, orphaned };
}

/** Writes every bundle; returns the files that changed. */
export async function writeActions(root: string = ROOT): Promise<string[]> {
  const changed: string[] = [];
  for (const action of findActions(root)) {
    const built = await bundleAction(action, root);
    const path = join(root, action.outfile);
    for (const file of besideFiles(action, built)) {
      if (sameFile(root, file)) continue;
      mkdirSync(dirname(join(root, file.to)), { recursive: true });
      writeFileSync(join(root, file.to), readFileSync(join(root, file.from)));
      chmodSync(join(root, file.to), statSync(join(root, file.from)).mode & 0o777);
      changed.push(file.to);
    }
    if (existsSync(path) && Buffer.from(built).equals(readFileSync(path))) continue;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, built);
    changed.push(action.outfile);
  }
  return changed;
}

async function main(argv: string[]): Promise<number> {
  try {
    return await runCommand(argv);
  } catch (error) {
    // esbuild's message already lists every unresolved import or syntax error as file:line.
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

async function runCommand(argv: string[]): Promise<number> {
  const unknown = argv.filter((arg) => arg !== '--check');
  if (unknown.length > 0) {
    console.error(`usage: build-actions [--check]  (unknown: ${unknown.join(' ')})`);
    return 2;
  }
  if (argv.includes('--check')) {
    const { stale, orphaned } = await checkActions();
    for (const file of stale) console.error(`${file}: stale or missing; run npm run build:actions and commit it`);
    for (const file of orphaned) console.error(`${file}: its action has no src/index.ts; delete it`);
    if (stale.length + orphaned.length > 0) return 1;
    console.log(`actions bundles are fresh (${findActions().length})`);
    return 0;
  }
  const changed = await writeActions();
  for (const file of changed) console.log(`wrote ${file}`);
  if (changed.length === 0) console.log('actions bundles were already fresh');
  return 0;
}

// Run as a script, not when a test imports the functions above.
if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  process.exitCode = await main(process.argv.slice(2));
}
