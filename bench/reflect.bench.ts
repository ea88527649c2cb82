/**
 * Reflection over generated signal stores of 1,000, 10,000 and 50,000 signals: how long
 * `reflect` (gather, cluster, qualify, link) takes, how it grows, and whether it finds what
 * was planted.
 *
 * The generator is seeded (the same store on every machine) and shaped like a real one: a
 * few percent of problems recur, each told in varied words (a signal uses some of the
 * problem's telling words, never all, among common developer words and the names of files
 * and tools of its own occurrence), with partial tags (none, one or two of the problem's),
 * under a type of the same family, across plans of several specs and projects; a quarter
 * of them already have a lesson citing their first signals, so the rest must be linked; and
 * most signals are one-offs drawn from the same common words and a large pool of names.
 * A signal's text is rendered as the capture writes it and parsed back (`readSignal`), so
 * the records reflection reads are the real ones; the parse time is reported beside.
 *
 * Time is the median of several runs in this process, each after a GC when --expose-gc is
 * given (`node --expose-gc --import tsx bench/run.ts reflect`), with the CPU time of the same
 * runs beside it (other work on a shared machine sways it less; the GC's threads add to it). The target: 10,000 signals
 * in under 2 s.
 *
 *   npm run bench -- reflect [--runs 5] [--sizes 1000,10000]
 */
import { readLesson, type LessonRecord } from '../app/engine/knowledge/lessons/lesson-record.js';
import { DEFAULT_SIMILARITY, reflect, type ReflectSettings } from '../app/engine/knowledge/lessons/reflect.js';
import { readSignal, type SignalRecord } from '../app/engine/knowledge/signals/signal-record.js';
import { median, mulberry32, option, type BenchModule, type Row, type Target } from './lib.js';

const SIZES = [1_000, 10_000, 50_000];
const DEFAULT_RUNS = 5;
const TARGET = { signals: 10_000, ms: 2_000 };
const SETTINGS: ReflectSettings = { minWeight: 4, minPlans: 2, similarity: DEFAULT_SIMILARITY };

/** Words every developer's signals use, whatever the problem. */
const COMMON = (
  'test tests build error failed failing command file step check output server run install config module import version ' +
  'retry retried agent commit branch lint type cache request response timeout process exit code script package dependency ' +
  'database query migration schema endpoint route handler service client worker job queue network port path directory ' +
  'environment variable permission token log logs message stack trace function class method compile bundle deploy release'
).split(' ');
const SYMPTOMS = (
  'locked refused hung crashed missing duplicated corrupted stale flaky slow leaked truncated rejected mismatched ' +
  'undefined overflowed blocked skipped ignored conflicted expired throttled deadlocked unreachable invalid'
).split(' ');
const VERBS = ['failed with', 'stopped at', 'kept hitting', 'ran into', 'reported', 'broke on', 'could not get past', 'retried after'];
const FAMILIES: readonly (readonly Signal['type'][])[] = [
  ['struggle', 'stuck', 'repair', 'timeout'],
  ['deviation', 'config'],
  ['frustration', 'interrupted'],
];
type Signal = SignalRecord['signal'];
const SEVERITIES = ['low', 'medium', 'medium', 'high'] as const;
const PROJECTS = ['billing', 'notes', 'search', 'gateway'];

interface Generated {
  texts: { file: string; text: string; problem: number }[];
  lessons: LessonRecord[];
  problems: number;
  /** Signals cited by the planted lessons (already processed). */
  cited: number;
}

function syllables(r: () => number): string {
  const c = 'bdfgklmnprstvz';
  const v = 'aeiou';
  let w = '';
  const n = 2 + Math.floor(r() * 2);
  for (let i = 0; i < n; i++) w += c[Math.floor(r() * c.length)]! + v[Math.floor(r() * v.length)]!;
  return w + c[Math.floor(r() * c.length)]!;
}

