/**
 * Surfacing benchmark: one plan scored against a knowledge store of 1,000, 10,000 and 50,000
 * generated lessons, skills and genes (indexKnowledge once, then surface per plan), the way
 * `harness run` does it: the store is indexed once per run, and each plan's brief is a
 * surfacing against that index.
 *
 *   npm run bench -- surface [--plans 200] [--sizes 1000,10000]
 *
 * The store is generated, seeded (the same on every run): 70% lessons, 20% skills, 10%
 * genes, each on one of 60 subjects (its tags and trigger words drawn from the subject's
 * words) with prose from a 6,000-word vocabulary whose use follows Zipf's law, as prose
 * does, and a third of them naming files of the project. Plans are written the same way:
 * a subject, a body of 80 to 200 words, and 2 to 4 files. Per-plan time is the median
 * (and p90) over the plans, after a warm-up; the index time is one build. Growth is each
 * size's median over the 1,000-entry median.
 */
import { parsePlan } from '../app/engine/core/spec/plan.js';
import type { Plan } from '../app/engine/core/spec/model.js';
import { indexKnowledge, type KnowledgeFile } from '../app/engine/knowledge/surfacing/knowledge-index.js';
import { DEFAULT_SURFACE, planSubject, surface } from '../app/engine/knowledge/surfacing/surface.js';
import { median, mulberry32, option, type BenchModule, type Row, type Target } from './lib.js';

const SIZES = [1_000, 10_000, 50_000];
const DEFAULT_PLANS = 200;
const WARM_UP = 20;
const TARGET_MS = 50;
const SEED = 0x5afe;
const SUBJECTS = 60;
const VOCABULARY = 6_000;
const MODULES = ['api', 'db', 'auth', 'billing', 'notes', 'search', 'ui', 'jobs', 'mail', 'cli', 'cache', 'config'];

type Random = () => number;

const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tas', 'vel', 'dor', 'pi', 'sun', 'gar', 'bel', 'tro', 'nix', 'qua', 'zen', 'fol', 'har', 'wen', 'cy', 'mor'];

/** Pseudo-words, distinct, of two to four syllables. */
function vocabulary(r: Random, n: number): string[] {
  const words = new Set<string>();
  while (words.size < n) {
    const k = 2 + Math.floor(r() * 3);
    let w = '';
    for (let i = 0; i < k; i++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)];
    words.add(w);
  }
  return [...words];
}

/** A word by Zipf's law: the k-th word about 1/k as often as the first. */
function zipf(r: Random, words: readonly string[]): string {
  const k = Math.floor(Math.exp(r() * Math.log(words.length)));
  return words[Math.min(words.length - 1, k - 1)]!;
}

interface World {
  r: Random;
  words: string[];
  subjects: string[][];
}

function world(seed: number): World {
  const r = mulberry32(seed);
  const words = vocabulary(r, VOCABULARY);
  const subjects = Array.from({ length: SUBJECTS }, () => Array.from({ length: 8 }, () => words[Math.floor(r() * words.length)]!));
  return { r, words, subjects };
}

function prose(w: World, subject: string[], n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(w.r() < 0.25 ? subject[Math.floor(w.r() * subject.length)]! : zipf(w.r, w.words));
  return `${out.join(' ')}.`;
}

function pick<T>(r: Random, list: readonly T[], n: number): T[] {
  const copy = [...list];
  const out: T[] = [];
  while (out.length < n && copy.length > 0) out.push(copy.splice(Math.floor(r() * copy.length), 1)[0]!);
  return out;
}

function projectFile(r: Random): string {
  return `src/${MODULES[Math.floor(r() * MODULES.length)]}/f${Math.floor(r() * 40)}.ts`;
}

function entry(w: World, i: number): KnowledgeFile {
  const { r } = w;
  const subject = w.subjects[Math.floor(r() * w.subjects.length)]!;
  const tags = pick(r, subject, 2 + Math.floor(r() * 2));
  const files = r() < 0.33 ? ` Look at \`${projectFile(r)}\` first.` : '';
  const roll = r();
  if (roll < 0.7) {
    return {
      path: `lessons/testing/l${i}.lesson.md`,
      text: [
        '---',
        'category: testing',
        `confidence: ${['low', 'medium', 'high'][i % 3]}`,
        'evidence_count: 2',
        'last_updated: 2026-03-01',
        `tags: [${tags.join(', ')}]`,
        '---',
        '',
        '## Lesson',
        '',
        prose(w, subject, 14),
        '',
        '## When this applies',
        '',
        `${prose(w, subject, 25)}${files}`,
        '',
        '## Recommendation',
        '',
        prose(w, subject, 35),
        '',
        '## Evidence',
        '',
        `- Signal: signals/p/2026-02-01/2026-02-01T10-00-00Z-struggle.signal.md — ${prose(w, subject, 8)}`,
        `- Signal: signals/p/2026-02-09/2026-02-09T10-00-00Z-repair.signal.md — ${prose(w, subject, 8)}`,
        '',
      ].join('\n'),
    };
  }
  if (roll < 0.9) {
    const name = `skill-${i}`;
    return {
      path: `skills/${name}/SKILL.md`,
      text: [
        '---',
        `name: ${name}`,
        `description: ${prose(w, subject, 30)}`,
        'metadata:',
        `  tags: ${tags.join(' ')}`,
        '---',
        '',
        `# ${name}`,
        '',
        '## Problem',
        '',
        prose(w, subject, 12),
        '',
        '## Trigger conditions',
        '',
        prose(w, subject, 20),
        '',
        '## Root cause',
        '',
        prose(w, subject, 12),
        '',
        '## Solution',
        '',
        `${prose(w, subject, 60)}${files}`,
        '',
        '## Verification',
        '',
        prose(w, subject, 8),
        '',
        '## Anti-patterns',
        '',
        prose(w, subject, 8),
        '',
        '## Related',
        '',
        '- none',
        '',
        '## Changelog',
        '',
        '- 1.0.0: first version',
        '',
      ].join('\n'),
    };
  }
  const id = `gene-20260301-${i.toString(16).padStart(8, '0')}`;
  return {
    path: `genes/${id}.gene.md`,
    text: [
      '---',
      `id: ${id}`,
      'type: pattern',
      `name: ${prose(w, subject, 5)}`,
      `description: ${prose(w, subject, 20)}`,
      'version: 1',
      'status: active',
      `success_rate: ${(0.5 + r() / 2).toFixed(2)}`,
      'usage_count: 3',
      'created: 2026-02-01T10:00:00Z',
      'updated: 2026-03-01T10:00:00Z',
      `tags: [${tags.join(', ')}]`,
      '---',
      '',
      '## Content',
      '',
      `${prose(w, subject, 40)}${files}`,
      '',
      '## When it applies',
      '',
      prose(w, subject, 15),
      '',
    ].join('\n'),
  };
}

