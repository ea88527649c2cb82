import type { Level } from '../core/documents/fields.js';
import { cluster } from './cluster.js';
import { citedSignals, signalKey, type LessonRecord } from './lesson-record.js';
import type { SignalType } from './schema.js';
import type { SignalRecord, Unreadable } from './signal-record.js';
import { stemOf, terms, type Term } from './terms.js';
import { Centroid, cosine, termCounts, Vocabulary, type IdCounts, type TermCounts, type Vector } from './vectors.js';

export type { SignalRecord } from './signal-record.js';

/**
 * Reflection (docs/design.md, Knowledge): from the signals no lesson cites yet, the problems
 * that keep coming back. Signals are clustered by what they say (TF-IDF cosine over their
 * words, their tags weighing in), within a family of alike types; a cluster is a pattern
 * when its weight (each signal by its severity) reaches `minWeight` and it happened in at
 * least `minPlans` distinct plans or projects, so that a one-off never becomes a lesson. A
 * cluster an existing lesson already says is linked to it rather than extracted again.
 * Pure and deterministic: the same signals and lessons always give the same answer.
 */

export interface ReflectSettings {
  /** The weight a pattern needs: each signal counts low 1, medium 2, high 3. */
  minWeight: number;
  /** The distinct plans (or projects) a pattern must span. */
  minPlans: number;
  /** How alike (cosine, 0 to 1) a signal must be to a pattern, and a pattern to a lesson. */
  similarity: number;
}

/** Signals that describe one problem in different words are about this alike; unrelated ones far less. */
export const DEFAULT_SIMILARITY = 0.35;

export const SEVERITY_WEIGHT: Readonly<Record<Level, number>> = { low: 1, medium: 2, high: 3 };

/**
 * Which signals can describe the same problem. A plan that struggled, got stuck, timed out or
 * needed repair is one kind of trouble; a deviation and a config mismatch are work that went
 * other than configured; people stepping in are their own kind; patterns and innovations are
 * what went better than planned.
 */
const FAMILY: Readonly<Record<SignalType, string | undefined>> = {
  struggle: 'trouble',
  stuck: 'trouble',
  repair: 'trouble',
  timeout: 'trouble',
  deviation: 'drift',
  config: 'drift',
  frustration: 'people',
  interrupted: 'people',
  pattern: 'discovery',
  innovation: 'discovery',
  completion: undefined,
  use: undefined,
};

/** Why the types with no family are never reflected on. */
const NOT_REFLECTED: Partial<Record<SignalType, string>> = {
  completion: 'a completion signal counts work that went as planned; reflection distils problems and discoveries',
  use: 'a use signal records knowledge being applied; it counts towards that knowledge, not towards a new lesson',
};

export interface ReflectInput {
  signals: readonly SignalRecord[];
  /** The accepted lessons (merged; locally, those in the store). */
  lessons: readonly LessonRecord[];
  /** Lessons proposed and not merged yet (open pull requests): their signals are taken, and nothing is linked to them. */
  proposals?: readonly ProposedLesson[];
  /** Signal files that could not be read: reported as skipped, with the parser's reason. */
  unreadable?: readonly Unreadable[];
  /**
   * Lesson files that cannot be read, with the signal paths their text cites all the same:
   * those signals are taken (a broken lesson must be fixed, not written again).
   */
  unreadableLessons?: readonly (Unreadable & { evidence: readonly string[] })[];
  /**
   * Signal files there are but that were not read (a reader's limit): those a lesson cites are
   * skipped as its evidence, the rest as left for a later reflection.
   */
  unread?: readonly string[];
  settings: ReflectSettings;
}

/** A lesson proposed in an open pull request: a new one, or more evidence for one there is. */
export interface ProposedLesson {
  /** The lesson's path, as the proposal names it. */
  file: string;
  number: number;
  url: string;
  /** What the proposal says (its description), to compare new patterns with. */
  text: string;
  /** The signal paths it cites. */
  evidence: readonly string[];
}

/** Signals that keep saying the same thing. */
export interface Pattern {
  /** The most frequent type among its signals. */
  type: SignalType;
  /** Oldest first. */
  signals: SignalRecord[];
  /** The words its signals share, as they wrote them, most telling first. */
  terms: string[];
  /** Tags at least two of its signals carry, most common first. */
  tags: string[];
  /** Each signal by its severity. */
  weight: number;
  /** The distinct places it happened: `project SPC-001 01-02`. */
  places: string[];
  /** How alike its signals are: their mean cosine to the pattern's centre. */
  cohesion: number;
  /** The signal closest to the pattern's centre: its excerpt stands for the rest. */
  representative: SignalRecord;
}

