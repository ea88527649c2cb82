/**
 * Validate+graph, end to end, on generated specs of growing size: readSpecFiles (the
 * local adapter reading every file) + loadSpec (parse and check) + analyzeGraph (order,
 * critical path, conflicts): what `harness validate` and `harness graph` do.
 *
 * Each size is measured in a fresh child process, on bare Node (the code compiled to
 * JavaScript first, as the shipped CLI is): one cold run, then RUNS warm runs, with a GC
 * before each. Time is the median of the warm runs (the cold one is reported beside
 * it), with the CPU time of the same runs, which other work on a shared machine sways
 * less. Memory is the child's peak resident set size (getrusage maxrss) after the cold
 * run, that is what one `harness validate` process costs, not the V8 heap: the files'
 * bytes live outside the heap, and RSS is what the machine (or an Actions runner)
 * actually has to give the process. The peak after all runs is kept in the results too.
 *
 * By default every size is measured, 500 to 50,000 plans, the two largest with fewer warm
 * runs (each takes seconds), so that the growth is printed on every run of the benchmark.
 *
 *   npm run bench -- spec [--runs 7] [--sizes 500,5000,20000,50000] [--keep]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileForNode, median, option, runChild, type BenchModule, type Row, type Target } from './lib.js';
import type { ChildResult } from './spec-child.js';
import { generateSpec, writeSpec } from './spec-gen.js';

const SIZES = [
  { plans: 500, phases: 10, edges: 2_000, runs: 7 },
  { plans: 5_000, phases: 100, edges: 20_000, runs: 7 },
  { plans: 20_000, phases: 400, edges: 80_000, runs: 3 },
  { plans: 50_000, phases: 500, edges: 200_000, runs: 3 },
];
const TARGET = { plans: 5_000, ms: 400, rssMB: 200 };
const CHILD = fileURLToPath(new URL('./spec-child.ts', import.meta.url));

const mb = (kb: number) => Math.round(kb / 1024);
const fixed = (x: number, digits = 0) => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

const spec: BenchModule = {
  name: 'spec',
  description: 'validate + graph end to end (readSpecFiles + loadSpec + analyzeGraph) on generated specs',
  async run({ args, log }) {
    const given = option(args, 'runs');
    const runsOption = given === undefined ? undefined : Number(given);
    if (runsOption !== undefined && (!Number.isInteger(runsOption) || runsOption < 1)) throw new Error('--runs must be a whole number of at least 1');
    const only = option(args, 'sizes')?.split(',').map(Number);
    const sizes = only ? SIZES.filter((s) => only.includes(s.plans)) : SIZES;
    const keep = args.includes('--keep');

    const child = await compileForNode(CHILD);
    const rows: Row[] = [];
    const results = [];
    for (const { runs: defaultRuns, ...size } of sizes) {
      const runs = runsOption ?? defaultRuns;
      const dir = await mkdtemp(join(tmpdir(), `harness-bench-${size.plans}-`));
      try {
        const generated = generateSpec(size);
        const written = await writeSpec(dir, generated);
        log(`${size.plans} plans: wrote ${written.files} files (${fixed(written.bytes / 2 ** 20, 1)} MiB) to ${dir}; measuring ${runs + 1} runs`);
        const measured = await runChild<ChildResult>(child, [dir, String(runs)], ['--expose-gc']);
        if (!measured.valid || measured.plans !== size.plans || measured.edges !== size.edges) {
          throw new Error(
            `the generated spec of ${size.plans} plans did not load as expected: valid ${measured.valid}, ${measured.errors} errors, ${measured.plans} plans, ${measured.edges} edges`,
          );
        }
        const warm = measured.samples.slice(1);
        const total = median(warm.map((s) => s.totalMs));
        const result = {
          ...size,
          files: written.files,
          bytes: written.bytes,
          runs,
          coldMs: measured.samples[0]!.totalMs,
          medianMs: total,
          minMs: Math.min(...warm.map((s) => s.totalMs)),
          maxMs: Math.max(...warm.map((s) => s.totalMs)),
          medianReadMs: median(warm.map((s) => s.readMs)),
          medianLoadMs: median(warm.map((s) => s.loadMs)),
          medianGraphMs: median(warm.map((s) => s.graphMs)),
          medianCpuMs: median(warm.map((s) => s.cpuMs)),
          usPerPlan: (total * 1000) / size.plans,
          baselineRssMB: mb(measured.baselineRssKB),
          peakRssMB: mb(measured.coldMaxRssKB),
          peakRssAllRunsMB: mb(measured.maxRssKB),
          conflicts: measured.conflicts,
          criticalPath: measured.criticalPath,
          samples: measured.samples,
        };
        results.push(result);
        rows.push({
          plans: fixed(size.plans),
          runs,
          phases: fixed(size.phases),
          edges: fixed(size.edges),
          'MiB read': fixed(written.bytes / 2 ** 20, 1),
          'median ms': fixed(total),
          'cpu ms': fixed(result.medianCpuMs),
          'cold ms': fixed(result.coldMs),
          'read / load / graph ms': `${fixed(result.medianReadMs)} / ${fixed(result.medianLoadMs)} / ${fixed(result.medianGraphMs)}`,
          'µs per plan': fixed(result.usPerPlan, 1),
          'peak RSS MB': result.peakRssMB,
          'baseline MB': result.baselineRssMB,
          conflicts: fixed(measured.conflicts),
        });
        log(`${size.plans} plans: median ${fixed(total)} ms, peak RSS ${result.peakRssMB} MB`);
      } finally {
        if (keep) log(`kept ${dir}`);
        else await rm(dir, { recursive: true, force: true });
      }
    }

    const targets: Target[] = [];
    const at = results.find((r) => r.plans === TARGET.plans);
    if (at) {
      targets.push({
        name: `${fixed(TARGET.plans)} plans in under ${fixed(TARGET.ms)} ms`,
        met: at.medianMs < TARGET.ms,
        detail: `median ${fixed(at.medianMs)} ms (cold ${fixed(at.coldMs)} ms)`,
      });
      targets.push({
        name: `${fixed(TARGET.plans)} plans in under ${TARGET.rssMB} MB`,
        met: at.peakRssMB < TARGET.rssMB,
        detail: `peak RSS ${at.peakRssMB} MB (of which ${at.baselineRssMB} MB before any work)`,
      });
    }
    if (results.length >= 2) {
      // Roughly linear: per-plan time at the largest size within 2x of the smallest.
      const first = results[0]!;
      const last = results[results.length - 1]!;
      const ratio = last.usPerPlan / first.usPerPlan;
      targets.push({
        name: 'growth roughly linear (µs per plan within 2x from smallest to largest)',
        met: ratio < 2,
        detail: `${results.map((r) => `${fixed(r.usPerPlan, 1)} µs/plan at ${fixed(r.plans)}`).join(', ')} (x${fixed(ratio, 2)} from smallest to largest)`,
      });
    }
    return {
      notes: [
        `Each size in a fresh child process on bare Node (compiled JS, as the CLI ships): 1 cold run, then "runs" warm runs`,
        'with a GC before each; "median ms" is the median of the warm runs, "cold ms" the first run of the process.',
        '"cpu ms": median CPU time (user + system, all threads) of the same runs; "µs per plan": median ms / plans.',
        "Memory: the child's peak RSS (process.resourceUsage().maxRSS) after the cold run, i.e. one validate+graph in a process,",
        'which counts the file bytes held outside the V8 heap; "baseline MB" is its RSS before any work (Node and the loaded code).',
      ],
      rows,
      targets,
      results: {
        runs: runsOption ?? 'per size',
        memory: 'peakRssMB: peak RSS (getrusage maxrss) of the child after its cold run, MB; peakRssAllRunsMB: after all runs',
        sizes: results,
      },
    };
  },
};

export default spec;
