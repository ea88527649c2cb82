/**
 * Knowledge audit benchmark: the skill audit's figures (`--stats`) and gene decay over a store
 * of 5,000 skills and genes with 100,000 trajectory lines, the way `harness prune` and
 * `harness skills --stats` read it from disk: the gene files read and parsed, the trajectory's
 * day files streamed through the one aggregator (trajectory-stats.ts), then decay decided for
 * every gene and the stats looked up for every skill.
 *
 *   npx tsx bench/run.ts knowledge [--runs 7] [--entries 5000] [--lines 100000]
 *
 * The store is generated, seeded (the same on every run), into a temporary directory: half
 * skills, half genes (a third of them active, a third candidates, a third deprecated), and the
 * trajectory over 90 days: attempts that matched 1 to 3 entries each, three in four verified
 * (a `use` line per entry), and a lifecycle line (promote, deprecate, extraction, approval)
 * every 200 lines. Each run reads everything again from disk, so the page cache is warm after
 * the first; the time is the median over the runs after one warm-up. Decay here decides (what
 * each gene becomes, and why); rendering the changed files is each change's PR's work, and is
 * left out as `harness export` leaves it out.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { decay } from '../app/engine/knowledge/genes/decay.js';
import { DEFAULT_GENE_SETTINGS } from '../app/engine/knowledge/genes/gene-settings.js';
import { readGeneStore } from '../app/machine/gene-store.js';
import { median, mulberry32, option, type BenchModule, type Row } from './lib.js';

const TARGET_MS = 1_000;
const SEED = 0x9e7e;
const DAYS = 90;
const START = Date.parse('2026-01-01T00:00:00Z');
const DAY = 86_400_000;

function hex8(n: number): string {
  return n.toString(16).padStart(8, '0');
}

function geneFile(i: number, status: string): { path: string; text: string } {
  const id = `gene-20260101-${hex8(i)}`;
  return {
    path: `genes/${id}.gene.md`,
    text: [
      '---',
      `id: ${id}`,
      `type: ${['pattern', 'prompt', 'config', 'workflow'][i % 4]}`,
      `name: Gene number ${i}`,
      `description: What to do when failure ${i} happens again, drawn from repairs.`,
      'version: 1',
      `status: ${status}`,
      'success_rate: 0.5',
      'usage_count: 0',
      'created: 2026-01-01T00:00:00Z',
      'updated: 2026-01-01T00:00:00Z',
      `signals: ["checks:${i}/unit"]`,
      `validation: ["npm test -- part${i % 50}"]`,
      `tags: [bench, part${i % 50}]`,
      '---',
      '',
      '## Content',
      '',
      `Give worker ${i} its own database file.`,
      '',
      '## When it applies',
      '',
      'Tests that share state.',
      '',
    ].join('\n'),
  };
}

function skillFile(i: number): { path: string; text: string } {
  const name = `skill-${i}`;
  return {
    path: `skills/${name}/SKILL.md`,
    text: [
      '---',
      `name: ${name}`,
      `description: "Fixes error E${i}: what to run when the build says E${i}."`,
      'metadata:',
      '  harness-status: active',
      '---',
      '',
      `# Skill ${i}`,
      '',
      'Do the thing.',
      '',
    ].join('\n'),
  };
}

async function generate(dir: string, entries: number, lines: number): Promise<{ genes: number; skills: number; lines: number }> {
  const r = mulberry32(SEED);
  const genes = Math.floor(entries / 2);
  const skills = entries - genes;
  const files: { path: string; text: string }[] = [];
  for (let i = 0; i < genes; i++) files.push(geneFile(i, ['active', 'candidate', 'deprecated'][i % 3]!));
  for (let i = 0; i < skills; i++) files.push(skillFile(i));
  const paths = [...files.map((f) => f.path)];
  const byDay: string[][] = Array.from({ length: DAYS }, () => []);
  let written = 0;
  let attempt = 0;
  while (written < lines) {
    attempt++;
    const day = Math.floor((attempt / (lines / 1.9)) * DAYS) % DAYS;
    const at = new Date(START + day * DAY + Math.floor(r() * DAY)).toISOString();
    const k = 1 + Math.floor(r() * 3);
    const chosen = Array.from({ length: k }, () => paths[Math.floor(r() * paths.length)]!);
    const verified = r() < 0.75;
    for (const type of verified ? ['match', 'use'] : ['match']) {
      for (const entry of chosen) {
        if (written >= lines) break;
        const kind = entry.startsWith('genes/') ? 'gene' : 'skill';
        byDay[day]!.push(
          JSON.stringify({
            timestamp: at,
            type,
            project: 'bench',
            spec: 'SPC-001',
            plan: `0${1 + (attempt % 9)}-0${1 + (attempt % 7)}`,
            attempt: 1,
            entry,
            kind,
            title: 't',
            score: 2.1,
            why: 'tags bench',
            key: `local:bench/SPC-001/${attempt}/1/${type}/${entry}`,
          }),
        );
        written++;
        if (written % 200 === 0 && written < lines) {
          byDay[day]!.push(
            JSON.stringify({
              timestamp: at,
              type: kind === 'gene' ? 'promote' : 'approval',
              entry,
              kind,
              project: 'bench',
              reason: 'bench',
              key: `bench/${written}`,
            }),
          );
          written++;
        }
      }
    }
  }
  for (const f of files) {
    await mkdir(join(dir, f.path, '..'), { recursive: true });
    await writeFile(join(dir, f.path), f.text);
  }
  await mkdir(join(dir, 'trajectory'), { recursive: true });
  for (let d = 0; d < DAYS; d++) {
    if (byDay[d]!.length === 0) continue;
    await writeFile(join(dir, 'trajectory', `${new Date(START + d * DAY).toISOString().slice(0, 10)}.jsonl`), `${byDay[d]!.join('\n')}\n`);
  }
  return { genes, skills, lines: written };
}

interface Timing {
  totalMs: number;
  /** CPU time of the process over the run (user + system): what the work cost, whatever else the cores were doing. */
  cpuMs: number;
  readGenesAndTrajectoryMs: number;
  statsMs: number;
  decayMs: number;
  skillsMs: number;
  changes: number;
  skillsWithStats: number;
}

