/**
 * Capture benchmark: what filing one attempt's signals costs as the store grows. Capture reads
 * only the store's index.md (to drop duplicates, count the phase's signals for the cap and
 * link related ones), writes the new signals and the index with them merged in, and puts every
 * file through the content-safety pass. The index is the part that grows with the store.
 *
 *   npx tsx bench/run.ts capture     (or as part of `npm run bench`)
 *
 * Writes bench/results/capture.json. Seeded: the same stores on every run.
 */
import { captureFiles, type CaptureBatch } from '../app/engine/knowledge/signals/capture.js';
import type { SignalDraft } from '../app/engine/knowledge/documents/loop.js';
import { SIGNAL_TYPES } from '../app/engine/knowledge/documents/schema.js';
import { updateIndex, type SignalIndexEntry } from '../app/engine/knowledge/documents/store-index.js';
import { makeSafe } from '../app/machine/content-safety.js';
import { loadTemplate } from '../app/machine/templates.js';
import { median, mulberry32, type BenchModule, type Row } from './lib.js';

const SIZES = [1_000, 10_000, 50_000];
const RUNS = 7;
const TARGET_MS = 1_000;
const TARGET_SIZE = 10_000;
const TAGS = [
  'sqlite',
  'migrations',
  'http',
  'routes',
  'auth',
  'tokens',
  'npm',
  'testing',
  'typescript',
  'docker',
  'ci',
  'cache',
  'queue',
  'email',
  'ui',
  'css',
  'api',
  'store',
  'locking',
  'build',
];

/** An index of `n` signals over 20 specs of 3 phases, a few tags each. */
function store(n: number): string {
  const r = mulberry32(n);
  const pick = <T>(list: readonly T[]) => list[Math.floor(r() * list.length)]!;
  const entries: SignalIndexEntry[] = [];
  for (let i = 0; i < n; i++) {
    const day = new Date(Date.UTC(2026, 0, 1) + i * 60_000);
    const phase = `0${1 + Math.floor(r() * 3)}`;
    const type = pick(SIGNAL_TYPES);
    entries.push({
      kind: 'signal',
      path: `signals/widgets/${day.toISOString().slice(0, 10)}/${day
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d+Z$/, 'Z')}-${i.toString(16).padStart(8, '0')}-${type}.signal.md`,
      timestamp: day.toISOString(),
      type,
      severity: pick(['low', 'medium', 'high'] as const),
      project: 'widgets',
      spec: `SPC-${String(1 + Math.floor(r() * 20)).padStart(3, '0')}`,
      phase,
      plan: `${phase}-0${1 + Math.floor(r() * 9)}`,
      tags: [pick(TAGS), pick(TAGS), pick(TAGS)].filter((t, k, all) => all.indexOf(t) === k),
      summary: `Attempt 1 at plan ${phase}-01 failed: check tests failed (${i}).`,
    });
  }
  return updateIndex(undefined, entries);
}

function drafts(): SignalDraft[] {
  const base = {
    spec: 'SPC-007',
    phase: '02',
    plan: '02-03',
    agent: 'claude',
    context: "Attempt 2 by the claude agent.\nThe plan's files: `src/store/**`.",
    cause: 'The agent finished, but the work does not meet the checks named above.',
  };
  return [
    {
      ...base,
      type: 'struggle',
      severity: 'medium',
      tags: ['sqlite', 'testing', 'npm'],
      happened: 'Attempt 2 at plan 02-03 failed: check tests failed.\n\nSQLITE_BUSY: database is locked\n    at Store.write (src/store/sqlite.ts:42:7)',
      metadata: { attempt: 2, outcome: 'failed', failure: 'checks:tests' },
    },
    {
      ...base,
      type: 'deviation',
      severity: 'medium',
      tags: ['migrations', 'sql'],
      happened: 'Plan 02-03 changed a file outside its files_modified: `migrations/002.sql`.',
      metadata: { attempt: 2, files: ['migrations/002.sql'] },
    },
    {
      ...base,
      type: 'pattern',
      severity: 'low',
      tags: ['sqlite', 'locking'],
      happened: 'SQLite needs a busy timeout when tests write in parallel.',
      metadata: { attempt: 2 },
    },
  ];
}

const bench: BenchModule = {
  name: 'capture',
  description: "filing one attempt's three signals into a store of 1,000 / 10,000 / 50,000 signals (decide, render, index, content-safety pass)",
  async run({ log }) {
    const template = await loadTemplate('signal.md');
    // secretlint's first call loads its rules: paid once per process, not per capture.
    await makeSafe('warm up');
    const rows: Row[] = [];
    const results: { signals: number; indexKiB: number; decideMs: number; safeMs: number; totalMs: number }[] = [];
    for (const n of SIZES) {
      log(`store of ${n} signals`);
      const index = store(n);
      const batch: CaptureBatch = {
        drafts: drafts(),
        project: 'widgets',
        origin: 'bench',
        at: new Date('2026-06-01T00:00:00Z'),
        template,
        cap: { max: 20, since: '2026-05-31T00:00:00Z' },
      };
      const decide: number[] = [];
      const safe: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        const result = captureFiles({ ...batch, origin: `bench-${i}` }, { index });
        const t1 = performance.now();
        await Promise.all(result.files.map((f) => makeSafe(f.text, { roots: ['/work/widgets'] })));
        const t2 = performance.now();
        if (result.filed.length !== 3) throw new Error(`expected 3 signals filed, got ${result.filed.length}`);
        decide.push(t1 - t0);
        safe.push(t2 - t1);
      }
      const row = {
        signals: n,
        indexKiB: Math.round(index.length / 1024),
        decideMs: round(median(decide)),
        safeMs: round(median(safe)),
        totalMs: round(median(decide) + median(safe)),
      };
      results.push(row);
      rows.push({
        'signals in store': n.toLocaleString('en'),
        'index.md': `${row.indexKiB.toLocaleString('en')} KiB`,
        'decide (median)': `${row.decideMs} ms`,
        'content safety (median)': `${row.safeMs} ms`,
        total: `${row.totalMs} ms`,
      });
    }
    const at = results.find((r) => r.signals === TARGET_SIZE)!;
    return {
      notes: [
        `Median of ${RUNS} captures per size; "decide" is captureFiles (parse the index, duplicates, cap, related, render, merge the index), "content safety" is makeSafe on every file written (the index included).`,
        'The index grows linearly with the store, and so does each capture: the signals themselves are never read.',
      ],
      rows,
      targets: [
        {
          name: `one capture into a store of ${TARGET_SIZE.toLocaleString('en')} signals in under ${TARGET_MS} ms`,
          met: at.totalMs < TARGET_MS,
          detail: `${at.totalMs} ms`,
        },
      ],
      results,
    };
  },
};

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

export default bench;