function generate(size: number, seed = 0x5ea1): Generated {
  const r = mulberry32(seed + size);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const some = <T>(xs: readonly T[], n: number): T[] => {
    const copy = [...xs];
    const out: T[] = [];
    while (out.length < n && copy.length > 0) out.push(copy.splice(Math.floor(r() * copy.length), 1)[0]!);
    return out;
  };
  const pool = [...new Set(Array.from({ length: Math.max(4_000, size) }, () => syllables(r)))];

  const problems = Math.max(6, Math.round(size / 250));
  const perProblem = Math.round((size * 0.3) / problems);
  const planted = Array.from({ length: problems }, (_, p) => {
    const family = FAMILIES[p % FAMILIES.length]!;
    const entities = some(pool, 4);
    const symptoms = some(SYMPTOMS, 2);
    return { family, type: family[0]!, entities, symptoms, tags: [...entities.slice(0, 2), ...symptoms] };
  });

  const texts: Generated['texts'] = [];
  const modules = some(pool, 60).map((m) => `example.com/${m}`);
  const commands = ['go test', 'go test -race', 'pytest', 'pytest -m integration', 'npm test', 'vitest run', 'cargo test', 'make check'];
  /** A plan's profile: a planted problem's plans mostly show its own module and command; the rest draw from the project's. */
  const profileFor = (problem: number) => {
    const own = problem >= 0 && r() < 0.8 ? [modules[problem % modules.length]!] : [];
    return {
      commands: [...new Set([pick(commands), ...(problem >= 0 && r() < 0.5 ? [commands[problem % commands.length]!] : [])])],
      imports: [...new Set([...own, ...some(modules, 3)])],
      words: some(pool, 12),
    };
  };
  const timestamp = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const sentence = (must: string[], extra: number) => {
    const words = [...must, ...some(COMMON, extra), ...some(pool, 2)];
    for (let i = words.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [words[i], words[j]] = [words[j]!, words[i]!];
    }
    return `The ${words[0]} ${pick(VERBS)} ${words.slice(1).join(' ')}.`;
  };
  const signal = (i: number, problem: number) => {
    const p = planted[problem];
    const family = p?.family ?? pick(FAMILIES);
    const type = p ? (r() < 0.7 ? p.type : pick(family)) : pick(family);
    const telling = p ? [...p.entities, ...p.symptoms] : [...some(pool, 3), pick(SYMPTOMS)];
    const tags = p ? some(p.tags, Math.floor(r() * 3)) : some(pool, Math.floor(r() * 2));
    const spec = `SPC-${String(1 + Math.floor(r() * 20)).padStart(3, '0')}`;
    const phase = String(1 + Math.floor(r() * 5)).padStart(2, '0');
    const plan = `${phase}-${String(1 + Math.floor(r() * 12)).padStart(2, '0')}`;
    const project = pick(PROJECTS);
    const ts = timestamp(i);
    const file = `.harness/knowledge/signals/${project}/${ts.slice(0, 10)}/${ts.replace(/:/g, '-')}-${i}-${type}.signal.md`;
    const text = [
      '---',
      `type: ${type}`,
      `severity: ${pick(SEVERITIES)}`,
      `project: ${project}`,
      `spec: ${spec}`,
      `phase: "${phase}"`,
      `plan: "${plan}"`,
      `timestamp: ${ts}`,
      'agent: claude',
      `tags: [${tags.join(', ')}]`,
      // The plan's profile, as capture records it (what reflection learns when a lesson applies by): a planted problem's
      // plans mostly import its module and run its command; every plan some of the project's common ones and its words.
      'metadata:',
      `  profile: ${JSON.stringify(profileFor(p ? problem : -1))}`,
      '---',
      '',
      '## What happened',
      '',
      sentence(some(telling, 3), 6),
      '',
      '## Context',
      '',
      `Plan ${plan} of ${spec}, attempt ${1 + Math.floor(r() * 3)}. ${sentence(some(telling, 1), 5)}`,
      '',
      '## Potential cause',
      '',
      sentence(some(telling, 2), 3),
      '',
    ].join('\n');
    return { file, text, problem };
  };

  let i = 0;
  const order: number[] = [];
  // About one in twenty signals (in the noise's places) is a verified phase's completion, listing ten plans' profiles: the plans reflection compares with.
  const completion = (k: number) => {
    const ts = timestamp(k);
    const project = pick(PROJECTS);
    const profiles = Object.fromEntries(
      Array.from({ length: 10 }, (_, n) => [`01-${String(n + 1).padStart(2, '0')}`, profileFor(r() < 0.2 ? Math.floor(r() * problems) : -1)]),
    );
    return {
      file: `.harness/knowledge/signals/${project}/${ts.slice(0, 10)}/${ts.replace(/:/g, '-')}-${k}-completion.signal.md`,
      text: [
        '---',
        'type: completion',
        'severity: low',
        `project: ${project}`,
        'spec: SPC-001',
        'phase: "01"',
        `timestamp: ${ts}`,
        'tags: []',
        'metadata:',
        `  profiles: ${JSON.stringify(profiles)}`,
        '---',
        '',
        '## What happened',
        '',
        'Phase 01 was verified.',
        '',
        '## Context',
        '',
        'x',
        '',
        '## Potential cause',
        '',
        'x',
        '',
      ].join('\n'),
      problem: -1,
    };
  };
  for (let p = 0; p < problems; p++) for (let k = 0; k < perProblem; k++) order.push(p);
  while (order.length < size) order.push(-1);
  for (let k = order.length - 1; k > 0; k--) {
    const j = Math.floor(r() * (k + 1));
    [order[k], order[j]] = [order[j]!, order[k]!];
  }
  for (const problem of order) texts.push(problem < 0 && i % 10 === 9 ? completion(i++) : signal(i++, problem));

  // A quarter of the problems have a lesson already, citing their first three signals.
  const lessons: LessonRecord[] = [];
  let cited = 0;
  for (let p = 0; p < problems; p += 4) {
    const evidence = texts.filter((t) => t.problem === p).slice(0, 3);
    cited += evidence.length;
    const what = planted[p]!;
    const file = `.harness/knowledge/lessons/workflow/problem-${p}.lesson.md`;
    const read = readLesson(
      file,
      [
        '---',
        'category: workflow',
        'confidence: medium',
        `evidence_count: ${evidence.length}`,
        'last_updated: 2026-01-01',
        `tags: [${what.tags.join(', ')}]`,
        'projects: []',
        '---',
        '',
        '## Lesson',
        '',
        `When ${what.entities.join(' and ')} are ${what.symptoms.join(' or ')}, stop and fix ${what.entities[0]} first.`,
        '',
        '## When this applies',
        '',
        `Work that touches ${what.entities.slice(0, 2).join(' or ')}.`,
        '',
        '## Recommendation',
        '',
        'Check it before the first step.',
        '',
        '## Evidence',
        '',
        ...evidence.map((e) => `- \`${e.file}\``),
        '',
      ].join('\n'),
    );
    if ('problem' in read) throw new Error(`the generated lesson ${file} does not parse: ${read.problem}`);
    lessons.push(read);
  }
  return { texts, lessons, problems, cited };
}

