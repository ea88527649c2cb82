/**
 * Scheduling benchmark: how close the scheduler gets to the lower bound, and how much
 * sooner it finishes than GSD's wave-based execution, on 200 random specs.
 *
 *   npx tsx bench/schedule.bench.ts      (or as part of `npm run bench`)
 *
 * Writes bench/results/schedule.json. Seeded: the same numbers on every run.
 *
 * On the lower bound: max(critical path, work / slots) knows nothing of write conflicts,
 * and plans that write the same file must run one after another whatever the policy. So
 * the report also gives a conflict-aware bound: for each literal file, the total time of
 * the plans whose files_modified match it (they overlap pairwise, so no two of them run at
 * once). The generator's file sets decide how much that matters (see randomSpec): with
 * every plan given a file of its own, the same specs land within 1.004 of the plain bound
 * at p90 on 4 and 8 slots; what is left above that is plans waiting for a writer of the
 * same file, which neither bound sees unless one file carries a lot of the work.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { globsOverlap } from '../app/engine/core/graph/glob.js';
import type { ScheduleSpec, SchedulePlan } from '../app/engine/core/schedule/layout.js';
import { Scheduler } from '../app/engine/core/schedule/scheduler.js';
import { simulate } from '../app/engine/core/schedule/simulate.js';
import { readFileSync } from 'node:fs';
import { mulberry32 } from './lib.js';
import type { OptimumRecord } from './optima/generate.js';
import { asSpec } from './optima/instances.js';

const GRAPHS = 200;
const SEED = 0x5eed;
const SLOTS = [4, 2, 8];
const HEADLINE_SLOTS = 4;
const RESULTS = fileURLToPath(new URL('./results/schedule.json', import.meta.url));
const OPTIMA = fileURLToPath(new URL('./optima/instances.json', import.meta.url));
const OPTIMUM_TARGETS = { median: 1.005, p90: 1.02, worst: 1.08 };

/**
 * harness / optimum on the shipped instances (bench/optima/instances.json: optima proven
 * by bench/optima/exact.ts, or the best known where a search hit its limit, said so),
 * overall and by slots and conflict density, with harness / waves beside it.
 */
function againstOptima() {
  const doc = JSON.parse(readFileSync(OPTIMA, 'utf8')) as { instances: OptimumRecord[] };
  const rows = doc.instances.map((r) => {
    const { spec, durations } = asSpec(r.instance);
    const s = simulate(spec, { slots: r.slots, durations });
    return {
      slots: r.slots,
      density: r.density,
      plans: r.plans,
      proven: r.proven,
      toOptimum: s.makespan / r.optimum,
      toWaves: s.makespan / s.waveMakespan,
      wavesToOptimum: s.waveMakespan / r.optimum,
    };
  });
  const summary = (group: typeof rows) => ({
    instances: group.length,
    median: round(
      quantile(
        group.map((r) => r.toOptimum),
        0.5,
      ),
    ),
    p90: round(
      quantile(
        group.map((r) => r.toOptimum),
        0.9,
      ),
    ),
    worst: round(Math.max(...group.map((r) => r.toOptimum))),
    medianToWaves: round(
      quantile(
        group.map((r) => r.toWaves),
        0.5,
      ),
    ),
    medianWavesToOptimum: round(
      quantile(
        group.map((r) => r.wavesToOptimum),
        0.5,
      ),
    ),
  });
  const groups = [...new Set(rows.map((r) => `${r.slots} slots, ${r.density}`))].map((key) => ({
    group: key,
    ...summary(rows.filter((r) => `${r.slots} slots, ${r.density}` === key)),
  }));
  const all = summary(rows);
  return { proven: rows.filter((r) => r.proven).length, all, groups };
}

interface Generated {
  spec: ScheduleSpec;
  durations: Record<string, number>;
}

/**
 * A spec shaped like real ones: phases of 5–80 plans; each plan depends on a few recent
 * plans, mostly of its own phase, sometimes of an earlier one. How far back "recent" goes
 * (2–30 plans) and how many dependencies a plan has (up to 1–4) vary from spec to spec,
 * from long chains to wide fans, so the critical path is sometimes the binding bound and
 * sometimes the work per slot. Each plan works in one module
 * (src/mNN/, 6 files) and writes 1–3 of its files. About 1 plan in 20 writes its whole
 * module (`src/mNN/**`) and 1 in 40 a shared file (src/index.ts or package.json): those
 * are the conflicts that serialise work and that the plain lower bound cannot see.
 */
