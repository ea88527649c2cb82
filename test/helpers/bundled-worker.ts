import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { besideFiles, bundleAction, findActions } from '../../scripts/build-actions.js';
import { ROOT } from './paths.js';

/** The worker action bundled as the lead ships it (esbuild, one ES module file), in a directory of its own. */
export async function bundleWorker(): Promise<string> {
  const action = findActions().find((a) => a.name === 'worker');
  if (!action) throw new Error('no actions/worker/src/index.ts');
  // Laid out as a workflow gets it: the whole repository, the bundle at actions/worker/dist/.
  const root = mkdtempSync(join(tmpdir(), 'harness-worker-bundle-'));
  const dir = join(root, 'actions', 'worker', 'dist');
  mkdirSync(dir, { recursive: true });
  // Node reads the bundle as an ES module because of the root package.json, as in the repository.
  writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n');
  symlinkSync(join(ROOT, 'templates'), join(root, 'templates'));
  const built = await bundleAction(action);
  writeFileSync(join(dir, 'index.js'), built);
  // What the bundle looks for beside itself (sandbox-runtime's seccomp helper), as build:actions copies it.
  for (const file of besideFiles(action, built)) {
    const target = join(root, file.to);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(ROOT, file.from), target);
  }
  return join(dir, 'index.js');
}

export interface RunnerDirs {
  /** $GITHUB_WORKSPACE: the checkout. */
  workspace: string;
  /** $RUNNER_TEMP. */
  temp: string;
  /** ~/.claude of this runner. */
  claudeHome: string;
}

export interface ActionRun {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  /** Milliseconds from the process's start to the first call of the agent, when it was called. */
}

/**
 * Run the bundled action as Actions runs it: `node index.js` with INPUT_* and GITHUB_* in its
 * environment, GITHUB_API_URL on the local fake, outputs and the summary in files.
 */
export async function runAction(bundle: string, runner: RunnerDirs, inputs: Record<string, string>, env: Record<string, string>): Promise<ActionRun> {
  mkdirSync(runner.temp, { recursive: true });
  const files = mkdtempSync(join(tmpdir(), 'harness-action-files-'));
  const output = join(files, 'output');
  const summary = join(files, 'summary');
  writeFileSync(output, '');
  writeFileSync(summary, '');
  const child = spawn(process.execPath, [...(process.env.HARNESS_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.HARNESS_CPU_PROF}`] : []), bundle], {
    cwd: runner.workspace,
    env: {
      ...env,
      ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
      GITHUB_WORKSPACE: runner.workspace,
      RUNNER_TEMP: runner.temp,
      CLAUDE_CONFIG_DIR: runner.claudeHome,
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: summary,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr, outputs: parseOutputs(readFileSync(output, 'utf8')), summary: readFileSync(summary, 'utf8') };
}

/** GITHUB_OUTPUT's `name<<delimiter` blocks. */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /^(.+?)<<(.+)\n([\s\S]*?)\n\2$/gm;
  for (const m of text.matchAll(re)) out[m[1]!] = m[3]!;
  return out;
}