async function once(dir: string, now: Date): Promise<Timing> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const store = await readGeneStore(dir);
  const t1 = performance.now();
  const stats = store.stats.result();
  const t2 = performance.now();
  const decided = decay({ genes: store.genes, capsules: store.capsules, stats, settings: DEFAULT_GENE_SETTINGS, now, project: 'bench', render: false });
  const t3 = performance.now();
  // The audit's side: every skill's figures, as `harness skills --stats` lists them.
  // The skills are their folders (an Agent Skill's name is its folder's): one directory read.
  const skills = (await readdir(join(dir, 'skills'), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => `skills/${d.name}/SKILL.md`);
  let withStats = 0;
  for (const s of skills) if (stats.has(s)) withStats++;
  const t4 = performance.now();
  const used = process.cpuUsage(cpu);
  return {
    totalMs: t4 - t0,
    cpuMs: (used.user + used.system) / 1000,
    readGenesAndTrajectoryMs: t1 - t0,
    statsMs: t2 - t1,
    decayMs: t3 - t2,
    skillsMs: t4 - t3,
    changes: decided.changes.length,
    skillsWithStats: withStats,
  };
}

const bench: BenchModule = {
  name: 'knowledge',
  description: 'skill audit stats and gene decay over 5,000 skills and genes with 100,000 trajectory lines',
  async run({ args, log }) {
    const runs = Number(option(args, '--runs') ?? 7);
    const entries = Number(option(args, '--entries') ?? 5_000);
    const lines = Number(option(args, '--lines') ?? 100_000);
    const dir = await mkdtemp(join(tmpdir(), 'harness-knowledge-bench-'));
    try {
      log(`generating ${entries} skills and genes and ${lines} trajectory lines in ${dir}`);
      const made = await generate(dir, entries, lines);
      const now = new Date(START + DAYS * DAY);
      await once(dir, now);
      const timings: Timing[] = [];
      for (let i = 0; i < runs; i++) timings.push(await once(dir, now));
      const med = (f: (t: Timing) => number) => median(timings.map(f));
      const rows: Row[] = [
        {
          entries: made.genes + made.skills,
          lines: made.lines,
          'read genes + stream trajectory (ms)': med((t) => t.readGenesAndTrajectoryMs).toFixed(1),
          'stats (ms)': med((t) => t.statsMs).toFixed(1),
          'decay (ms)': med((t) => t.decayMs).toFixed(1),
          'skills (ms)': med((t) => t.skillsMs).toFixed(1),
          'total median (ms)': med((t) => t.totalMs).toFixed(1),
          'CPU median (ms)': med((t) => t.cpuMs).toFixed(1),
          'decay changes': timings[0]!.changes,
        },
      ];
      const total = med((t) => t.totalMs);
      return {
        notes: [
          `${made.genes} genes and ${made.skills} skills on disk, ${made.lines} trajectory lines over ${DAYS} day files; median of ${runs} runs after one warm-up, each reading everything from disk again.`,
        ],
        rows,
        targets: [
          {
            name: `audit stats and decay over ${entries.toLocaleString('en')} skills and genes with ${lines.toLocaleString('en')} trajectory lines in under 1 s`,
            met: total < TARGET_MS,
            detail: `median ${total.toFixed(0)} ms over ${runs} runs (CPU ${med((t) => t.cpuMs).toFixed(0)} ms), load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
          },
        ],
        results: { ...made, runs, timings },
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

export default bench;
