/**
 * CLI start-up and the checkout CLI against the compiled one: `harness --help`, and
 * `harness validate` on a generated spec of 5,000 plans, each run as a person runs it, in
 * a fresh process, timed from spawn to exit:
 *  - node alone (`node -e ""`), the floor every command pays;
 *  - the compiled CLI (dist/app/cli/main.js, what the published package runs);
 *  - the checkout's bin/harness.js, which runs dist/ when it is built from the sources as
 *    they are (built first here when it is not), and through tsx with HARNESS_FROM_SOURCE=1.
 *
 *   npm run bench -- cli [--runs 7] [--plans 5000]
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { median, option, type BenchModule, type Row, type Target } from './lib.js';
import { generateSpec, writeSpec } from './spec-gen.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'harness.js');
const COMPILED = join(ROOT, 'dist', 'app', 'cli', 'main.js');
const HELP_TARGET_MS = 260;
const CHECKOUT_RATIO = 1.3;

function timed(args: string[], env: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    execFile(process.execPath, args, { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, stderr) => {
      const ms = performance.now() - start;
      // validate exits 0 on a valid spec; --help exits 0: anything else is a broken measurement.
      if (error) reject(new Error(`node ${args.join(' ')} failed: ${error.message}\n${stderr}`));
      else resolve(ms);
    });
  });
}

async function sample(runs: number, args: string[], env?: Record<string, string>): Promise<number[]> {
  await timed(args, env); // warms the file cache; not counted
  const out: number[] = [];
  for (let i = 0; i < runs; i++) out.push(await timed(args, env));
  return out;
}

/** What bin/harness.js would run now: asks it the same question it asks itself. */
function binRunsCompiled(): boolean {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', FRESHNESS], { cwd: ROOT, encoding: 'utf8' });
  return out.trim() === 'fresh';
}

// The check bin/harness.js makes, run on its own (importing the bin would run the CLI).
const FRESHNESS = `
import { readdirSync, statSync } from 'node:fs';
let built; try { built = statSync('dist/app/cli/main.js').mtimeMs; } catch { console.log('stale'); process.exit(0); }
for (const e of readdirSync('app', { recursive: true, withFileTypes: true })) {
  if (e.isFile() && e.name.endsWith('.ts') && statSync(e.parentPath + '/' + e.name).mtimeMs > built) { console.log('stale'); process.exit(0); }
}
console.log('fresh');
`;

const fixed = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });

const cli: BenchModule = {
  name: 'cli',
  description: 'CLI start-up (harness --help) and validate on 5,000 plans: compiled, and from a checkout',
  async run({ args, log }) {
    const runs = Number(option(args, 'runs') ?? 7);
    const plans = Number(option(args, 'plans') ?? 5000);
    if (!binRunsCompiled()) {
      log('dist/ is older than the sources: building it (npm run build), as a checkout that runs the built CLI would');
      execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')], {
        cwd: ROOT,
        stdio: 'inherit',
      });
    }
    if (!binRunsCompiled()) throw new Error('dist/ is still not fresh after building it');
    const dir = await mkdtemp(join(tmpdir(), 'harness-bench-cli-'));
    try {
      await writeSpec(dir, generateSpec({ plans, phases: Math.max(1, plans / 50), edges: plans * 4 }));
      const cases: { command: string; how: string; args: string[]; env?: Record<string, string> }[] = [
        { command: '(nothing)', how: 'node -e ""', args: ['-e', ''] },
        { command: '--help', how: 'compiled (dist/)', args: [COMPILED, '--help'] },
        { command: '--help', how: 'checkout bin/harness.js (dist/ fresh)', args: [BIN, '--help'] },
        { command: '--help', how: 'checkout bin/harness.js from source (tsx)', args: [BIN, '--help'], env: { HARNESS_FROM_SOURCE: '1' } },
        { command: `validate (${fixed(plans)} plans)`, how: 'compiled (dist/)', args: [COMPILED, 'validate', dir] },
        { command: `validate (${fixed(plans)} plans)`, how: 'checkout bin/harness.js (dist/ fresh)', args: [BIN, 'validate', dir] },
        {
          command: `validate (${fixed(plans)} plans)`,
          how: 'checkout bin/harness.js from source (tsx)',
          args: [BIN, 'validate', dir],
          env: { HARNESS_FROM_SOURCE: '1' },
        },
      ];
      const rows: Row[] = [];
      const medians = new Map<string, number>();
      for (const c of cases) {
        log(`${c.command}, ${c.how}: ${runs} runs`);
        const samples = await sample(runs, c.args, c.env);
        const m = median(samples);
        medians.set(`${c.command}|${c.how}`, m);
        rows.push({ command: c.command, how: c.how, 'median ms': fixed(m), 'min ms': fixed(Math.min(...samples)), 'max ms': fixed(Math.max(...samples)) });
      }
      const at = (command: string, how: string) => medians.get(`${command}|${how}`)!;
      const validate = `validate (${fixed(plans)} plans)`;
      const helpCompiled = at('--help', 'compiled (dist/)');
      const ratio = at(validate, 'checkout bin/harness.js (dist/ fresh)') / at(validate, 'compiled (dist/)');
      const targets: Target[] = [
        {
          name: `harness --help under ${HELP_TARGET_MS} ms compiled`,
          met: helpCompiled < HELP_TARGET_MS,
          detail: `median ${fixed(helpCompiled)} ms (node alone: ${fixed(at('(nothing)', 'node -e ""'))} ms)`,
        },
        {
          name: `checkout CLI within ${CHECKOUT_RATIO}x of the compiled one (validate, ${fixed(plans)} plans)`,
          met: ratio <= CHECKOUT_RATIO,
          detail: `x${ratio.toFixed(2)}`,
        },
      ];
      return {
        notes: [
          `Each command in a fresh process, timed from spawn to exit; median of ${runs} runs after one unmeasured run.`,
          "The checkout's bin/harness.js runs dist/ when it is newer than every source under app/ (checked on each start), the sources through tsx otherwise.",
        ],
        rows,
        targets,
        results: { runs, plans, medians: Object.fromEntries(medians) },
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

export default cli;