interface Quality {
  /** Planted problems whose unprocessed signals ended, 80 % or more of them, in one pattern or link. */
  recovered: number;
  /** One-off signals that ended in a pattern or a link. */
  oneOffsInPatterns: number;
  patterns: number;
  links: number;
}

function quality(generated: Generated, signals: readonly SignalRecord[], result: ReturnType<typeof reflect>): Quality {
  const problemOf = new Map(generated.texts.map((t) => [t.file, t.problem]));
  const groups = [...result.patterns.map((p) => p.pattern.signals), ...result.links.map((l) => l.pattern.signals)];
  const citedFiles = new Set(generated.lessons.flatMap((l) => l.evidence));
  let recovered = 0;
  for (let p = 0; p < generated.problems; p++) {
    const mine = signals.filter((s) => problemOf.get(s.file) === p && !citedFiles.has(s.file)).length;
    const best = Math.max(0, ...groups.map((g) => g.filter((s) => problemOf.get(s.file) === p).length));
    if (mine > 0 && best / mine >= 0.8) recovered++;
  }
  const oneOffsInPatterns = groups.flat().filter((s) => problemOf.get(s.file) === -1).length;
  return { recovered, oneOffsInPatterns, patterns: result.patterns.length, links: result.links.length };
}

const gc = (globalThis as { gc?: () => void }).gc;
const fixed = (x: number, digits = 0) => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

