import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_MINUTES, DEFAULT_SLOTS, simulate, type Simulation } from '../../engine/core/schedule/simulate.js';
import { didYouMean } from '../../engine/core/spec/suggest.js';
import { EXIT, UsageError, type CliIO } from '../io.js';
import { displayPath, loadSpecDir, specDirArg, specDirOf } from '../spec-input.js';
import { reportError, specForGraph } from '../graph-input.js';
import { repoConfig } from '../repo-config.js';
import { oneLine } from '../../engine/core/spec/problem.js';

export const usage = `Usage: harness simulate <spec-dir> [--slots N] [--durations FILE] [--json]

Run the scheduler alone on expected durations: when each plan would start and end on
N slots, against the lower bound and GSD's wave-based execution of the same plans.

Options:
  --slots N         parallel slots (default: slots in .github/harness.yml, else ${DEFAULT_SLOTS})
  --durations FILE  JSON object from plan id to minutes; plans not in it take ${DEFAULT_MINUTES}
  --json            print a stable JSON report (see docs/cli.md: JSON output)
  -h, --help        show this help

Exit: 0 simulated, 1 the spec has errors (printed as file:line: message), 2 usage error.
`;

/** The stable `harness simulate --json` report: the simulation, named. Times are minutes from the start; slots count from 1. */
export type SimulateJson = { spec: string } & Simulation;

const MAX_SLOTS = 10_000;

export async function simulateCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { slots: { type: 'string' }, durations: { type: 'string' }, json: { type: 'boolean' } },
  });
  const dir = await specDirOf(specDirArg(positionals), io);
  let slots = values.slots === undefined ? undefined : parseSlots(values.slots);
  const durations = values.durations === undefined ? {} : await readDurations(values.durations, io);
  const spec = specForGraph(await loadSpecDir(dir, io), dir, 'simulate', io, values.json === true);
  if (!spec) return EXIT.problems;
  if (slots === undefined) {
    // The slots `harness run` would use: .github/harness.yml's, else the default.
    const repo = await repoConfig(dir, io.cwd);
    if (!repo.config) {
      reportError(io, 'simulate', values.json === true, displayPath(dir), `${repo.shown} has errors; fix them, or pass --slots N`, repo.problems);
      return EXIT.problems;
    }
    slots = repo.config.slots;
  }
  const ids = spec.plans.map((p) => p.id);
  for (const id of Object.keys(durations)) {
    if (!spec.planById.has(id)) throw new UsageError(`--durations ${values.durations}: "${id}" is not a plan of ${spec.id}${didYouMean(id, ids)}`);
  }

  const result = simulate(spec, { slots, durations });
  if (values.json) {
    const report: SimulateJson = { spec: spec.id, ...result };
    io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    io.stdout(simulationText(spec.id, spec.plans.length, result));
  }
  return EXIT.ok;
}

function parseSlots(text: string): number {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= MAX_SLOTS)) throw new UsageError(`--slots must be a whole number from 1 to ${MAX_SLOTS.toLocaleString('en-US')}, not "${text}"`);
  return n;
}

async function readDurations(file: string, io: CliIO): Promise<Record<string, number>> {
  let text: string;
  try {
    text = await readFile(resolve(io.cwd, file), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`--durations ${file}: cannot read it${code === 'ENOENT' ? ': no such file' : code ? ` (${code})` : ''}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--durations ${file}: not valid JSON: ${(e as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new UsageError(`--durations ${file}: must be a JSON object from plan id to minutes, such as {"01-01": 30}`);
  }
  const durations: Record<string, number> = {};
  for (const [id, minutes] of Object.entries(data)) {
    if (typeof minutes !== 'number' || !Number.isFinite(minutes) || minutes < 0) {
      throw new UsageError(`--durations ${file}: "${id}" must be a number of minutes >= 0, not ${JSON.stringify(minutes)}`);
    }
    durations[id] = minutes;
  }
  return durations;
}

/** The three figures, then one line per slot with what it runs and when. */
function simulationText(id: string, plans: number, r: Simulation): string {
  const out: string[] = [];
  out.push(`${id}: ${plans} ${plans === 1 ? 'plan' : 'plans'} on ${r.slots} ${r.slots === 1 ? 'slot' : 'slots'}`);
  const rows: [string, string, string][] = [
    ['makespan', fmt(r.makespan), ''],
    ['lower bound', fmt(r.lowerBound), `critical path ${fmt(r.criticalPath)}, work ${fmt(r.totalWork)} over ${r.slots} slots`],
    ...(r.busiestFile && r.conflictLowerBound > r.lowerBound
      ? [
          [
            'with conflicts',
            fmt(r.conflictLowerBound),
            `${r.busiestFile.plans} plans write ${oneLine(r.busiestFile.file)}: ${fmt(r.busiestFile.work)} one after another`,
          ] as [string, string, string],
        ]
      : []),
    ['wave-based', fmt(r.waveMakespan), versusWaves(r)],
  ];
  const width = Math.max(...rows.map(([, v]) => v.length));
  const figureWidth = Math.max(12, ...rows.map(([l]) => l.length + 1));
  for (const [label, value, note] of rows) out.push(`  ${label.padEnd(figureWidth)}${value.padStart(width)} min${note ? `  (${note})` : ''}`);
  out.push('');
  const bySlot = new Map<number, Simulation['schedule']>();
  for (const e of r.schedule) bySlot.set(e.slot, [...(bySlot.get(e.slot) ?? []), e]);
  const used = [...bySlot.keys()];
  const slotRows: [string, string][] = [];
  for (let s = 1; s <= r.slots; s++) {
    const entries = bySlot.get(s);
    if (entries) {
      slotRows.push([String(s), entries.map((e) => `${e.plan} ${fmt(e.start)}–${fmt(e.end)}`).join(' · ')]);
      continue;
    }
    // A run of idle slots is one line: at --slots 1000 the plans, not 998 "idle"s, are the news.
    const last = used.filter((u) => u > s).reduce((a, b) => Math.min(a, b), r.slots + 1) - 1;
    slotRows.push(last === s ? [String(s), 'idle'] : [`${s}–${last}`, `idle (${last - s + 1} slots no plan is ready for)`]);
    s = last;
  }
  const labelWidth = Math.max(...slotRows.map(([l]) => l.length));
  for (const [label, text] of slotRows) out.push(`slot ${label.padStart(labelWidth)}  ${text}`);
  return `${out.join('\n')}\n`;
}

function versusWaves(r: Simulation): string {
  if (r.waveMakespan === 0 || r.makespan === r.waveMakespan) return 'the same as this schedule';
  const pct = Math.round((Math.abs(r.waveMakespan - r.makespan) / r.waveMakespan) * 100);
  return r.makespan < r.waveMakespan ? `this schedule is ${pct}% shorter` : `this schedule is ${pct}% longer`;
}

/** Minutes as people write them: whole where whole, else up to two decimals. */
function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 100) / 100);
}