export function randomSpec(seed: number, size?: number): Generated {
  const r = mulberry32(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const n = size ?? int(50, 500);
  const modules = Math.max(4, Math.round(n / 6));
  const window = int(2, 30);
  const maxDeps = int(1, 4);
  const plans: SchedulePlan[] = [];
  const phases: { id: string; plans: string[] }[] = [];
  const durations: Record<string, number> = {};
  for (let i = 0; i < n;) {
    const size = Math.min(n - i, int(5, 80));
    const phaseId = String(phases.length + 1).padStart(2, '0');
    const phase = { id: phaseId, plans: [] as string[] };
    phases.push(phase);
    const phaseStart = i;
    for (let k = 1; k <= size; k++, i++) {
      const id = `${phaseId}-${String(k).padStart(2, '0')}`;
      const deps = new Set<string>();
      const wanted = r() < 0.15 ? 0 : int(1, maxDeps);
      for (let d = 0; d < wanted; d++) {
        // Mostly a recent plan of the same phase, else one of the last 40 before the phase.
        if (i > phaseStart && (phaseStart === 0 || r() < 0.8)) deps.add(plans[int(Math.max(phaseStart, i - window), i - 1)]!.id);
        else if (phaseStart > 0) deps.add(plans[int(Math.max(0, phaseStart - 40), phaseStart - 1)]!.id);
      }
      const mod = `src/m${String(int(1, modules)).padStart(2, '0')}`;
      const files = new Set<string>();
      const roll = r();
      if (roll < 0.05) files.add(`${mod}/**`);
      else {
        const count = int(1, 3);
        for (let f = 0; f < count; f++) files.add(`${mod}/f${int(1, 6)}.ts`);
        if (roll > 0.975) files.add(r() < 0.5 ? 'src/index.ts' : 'package.json');
      }
      plans.push({ id, phase: phaseId, dependsOn: [...deps], filesModified: [...files] });
      phase.plans.push(id);
      durations[id] = int(1, 60);
    }
  }
  return { spec: { phases, plans }, durations };
}

/** No two plans matching one literal file can overlap in time: their total is a bound too. */
function conflictBound(spec: ScheduleSpec, durations: Record<string, number>): number {
  const isGlob = (f: string) => /[*?[\]{}]/.test(f);
  const load = new Map<string, number>();
  for (const p of spec.plans) {
    for (const f of new Set(p.filesModified.filter((f) => !isGlob(f)))) load.set(f, (load.get(f) ?? 0) + durations[p.id]!);
  }
  // A plan writing a glob counts once for each literal file its glob matches (and not twice
  // when it also lists the file).
  for (const p of spec.plans) {
    const globs = p.filesModified.filter(isGlob);
    if (globs.length === 0) continue;
    for (const file of load.keys()) {
      if (!p.filesModified.includes(file) && globs.some((g) => globsOverlap(g, file))) load.set(file, load.get(file)! + durations[p.id]!);
    }
  }
  return Math.max(0, ...load.values());
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  return sorted[lo]! + (sorted[Math.ceil(at)]! - sorted[lo]!) * (at - lo);
}

interface Row {
  slots: number;
  graphs: number;
  medianToLowerBound: number;
  p90ToLowerBound: number;
  maxToLowerBound: number;
  medianToConflictAwareBound: number;
  p90ToConflictAwareBound: number;
  medianToWaves: number;
  p90ToWaves: number;
  /** Graphs where this schedule is at least 20% shorter than the wave-based one. */
  beatWavesBy20: number;
  /** Graphs where even the conflict-aware lower bound is 20% or more under the waves: the graph allows it. */
  wavesBeatable: number;
  /** Of those, the share where this schedule did beat the waves by 20%. */
  beatWhereBeatable: number;
  /** Critical path / (work / slots): near or above 1, the graph's shape binds; far below, the slots do. */
  medianPathToWorkPerSlot: number;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Microseconds per pick with 1,000 plans, a quarter verified and four running. */
function pickCost(): { plans: number; microsecondsPerPick: number } {
  const { spec } = randomSpec(SEED, 1000);
  const scheduler = new Scheduler(spec);
  const state = scheduler.state();
  const quarter = Math.floor(spec.plans.length / 4);
  for (let verified = 0; verified < quarter;) {
    const [next] = scheduler.pick(state, 1);
    if (next === undefined) break;
    state.setPlan(next, 'verified');
    verified++;
  }
  for (const id of scheduler.pick(state, 4)) state.setPlan(id, 'running');
  const rounds = 2000;
  const start = performance.now();
  for (let k = 0; k < rounds; k++) scheduler.pick(state, 4);
  return { plans: spec.plans.length, microsecondsPerPick: round(((performance.now() - start) * 1000) / rounds) };
}

export async function run(): Promise<unknown> {
  const seeds = Array.from({ length: GRAPHS }, (_, k) => SEED + k);
  const graphs = seeds.map((seed) => {
    const g = randomSpec(seed);
    return { seed, ...g, conflictBound: conflictBound(g.spec, g.durations) };
  });
  const rows: Row[] = [];
  for (const slots of SLOTS) {
    const toBound: number[] = [];
    const toConflictBound: number[] = [];
    const toWaves: number[] = [];
    const tightness: number[] = [];
    let beat = 0;
    let beatable = 0;
    let beatWhereBeatable = 0;
    for (const g of graphs) {
      const s = simulate(g.spec, { slots, durations: g.durations });
      const bound = Math.max(s.lowerBound, g.conflictBound);
      toBound.push(s.makespan / s.lowerBound);
      toConflictBound.push(s.makespan / bound);
      toWaves.push(s.makespan / s.waveMakespan);
      tightness.push(s.criticalPath / (s.totalWork / slots));
      if (s.makespan <= 0.8 * s.waveMakespan) beat++;
      if (bound <= 0.8 * s.waveMakespan) {
        beatable++;
        if (s.makespan <= 0.8 * s.waveMakespan) beatWhereBeatable++;
      }
    }
    rows.push({
      slots,
      graphs: graphs.length,
      medianToLowerBound: round(quantile(toBound, 0.5)),
      p90ToLowerBound: round(quantile(toBound, 0.9)),
      maxToLowerBound: round(Math.max(...toBound)),
      medianToConflictAwareBound: round(quantile(toConflictBound, 0.5)),
      p90ToConflictAwareBound: round(quantile(toConflictBound, 0.9)),
      medianToWaves: round(quantile(toWaves, 0.5)),
      p90ToWaves: round(quantile(toWaves, 0.9)),
      beatWavesBy20: round(beat / graphs.length),
      wavesBeatable: round(beatable / graphs.length),
      beatWhereBeatable: beatable ? round(beatWhereBeatable / beatable) : 1,
      medianPathToWorkPerSlot: round(quantile(tightness, 0.5)),
    });
  }
  const sizes = graphs.map((g) => g.spec.plans.length);
  const result = {
    benchmark: 'schedule',
    seed: SEED,
    graphs: GRAPHS,
    plans: { min: Math.min(...sizes), median: quantile(sizes, 0.5), max: Math.max(...sizes) },
    headline: rows.find((r) => r.slots === HEADLINE_SLOTS),
    targets: { medianToLowerBound: 1.05, medianToWaves: 0.8 },
    rows,
    pick: pickCost(),
    optima: againstOptima(),
  };

  console.log(`schedule: ${GRAPHS} random specs of ${result.plans.min}–${result.plans.max} plans (seed ${SEED})`);
  console.table(
    rows.map((r) => ({
      slots: r.slots,
      'makespan/LB (median)': r.medianToLowerBound,
      'makespan/LB (p90)': r.p90ToLowerBound,
      'makespan/LB (max)': r.maxToLowerBound,
      'vs conflict-aware LB (median)': r.medianToConflictAwareBound,
      'makespan/waves (median)': r.medianToWaves,
      'makespan/waves (p90)': r.p90ToWaves,
      'beat waves by ≥20%': r.beatWavesBy20,
      'LB ≤ 80% of waves': r.wavesBeatable,
      'beat where LB allows': r.beatWhereBeatable,
      'path / work per slot': r.medianPathToWorkPerSlot,
    })),
  );
  console.log(`pick on ${result.pick.plans} plans: ${result.pick.microsecondsPerPick} µs`);
  const o = result.optima;
  console.log(`\nharness / optimum on ${o.all.instances} shipped instances (${o.proven} optima proven; bench/optima/instances.json):`);
  console.table([{ group: 'all', ...o.all }, ...o.groups]);
  for (const [name, limit] of Object.entries(OPTIMUM_TARGETS)) {
    const got = o.all[name as keyof typeof OPTIMUM_TARGETS];
    console.log(`${got <= limit ? 'met   ' : 'MISSED'}  harness/optimum ${name} ≤ ${limit}: ${got}`);
  }

  await mkdir(dirname(RESULTS), { recursive: true });
  await writeFile(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