/** A pattern no lesson says yet, and why it qualified. */
export interface NewPattern {
  pattern: Pattern;
  why: string;
}

/** A pattern an accepted lesson already says: its signals become that lesson's evidence. */
export interface PatternLink {
  lesson: LessonRecord;
  pattern: Pattern;
  similarity: number;
  why: string;
}

export interface Skipped {
  signal: string;
  reason: string;
}

export interface Reflection {
  /** Strongest first. */
  patterns: NewPattern[];
  links: PatternLink[];
  skipped: Skipped[];
}

interface Doc {
  record: SignalRecord;
  /** Its text's terms and its tags' terms, kept for the words and tags a pattern states. */
  terms: Term[];
  tags: Term[];
  counts: TermCounts;
  ids?: IdCounts;
  vector?: Vector;
}

function signalProse(record: SignalRecord): string {
  const t = record.text;
  return t ? `${t.happened}\n${t.context}\n${t.cause}` : (record.summary ?? '');
}

function signalTerms(record: SignalRecord): { text: Term[]; tags: Term[] } {
  return { text: terms(signalProse(record)), tags: terms(record.signal.tags.join(' ')) };
}

/** A lesson's own evidence quoted in full, at most: its newest signals (a reader on GitHub fetches these and no more). */
export const LESSON_EVIDENCE_READ = 5;

/**
 * What a lesson says: its statement, when it applies and its evidence lines (without their
 * paths, whose words are file names), and the words of the newest signals it cites that are
 * at hand. The recommendation is left out: it says what to do, not what happens, and a new
 * signal of the same problem shares its words with the problem, not with the remedy.
 */
function lessonCounts(lesson: LessonRecord, cited: readonly SignalRecord[]): TermCounts {
  const evidence = lesson.text.evidence.replace(/`[^`]*`/g, ' ').replace(/\S*signals\/\S+/g, ' ');
  const text = [lesson.text.lesson, lesson.text.when, evidence, ...cited.map(signalProse)].join('\n');
  return termCounts(terms(text), terms(lesson.lesson.tags.join(' ')));
}

/** What a proposal says, without the paths it cites, and the words of the newest signals it cites that are at hand. */
function proposalCounts(p: ProposedLesson, cited: readonly SignalRecord[]): TermCounts {
  return termCounts(terms([p.text.replace(/`[^`]*`/g, ' ').replace(/\S*signals\/\S+/g, ' '), ...cited.map(signalProse)].join('\n')));
}

/** The newest signals a lesson cites among those at hand. */
export function citedRecords(lesson: { evidence: readonly string[] }, byKey: ReadonlyMap<string, SignalRecord>): SignalRecord[] {
  return lesson.evidence
    .map((path) => byKey.get(signalKey(path)))
    .filter((r): r is SignalRecord => r !== undefined)
    .sort((a, b) => byTime(b, a))
    .slice(0, LESSON_EVIDENCE_READ);
}

/** Where a signal happened, as one occurrence: a plan of a project; a signal of no plan is its own. */
function placeOf(record: SignalRecord): string {
  const s = record.signal;
  const where = s.plan !== undefined ? [s.spec, s.plan].filter((x) => x !== undefined).join(' ') : s.spec !== undefined ? `${s.spec} (${record.file})` : record.file;
  return `${s.project} ${where}`;
}

/** A signal's time in milliseconds, parsed once: sorting thousands of signals compares each many times. */
const TIMES = new WeakMap<SignalRecord, number>();

function timeOf(r: SignalRecord): number {
  let t = TIMES.get(r);
  if (t === undefined) TIMES.set(r, (t = Date.parse(r.signal.timestamp)));
  return t;
}

function byTime(a: SignalRecord, b: SignalRecord): number {
  return timeOf(a) - timeOf(b) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0);
}

function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** The most frequent of some values; ties to the one first seen. */
function mostCommon<T>(values: readonly T[]): T {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = values[0] as T;
  for (const [v, n] of counts) if (n > counts.get(best)!) best = v;
  return best;
}