function plan(w: World, i: number): Plan {
  const { r } = w;
  const subject = w.subjects[Math.floor(r() * w.subjects.length)]!;
  const files = Array.from({ length: 2 + Math.floor(r() * 3) }, () => projectFile(r));
  const id = `01-${String(i + 1).padStart(2, '0')}`;
  const text = [
    '---',
    `plan_id: "${id}"`,
    `title: ${prose(w, subject, 5).slice(0, -1)}`,
    `files_modified: [${files.map((f) => `"${f}"`).join(', ')}]`,
    'must_pass:',
    `  - { id: tests, type: tests_pass, command: "npx vitest run ${files[0]!.replace(/\.ts$/, '.test.ts')}" }`,
    '---',
    '',
    prose(w, subject, 80 + Math.floor(r() * 120)),
    '',
  ].join('\n');
  const parsed = parsePlan(`planning/plans/01-x/${id}-PLAN.md`, text, '01');
  if (!parsed.plan) throw new Error(`generated plan ${id} does not parse: ${JSON.stringify(parsed.problems)}`);
  return parsed.plan;
}

const fixed = (x: number, digits = 2) => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

const bench: BenchModule = {
  name: 'surface',
  description: 'surfacing one plan against generated knowledge stores (the index built once, then surface per plan)',
  async run({ args, log }) {
    const plans = Number(option(args, 'plans') ?? DEFAULT_PLANS);
    if (!Number.isInteger(plans) || plans < 1) throw new Error('--plans must be a whole number of at least 1');
    const only = option(args, 'sizes')?.split(',').map(Number);
    const sizes = only ?? SIZES;
    const rows: Row[] = [];
    const results = [];
    let base: number | undefined;
    let targetMedian: number | undefined;
    for (const size of sizes) {
      const w = world(SEED);
      const files = Array.from({ length: size }, (_, i) => entry(w, i));
      const subjects = Array.from({ length: plans + WARM_UP }, (_, i) => planSubject(plan(w, i % 99)));
      log(`${size} entries: generated (${fixed(files.reduce((n, f) => n + f.text.length, 0) / 2 ** 20, 1)} MiB); indexing`);
      global.gc?.();
      const startIndex = performance.now();
      const index = indexKnowledge(files);
      const indexMs = performance.now() - startIndex;
      if (index.problems.length > 0 || index.entries.length !== size)
        throw new Error(`the generated store did not index cleanly: ${index.problems.length} problems, ${index.entries.length} entries`);
      const times: number[] = [];
      const surfaced: number[] = [];
      subjects.forEach((subject, i) => {
        const start = performance.now();
        const found = surface(index, subject, DEFAULT_SURFACE);
        const ms = performance.now() - start;
        if (i >= WARM_UP) {
          times.push(ms);
          surfaced.push(found.length);
        }
      });
      const sorted = [...times].sort((a, b) => a - b);
      const med = median(times);
      const p90 = sorted[Math.floor(sorted.length * 0.9)]!;
      base ??= med;
      if (size === 1_000) targetMedian = med;
      const row = {
        entries: size.toLocaleString('en-US'),
        'index (one build)': `${fixed(indexMs, 0)} ms`,
        'per plan, median': `${fixed(med)} ms`,
        'per plan, p90': `${fixed(p90)} ms`,
        growth: `${fixed(med / base)}x`,
        'surfaced, median': median(surfaced),
      };
      rows.push(row);
      results.push({ entries: size, indexMs, medianMs: med, p90Ms: p90, surfacedMedian: median(surfaced), samples: times });
      log(`${size} entries: index ${fixed(indexMs, 0)} ms, median ${fixed(med)} ms per plan`);
    }
    const targets: Target[] =
      targetMedian === undefined
        ? []
        : [
            {
              name: `one plan against 1,000 entries in under ${TARGET_MS} ms`,
              met: targetMedian < TARGET_MS,
              detail: `median ${fixed(targetMedian)} ms over ${plans} plans`,
            },
          ];
    return {
      notes: [
        `${plans} generated plans against each store (after ${WARM_UP} warm-up plans), budget ${DEFAULT_SURFACE.budgetTokens} tokens and ${DEFAULT_SURFACE.maxEntries} entries.`,
        'The index is built once per run (harness run) or job (the worker); each plan then costs one surfacing.',
      ],
      rows,
      targets,
      results,
    };
  },
};

export default bench;
