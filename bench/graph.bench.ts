/**
 * `harness graph`'s analysis at scale, in process: order, critical path and the write
 * conflicts between plans that may run at once (analyzeGraph), on
 *  - the generated specs of the spec benchmark (spec-gen.ts) at 5,000 and 50,000 plans,
 *    read from their PLAN.md text (ids, depends_on, files_modified), and
 *  - 3,000 plans whose globs overlap heavily: every plan writes a glob over one of a few
 *    areas, a tenth write the whole tree, so most pairs overlap and the dependency walks
 *    that tell concurrent pairs from ordered ones do almost all the work.
 * Median of RUNS runs after one warm-up; memory is the heap growth of one run.
 *
 *   npm run bench -- graph [--runs 5]
 */
import { analyzeGraph } from '../app/engine/core/analysis/analyze.js';
import type { Spec } from '../app/engine/core/spec/model.js';
import { median, mulberry32, option, type BenchModule, type Row, type Target } from './lib.js';
import { generateSpec } from './spec-gen.js';

const DEFAULT_RUNS = 5;
const TARGETS = { plans50k: 1_000, overlapping3k: 5_000 };

interface GraphPlan {
  id: string;
  dependsOn: string[];
  filesModified: string[];
}

/** The plans of a generated spec as the graph reads them. */
function fromGenerated(plans: number, phases: number, edges: number): GraphPlan[] {
  const g = generateSpec({ plans, phases, edges });
  const out: GraphPlan[] = [];
  for (const [path, text] of g.files) {
    if (!path.endsWith('-PLAN.md')) continue;
    const files = /^files_modified: \[(.*)\]$/m.exec(text)![1]!;
    out.push({ id: '', dependsOn: [], filesModified: files.split(', ').map((f) => f.slice(1, -1)) });
  }
  // Files are listed in plan order; ids and edges come from the generator itself.
  return out.map((p, i) => ({ ...p, id: g.ids[i]!, dependsOn: g.dependsOn[i]! }));
}

/** Many plans over few areas, globs everywhere, dependencies to a few recent plans. */
function overlapping(n: number): GraphPlan[] {
  const r = mulberry32(0x91ab);
  const areas = 12;
  return Array.from({ length: n }, (_, i) => {
    const area = `src/a${Math.floor(r() * areas)}`;
    const files = r() < 0.1 ? ['src/**'] : [`${area}/**`, `${area}/f${Math.floor(r() * 20)}.ts`, `docs/*.md`];
    const deps = new Set<string>();
    for (let k = 0; k < 3 && i > 0; k++) if (r() < 0.6) deps.add(`p${i - 1 - Math.floor(r() * Math.min(i, 40))}`);
    return { id: `p${i}`, dependsOn: [...deps], filesModified: files };
  });
}

function measure(plans: GraphPlan[], runs: number) {
  const spec = { plans } as unknown as Spec;
  analyzeGraph(spec);
  const ms: number[] = [];
  let conflicts = 0;
  let heapMB = 0;
  for (let k = 0; k < runs; k++) {
    globalThis.gc?.();
    const heap = process.memoryUsage().heapUsed;
    const start = performance.now();
    const a = analyzeGraph(spec);
    ms.push(performance.now() - start);
    heapMB = Math.max(heapMB, (process.memoryUsage().heapUsed - heap) / 2 ** 20);
    conflicts = a.conflicts.length;
  }
  return { ms: median(ms), conflicts, heapMB: Math.round(heapMB) };
}

const graph: BenchModule = {
  name: 'graph',
  description: "harness graph's analysis (order, critical path, concurrent write conflicts) at 5,000 and 50,000 plans and on heavily overlapping globs",
  async run({ args, log }) {
    const runs = Number(option(args, 'runs') ?? DEFAULT_RUNS);
    const cases = [
      { name: 'generated', plans: 5_000, make: () => fromGenerated(5_000, 100, 20_000) },
      { name: 'generated', plans: 50_000, make: () => fromGenerated(50_000, 999, 200_000) },
      { name: 'overlapping globs', plans: 3_000, make: () => overlapping(3_000) },
    ];
    const rows: Row[] = [];
    const results = [];
    for (const c of cases) {
      log(`${c.name}, ${c.plans} plans: generating, then ${runs + 1} runs`);
      const m = measure(c.make(), runs);
      results.push({ case: c.name, plans: c.plans, ...m });
      rows.push({
        case: c.name,
        plans: c.plans.toLocaleString('en-US'),
        'median ms': Math.round(m.ms),
        'concurrent conflicts': m.conflicts.toLocaleString('en-US'),
        'heap growth MB': m.heapMB,
      });
    }
    const at50k = results.find((r) => r.plans === 50_000)!;
    const dense = results.find((r) => r.case === 'overlapping globs')!;
    const targets: Target[] = [
      { name: `graph at 50,000 plans under ${TARGETS.plans50k} ms`, met: at50k.ms < TARGETS.plans50k, detail: `${Math.round(at50k.ms)} ms` },
      {
        name: `graph at 3,000 plans of overlapping globs under ${TARGETS.overlapping3k / 1000} s`,
        met: dense.ms < TARGETS.overlapping3k,
        detail: `${Math.round(dense.ms)} ms`,
      },
    ];
    return {
      notes: [`analyzeGraph in process, median of ${runs} runs after a warm-up (heap growth needs --expose-gc to be exact).`],
      rows,
      targets,
      results,
    };
  },
};

export default graph;
