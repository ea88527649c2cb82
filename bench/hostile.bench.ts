/**
 * The hostile-input benchmark (issue 10): each attack on the validator that once hung or
 * crashed it, fed to `harness validate` in a fresh process, with the wall time and the
 * peak memory (maxRSS) of that process; then `graph` and `simulate` on 3,000 plans whose
 * globs overlap, and a catastrophic `file_contains.pattern` under a 5 s timeout_seconds.
 * Each input runs RUNS times; the table shows medians (memory: the largest).
 *
 *   npm run bench -- hostile [--runs 3]
 *
 * The children run compiled JavaScript on bare Node (compileForNode), as the shipped CLI
 * does: tsx's loader would add its own time and memory to every measurement.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostileInputs, writeHostile } from './hostile-inputs.js';
import { overlappingSpec } from './hostile-graph-spec.js';
import type { HostileChildResult } from './hostile-child.js';
import { compileForNode, median, option, runChild, type BenchModule, type Row, type Target } from './lib.js';

const DEFAULT_RUNS = 3;
const LIMITS = { validateMs: 2_000, validateMB: 300, graphMs: 5_000, patternTimeoutS: 5, patternMs: 6_000 };
const CHILD = fileURLToPath(new URL('./hostile-child.ts', import.meta.url));
const CATASTROPHIC = '^(a+)+$';

interface Case {
  name: string;
  attack: string;
  args: string[];
  /** The target this case is held to. */
  target: { ms: number; mb?: number; label: string };
}

const hostile: BenchModule = {
  name: 'hostile',
  description: 'hostile specs through harness validate, graph and simulate on 3,000 overlapping plans, a catastrophic pattern under its timeout',
  async run({ args, log }) {
    const runs = Number(option(args, 'runs') ?? DEFAULT_RUNS);
    const root = await mkdtemp(join(tmpdir(), 'harness-hostile-bench-'));
    try {
      const cases: Case[] = [];
      for (const input of hostileInputs()) {
        const dir = await writeHostile(root, input);
        cases.push({
          name: input.name,
          attack: input.attack,
          args: ['cli', 'validate', dir],
          target: { ms: LIMITS.validateMs, mb: LIMITS.validateMB, label: 'validate' },
        });
      }
      const overlap = join(root, 'overlapping-3000');
      for (const [path, text] of overlappingSpec(3_000)) {
        await mkdir(dirname(join(overlap, path)), { recursive: true });
        await writeFile(join(overlap, path), text);
      }
      cases.push({
        name: 'graph-3000-overlapping',
        attack: '`harness graph` on 3,000 plans with overlapping globs',
        args: ['cli', 'graph', overlap],
        target: { ms: LIMITS.graphMs, label: 'graph' },
      });
      cases.push({
        name: 'simulate-3000-overlapping',
        attack: '`harness simulate` on the same spec',
        args: ['cli', 'simulate', overlap],
        target: { ms: LIMITS.graphMs, label: 'simulate' },
      });
      const patternDir = join(root, 'pattern');
      await mkdir(patternDir, { recursive: true });
      await writeFile(join(patternDir, 'input.txt'), `${'a'.repeat(64)}!\n`);
      cases.push({
        name: 'catastrophic-pattern',
        attack: `file_contains.pattern /${CATASTROPHIC}/ on a line of 64 a's, timeout_seconds ${LIMITS.patternTimeoutS}`,
        args: ['pattern', patternDir, CATASTROPHIC, String(LIMITS.patternTimeoutS)],
        target: { ms: LIMITS.patternMs, label: 'pattern' },
      });

      const child = await compileForNode(CHILD);
      const rows: Row[] = [];
      const targets: Target[] = [];
      const results: unknown[] = [];
      for (const c of cases) {
        const samples: HostileChildResult[] = [];
        for (let k = 0; k < runs; k++) {
          log(`${c.name} (${k + 1}/${runs})`);
          samples.push(await runChild<HostileChildResult>(child, c.args));
        }
        const ms = median(samples.map((s) => s.ms));
        const mb = Math.max(...samples.map((s) => s.maxRssKB)) / 1024;
        const first = samples[0]!;
        rows.push({
          input: c.name,
          'median ms': Math.round(ms),
          'peak MB': Math.round(mb),
          exit: first.code,
          'output KB': Math.round(first.outBytes / 1024),
          verdict: first.last.replace(root, '…').slice(0, 90),
        });
        results.push({
          name: c.name,
          attack: c.attack,
          ms,
          samples: samples.map((s) => s.ms),
          peakMB: mb,
          exit: first.code,
          outBytes: first.outBytes,
          last: first.last.replace(root, '…'),
        });
        const timeOk = ms < c.target.ms;
        const memOk = c.target.mb === undefined || mb < c.target.mb;
        // An internal error (exit 70) is the crash this benchmark exists to catch.
        const answered = first.code !== 70;
        targets.push({
          name: `${c.name}: ${c.target.label} under ${c.target.ms / 1000} s${c.target.mb ? ` and ${c.target.mb} MB` : ''}, answered without an internal error`,
          met: timeOk && memOk && answered,
          detail: `${Math.round(ms)} ms, ${Math.round(mb)} MB, exit ${first.code}`,
        });
      }
      return {
        notes: [
          `Each input in a fresh Node process running the compiled CLI in process (bench/hostile-child.ts); median of ${runs} runs, peak RSS the largest of them.`,
          'The inputs are bench/hostile-inputs.ts (the attacks of issue 10) and bench/hostile-graph-spec.ts (3,000 plans: globs over twelve areas, a tenth writing src/**, most writing docs/*.md).',
        ],
        rows,
        targets,
        results,
      };
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  },
};

export default hostile;
