/**
 * One measurement of validate+graph, in a process of its own (started by spec.bench.ts):
 * `spec-child.ts <spec-dir> <runs>`. Runs readSpecFiles + loadSpec + analyzeGraph once
 * cold and then `runs` more times, and prints the timings and peak memory as JSON.
 */
import { performance } from 'node:perf_hooks';
import { analyzeGraph } from '../app/engine/core/analysis/analyze.js';
import { loadSpec } from '../app/engine/core/spec/load.js';
import { readSpecFiles } from '../app/machine/spec-files.js';
import { PLAN_READING } from '../app/engine/importers/dialects.js';

export interface Sample {
  readMs: number;
  loadMs: number;
  graphMs: number;
  totalMs: number;
  /** CPU time (user + system, all threads) of the run: less swayed than wall time by other work on the machine. */
  cpuMs: number;
}

export interface ChildResult {
  /** samples[0] is the cold run (a fresh process, as `harness validate` is); the rest are warm. */
  samples: Sample[];
  /** RSS after the modules were loaded, before any work: Node, tsx and the engine's code. */
  baselineRssKB: number;
  /** Peak RSS (getrusage maxrss) after the cold run (what one `harness validate` costs), and after all runs. */
  coldMaxRssKB: number;
  maxRssKB: number;
  valid: boolean;
  errors: number;
  plans: number;
  edges: number;
  conflicts: number;
  criticalPath: number;
}

async function main(): Promise<void> {
  const [dir, runsArg] = process.argv.slice(2);
  if (!dir || !runsArg) throw new Error('usage: spec-child.ts <spec-dir> <runs>');
  const runs = Number(runsArg);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const baselineRssKB = Math.round(process.memoryUsage().rss / 1024);
  const samples: Sample[] = [];
  let coldMaxRssKB = 0;
  let summary: Pick<ChildResult, 'valid' | 'errors' | 'plans' | 'edges' | 'conflicts' | 'criticalPath'> | undefined;
  for (let r = 0; r <= runs; r++) {
    // Collect the previous run's garbage first, so each run's peak is its own.
    gc?.();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const files = await readSpecFiles(dir);
    const t1 = performance.now();
    const loaded = loadSpec(files, PLAN_READING);
    const t2 = performance.now();
    const analysis = analyzeGraph(loaded.spec!);
    const t3 = performance.now();
    const cpu = process.cpuUsage(cpu0);
    samples.push({ readMs: t1 - t0, loadMs: t2 - t1, graphMs: t3 - t2, totalMs: t3 - t0, cpuMs: (cpu.user + cpu.system) / 1000 });
    if (r === 0) {
      coldMaxRssKB = process.resourceUsage().maxRSS;
      summary = {
        valid: loaded.valid,
        errors: loaded.problems.filter((p) => p.severity === 'error').length,
        plans: loaded.spec?.plans.length ?? 0,
        edges: analysis.graph.edgeCount,
        conflicts: analysis.conflicts.length,
        criticalPath: analysis.critical.path.length,
      };
    }
  }
  const result: ChildResult = { samples, baselineRssKB, coldMaxRssKB, maxRssKB: process.resourceUsage().maxRSS, ...summary! };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