const bench: BenchModule = {
  name: 'reflect',
  description: 'reflection (gather, cluster, qualify, link) over generated signal stores',
  async run({ args, log }) {
    const runs = Number(option(args, 'runs') ?? DEFAULT_RUNS);
    if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a whole number of at least 1');
    const only = option(args, 'sizes')?.split(',').map(Number);
    const sizes = only ? SIZES.filter((s) => only.includes(s)) : SIZES;

    const rows: Row[] = [];
    const results = [];
    const medians = new Map<number, number>();
    for (const size of sizes) {
      const generated = generate(size);
      gc?.();
      const parseStart = performance.now();
      const signals = generated.texts.map((t) => {
        const read = readSignal(t.file, t.text);
        if ('problem' in read) throw new Error(`the generated signal ${t.file} does not parse: ${read.problem}`);
        return read;
      });
      const parseMs = performance.now() - parseStart;
      const samples: number[] = [];
      const cpu: number[] = [];
      let last: ReturnType<typeof reflect> | undefined;
      const count = size >= 50_000 ? Math.min(runs, 3) : runs;
      for (let k = 0; k < count; k++) {
        gc?.();
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        last = reflect({ signals, lessons: generated.lessons, settings: SETTINGS });
        samples.push(performance.now() - t0);
        const used = process.cpuUsage(c0);
        cpu.push((used.user + used.system) / 1000);
      }
      const ms = median(samples);
      medians.set(size, ms);
      const q = quality(generated, signals, last!);
      log(`${size} signals: median ${fixed(ms)} ms over ${count} runs; ${q.recovered}/${generated.problems} planted problems found`);
      rows.push({
        signals: fixed(size),
        'reflect median': `${fixed(ms)} ms`,
        'CPU median': `${fixed(median(cpu))} ms`,
        'per 1k signals': `${fixed(ms / (size / 1000), 1)} ms`,
        'parse (once)': `${fixed(parseMs)} ms`,
        'problems found': `${q.recovered}/${generated.problems}`,
        'new / linked': `${q.patterns} / ${q.links}`,
        'one-offs in patterns': q.oneOffsInPatterns,
      });
      results.push({
        size,
        runs: count,
        samples,
        medianMs: ms,
        cpuSamples: cpu,
        cpuMedianMs: median(cpu),
        parseMs,
        problems: generated.problems,
        lessons: generated.lessons.length,
        cited: generated.cited,
        ...q,
      });
    }
    const growth = sizes
      .slice(1)
      .map((s, i) => `${fixed(sizes[i]!)} → ${fixed(s)}: ×${fixed(medians.get(s)! / medians.get(sizes[i]!)!, 1)} time for ×${fixed(s / sizes[i]!)} signals`);
    const targets: Target[] = [];
    if (medians.has(TARGET.signals)) {
      const ms = medians.get(TARGET.signals)!;
      targets.push({
        name: `${fixed(TARGET.signals)} signals reflected on in under ${fixed(TARGET.ms / 1000)} s`,
        met: ms < TARGET.ms,
        detail: `median ${fixed(ms)} ms`,
      });
    }
    return {
      notes: [
        `Seeded stores: about 30 % of the signals are ${'recurring'} problems (one per 250 signals) in varied words and partial tags, the rest one-offs;`,
        'a quarter of the problems have a lesson citing their first three signals (the rest of theirs must be linked).',
        `Median of ${runs} runs (3 at 50,000), in this process${gc ? ', a GC before each' : ' (run with --expose-gc for a GC before each)'}; parse is readSignal on every file's text, once.`,
        ...(growth.length > 0 ? [`Growth: ${growth.join('; ')}.`] : []),
      ],
      rows,
      targets,
      results,
    };
  },
};

export default bench;