/** The reflection over some signals and lessons; see the module's comment. */
export function reflect(input: ReflectInput): Reflection {
  const { settings } = input;
  const skipped: Skipped[] = (input.unreadable ?? []).map((u) => ({ signal: u.file, reason: `cannot be read: ${u.file}:${u.line}: ${u.problem}` }));

  // Gather: the signals no lesson cites yet. An accepted lesson's citation is the one named.
  const proposals = input.proposals ?? [];
  const takenBecause = new Map<string, string>();
  const take = (paths: readonly string[], reason: string) => {
    for (const path of paths) if (!takenBecause.has(signalKey(path))) takenBecause.set(signalKey(path), reason);
  };
  for (const lesson of input.lessons) take(lesson.evidence, `already evidence of lesson ${lesson.file}`);
  for (const p of proposals) take(p.evidence, `already evidence of ${describeProposal(p)}`);
  for (const b of input.unreadableLessons ?? []) take(b.evidence, `cited by ${b.file}, which cannot be read: fix ${b.file}:${b.line}: ${b.problem}`);
  for (const file of input.unread ?? []) {
    skipped.push({ signal: file, reason: takenBecause.get(signalKey(file)) ?? 'not read this time (beyond the newest signals a reflection reads); a later reflection reads it' });
  }
  const seen = new Set<string>(input.unread ?? []);
  const docs: Doc[] = [];
  for (const record of [...input.signals].sort(byTime)) {
    if (seen.has(record.file)) continue;
    seen.add(record.file);
    const taken = takenBecause.get(signalKey(record.file));
    if (taken !== undefined) {
      skipped.push({ signal: record.file, reason: taken });
      continue;
    }
    const not = NOT_REFLECTED[record.signal.type];
    if (not !== undefined) {
      skipped.push({ signal: record.file, reason: not });
      continue;
    }
    const t = signalTerms(record);
    docs.push({ record, terms: t.text, tags: t.tags, counts: termCounts(t.text, t.tags) });
  }

  // The words' weights come from everything compared: the signals and the lessons.
  const vocabulary = new Vocabulary();
  for (const d of docs) d.ids = vocabulary.add(d.counts);
  const byKey = new Map(input.signals.map((r) => [signalKey(r.file), r]));
  const knownCounts = [...input.lessons.map((lesson) => lessonCounts(lesson, citedRecords(lesson, byKey))), ...proposals.map((p) => proposalCounts(p, citedRecords(p, byKey)))];
  const knownIds = knownCounts.map((c) => vocabulary.add(c));
  for (const d of docs) d.vector = vocabulary.vector(d.ids!);
  const knownVectors = knownIds.map((c) => vocabulary.vector(c));
  const knownIndex = new VectorIndex(knownVectors);

  const groups = cluster(
    docs.map((d) => d.vector!),
    docs.map((d) => FAMILY[d.record.signal.type]!),
    settings.similarity,
  );

  const patterns: NewPattern[] = [];
  const links: PatternLink[] = [];
  for (const members of groups) {
    // A group of one is its signal: its vector is the centre, and without a lesson it is a one-off.
    const centroid = members.length === 1 ? undefined : centroidOf(members.map((i) => docs[i]!.vector!));
    const vector = centroid ? centroid.vector() : docs[members[0]!]!.vector!;
    const match = knownIndex.best(vector, settings.similarity);
    if (match === undefined && members.length === 1) {
      skipped.push({ signal: docs[members[0]!]!.record.file, reason: ONE_OFF });
      continue;
    }
    const pattern = patternOf(members.map((i) => docs[i]!), centroid ?? centroidOf([vector]), vector);
    if (match !== undefined) {
      const lesson = input.lessons[match.index];
      if (lesson === undefined) {
        const proposal = proposals[match.index - input.lessons.length]!;
        for (const s of pattern.signals) {
          skipped.push({ signal: s.file, reason: `says what the ${describeProposal(proposal)} says (similarity ${match.similarity.toFixed(2)}); reflect again once it is merged` });
        }
        continue;
      }
      links.push({ lesson, pattern, similarity: match.similarity, why: linkWhy(pattern, lesson, match.similarity) });
      continue;
    }
    const verdict = qualifies(pattern, settings);
    if (verdict === true) patterns.push({ pattern, why: qualifiedWhy(pattern, settings) });
    else for (const s of pattern.signals) skipped.push({ signal: s.file, reason: verdict });
  }

  patterns.sort((a, b) => b.pattern.weight - a.pattern.weight || b.pattern.places.length - a.pattern.places.length || byTime(a.pattern.signals[0]!, b.pattern.signals[0]!));
  links.sort((a, b) => (a.lesson.file < b.lesson.file ? -1 : a.lesson.file > b.lesson.file ? 1 : byTime(a.pattern.signals[0]!, b.pattern.signals[0]!)));
  skipped.sort((a, b) => (a.signal < b.signal ? -1 : a.signal > b.signal ? 1 : 0));
  return { patterns, links: mergeLinks(links), skipped };
}

function describeProposal(p: ProposedLesson): string {
  return `lesson ${p.file} (proposed in #${p.number})`;
}

/** Clusters linked to the same lesson become one link: one update of that lesson. */
function mergeLinks(links: PatternLink[]): PatternLink[] {
  const byLesson = new Map<string, PatternLink>();
  for (const link of links) {
    const found = byLesson.get(link.lesson.file);
    if (!found) {
      byLesson.set(link.lesson.file, link);
      continue;
    }
    const signals = [...found.pattern.signals, ...link.pattern.signals].sort(byTime);
    const pattern: Pattern = {
      ...found.pattern,
      signals,
      weight: found.pattern.weight + link.pattern.weight,
      places: [...new Set([...found.pattern.places, ...link.pattern.places])].sort(),
    };
    const similarity = Math.max(found.similarity, link.similarity);
    byLesson.set(link.lesson.file, { lesson: found.lesson, pattern, similarity, why: linkWhy(pattern, found.lesson, similarity) });
  }
  return [...byLesson.values()];
}

const ONE_OFF = 'a one-off: no other unprocessed signal says the same thing (yet)';

/** `true`, or why the pattern is not one (yet). */
function qualifies(p: Pattern, s: ReflectSettings): true | string {
  const n = p.signals.length;
  if (n === 1) return ONE_OFF;
  const alike = `${plural(n, 'alike signal')} (similarity ${p.cohesion.toFixed(2)})`;
  if (p.places.length < s.minPlans) {
    return `${alike}, all in ${p.places.length === 1 ? `one place (${p.places[0]})` : plural(p.places.length, 'place')}: a pattern must recur in ${s.minPlans} distinct plans or projects (knowledge.reflect.min_plans)`;
  }
  if (p.weight < s.minWeight) {
    return `${alike} in ${plural(p.places.length, 'place')}, of weight ${p.weight}: a pattern needs ${s.minWeight} (knowledge.reflect.min_weight; low 1, medium 2, high 3)`;
  }
  return true;
}

function severities(p: Pattern): string {
  const counts = { high: 0, medium: 0, low: 0 };
  for (const s of p.signals) counts[s.signal.severity]++;
  return (['high', 'medium', 'low'] as const)
    .filter((l) => counts[l] > 0)
    .map((l) => `${counts[l]} ${l}`)
    .join(', ');
}

function qualifiedWhy(p: Pattern, s: ReflectSettings): string {
  return (
    `${plural(p.signals.length, 'signal')} say the same thing (similarity ${p.cohesion.toFixed(2)}, at least ${s.similarity} needed) ` +
    `in ${plural(p.places.length, 'distinct place')} (${p.places.join('; ')}; at least ${s.minPlans} needed), ` +
    `with weight ${p.weight} (${severities(p)}; at least ${s.minWeight} needed)`
  );
}

function linkWhy(p: Pattern, lesson: LessonRecord, similarity: number): string {
  return `${plural(p.signals.length, 'new signal')} (${p.places.join('; ')}) ${p.signals.length === 1 ? 'says' : 'say'} what ${lesson.file} says (similarity ${similarity.toFixed(2)}): more evidence for it, not a new lesson`;
}

function centroidOf(vectors: readonly Vector[]): Centroid {
  const c = new Centroid();
  for (const v of vectors) c.add(v);
  return c;
}

/** For each stem, the words the signals wrote for it, counted. */
class SurfaceWords {
  private readonly words = new Map<string, Map<string, number>>();

  add(list: readonly Term[]): void {
    for (const term of list) {
      let m = this.words.get(term.stem);
      if (!m) this.words.set(term.stem, (m = new Map()));
      m.set(term.word, (m.get(term.word) ?? 0) + 1);
    }
  }

  /** The word most often written for a stem; the shorter on a tie. */
  of(stem: string): string {
    const m = this.words.get(stem);
    if (!m) return stem;
    return [...m].sort((a, b) => b[1] - a[1] || a[0].length - b[0].length || (a[0] < b[0] ? -1 : 1))[0]![0];
  }
}

/** Words a pattern's statement names at most. */
const PATTERN_TERMS = 6;
/** Tags a pattern's lesson carries at least, when its signals share that many words. */
const PATTERN_TAGS = 4;

function patternOf(members: readonly Doc[], centroid: Centroid, direction: Vector): Pattern {
  const surface = new SurfaceWords();
  for (const d of members) {
    surface.add(d.terms);
    surface.add(d.tags);
  }
  const signals = members.map((d) => d.record).sort(byTime);
  const sims = members.map((d) => cosine(d.vector!, direction));
  const cohesion = sims.reduce((a, b) => a + b, 0) / sims.length;
  let rep = 0;
  sims.forEach((s, i) => {
    if (s > sims[rep]! + 1e-12 || (Math.abs(s - sims[rep]!) <= 1e-12 && byTime(members[i]!.record, members[rep]!.record) < 0)) rep = i;
  });

  // The shared words: in at least two signals (and half of a larger pattern), by weight in the centre.
  const need = members.length === 1 ? 1 : Math.max(2, Math.ceil(members.length / 2));
  const inDocs = new Map<number, number>();
  for (const d of members) for (const id of d.counts.keys()) inDocs.set(id, (inDocs.get(id) ?? 0) + 1);
  const heaviest = (least: number) =>
    [...centroid.sum]
      .filter(([id]) => (inDocs.get(id) ?? 0) >= least)
      .map(([id, w]) => ({ stem: stemOf(id), w }))
      .sort((a, b) => b.w - a.w || (a.stem < b.stem ? -1 : 1));
  let shared = heaviest(need);
  if (shared.length < 2) shared = heaviest(Math.min(2, members.length));
  const words = [...new Set(shared.map((t) => surface.of(t.stem)))].slice(0, PATTERN_TERMS);

  // Tags as the signals' words are compared: sqlite3 and sqlite are one tag. Those two signals
  // share come first; the shared words fill up to PATTERN_TAGS, since a lesson is surfaced by its tags.
  const tagCounts = new Map<string, number>();
  for (const d of members) for (const stem of new Set(d.tags.map((t) => t.stem))) tagCounts.set(stem, (tagCounts.get(stem) ?? 0) + 1);
  const sharedTags = [...tagCounts]
    .filter(([, n]) => n >= 2)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([stem]) => surface.of(stem));
  const tags = [...new Set([...sharedTags, ...words])].slice(0, Math.max(PATTERN_TAGS, sharedTags.length)).map((t) => t.replace(/\s+/g, '-'));

  return {
    type: mostCommon(signals.map((s) => s.signal.type)),
    signals,
    terms: words,
    tags,
    weight: signals.reduce((w, s) => w + SEVERITY_WEIGHT[s.signal.severity], 0),
    places: [...new Set(signals.map(placeOf))].sort(),
    cohesion,
    representative: members[rep]!.record,
  };
}

/** Vectors (the lessons') found by the terms they carry, for the one most alike another vector. */
class VectorIndex {
  private readonly byTerm = new Map<number, number[]>();
  /** Which search last tried each vector: one that shares several terms is compared once. */
  private readonly tried: Int32Array;
  private search = 0;

  constructor(private readonly vectors: readonly Vector[]) {
    this.tried = new Int32Array(vectors.length);
    vectors.forEach((v, i) => {
      for (const id of v.ids) {
        const list = this.byTerm.get(id);
        if (list) list.push(i);
        else this.byTerm.set(id, [i]);
      }
    });
  }

  /** The vector most alike `v`, when it is alike enough; the first of equals. */
  best(v: Vector, threshold: number): { index: number; similarity: number } | undefined {
    if (this.vectors.length === 0) return undefined;
    this.search++;
    let best: { index: number; similarity: number } | undefined;
    for (const id of v.ids) {
      for (const i of this.byTerm.get(id) ?? []) {
        if (this.tried[i] === this.search) continue;
        this.tried[i] = this.search;
        const similarity = cosine(v, this.vectors[i]!);
        if (similarity >= threshold && (best === undefined || similarity > best.similarity || (similarity === best.similarity && i < best.index))) best = { index: i, similarity };
      }
    }
    return best;
  }
}

/** The signal paths a lesson or a pull request body cites (for callers that read evidence out of text). */
export { citedSignals };
