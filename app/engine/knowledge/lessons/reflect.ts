import { appliesWhen, placeEvidence, placeKey, type PlaceEvidence } from './applies.js';
import { cluster } from './cluster.js';
import { fixChanged, fixEvidence, hasFix, sameFix, statedFix, type FixEvidence } from './same-fix.js';
import { signalKey, type LessonRecord } from './lesson-record.js';
import { byTime, patternOf, type Pattern, type PatternMember } from './pattern.js';
import type { SignalType } from '../documents/schema.js';
import type { SignalRecord, Unreadable } from '../signals/signal-record.js';
import { signatureOfMetadata } from '../signals/signature.js';
import { terms, type Term } from './terms.js';
import { VectorIndex } from './vector-index.js';
import { Centroid, termCounts, Vocabulary, type IdCounts, type TermCounts, type Vector } from './vectors.js';

export type { SignalRecord } from '../signals/signal-record.js';
export type { Pattern } from './pattern.js';
export { SEVERITY_WEIGHT } from './pattern.js';

/**
 * Reflection (docs/design.md, Knowledge): from the signals no lesson cites yet, the problems
 * that keep coming back. Signals of a failure are grouped by its signature first (the
 * normalised error line, knowledge/signals/signature.ts): one group per error, whatever the
 * words around it, so a lesson never mixes two errors, and a repair or an agent's account of
 * its fix joins the failure it repaired. The others are clustered by what they say (TF-IDF
 * cosine over their words, their tags weighing in), within a family of alike types; a cluster is a pattern
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
  // A person asking for changes on a plan's work is trouble the checks did not catch, and reflected on like a repair.
  review: 'trouble',
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
  /** The lesson's fix went stale: plans with it in their brief still failed, and a later repair recorded another fix. */
  supersede?: Supersede;
}

/** Why a lesson's fix gives way to a newer one: the failures met with it in the brief, and the repairs that recorded the new fix. */
export interface Supersede {
  /** Failure signals whose brief carried the lesson; without one, the failures the changed repairs put right. */
  failed: SignalRecord[];
  /** Whether a plan failed with the lesson's fix in its brief (else only the repairs tell: they record another fix). */
  briefed: boolean;
  /** The repairs after them, whose fix is another. */
  repairs: SignalRecord[];
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

/** A signal as reflection works on it: its words, counted, numbered and weighted. */
interface Doc extends PatternMember {
  ids?: IdCounts;
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

/** The newest signals a lesson cites among those at hand (LESSON_EVIDENCE_READ of them unless told). */
export function citedRecords(lesson: { evidence: readonly string[] }, byKey: ReadonlyMap<string, SignalRecord>, max = LESSON_EVIDENCE_READ): SignalRecord[] {
  return lesson.evidence
    .map((path) => byKey.get(signalKey(path)))
    .filter((r): r is SignalRecord => r !== undefined)
    .sort((a, b) => byTime(b, a))
    .slice(0, max);
}

function placeOfRecord(r: SignalRecord): string {
  return placeKey(r.signal.project, r.signal.spec, r.signal.plan ?? '-');
}

/** A group of signals reflection states as one pattern: its members (docs), and the signatures they share (none for a cluster by words). */
interface Group {
  members: number[];
  signatures: string[];
  /** Why several signatures are one cause. */
  wordings?: string;
}

/**
 * The signature groups, those that are one cause in several wordings joined: two failures
 * whose repairs record the same fix (same-fix.ts) were put right by the same change, so a
 * lesson about one is about the other. The most often met signature leads.
 */
function oneCause(bySignature: ReadonlyMap<string, number[]>, docs: readonly Doc[]): Group[] {
  const entries = [...bySignature];
  const fixes = entries.map(([, members]) => fixEvidence(members.map((i) => docs[i]!.record)));
  const parent = entries.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const because = new Map<number, string>();
  for (let i = 0; i < entries.length; i++) {
    if (!hasFix(fixes[i]!)) continue;
    for (let j = i + 1; j < entries.length; j++) {
      if (!hasFix(fixes[j]!) || find(i) === find(j)) continue;
      const why = sameFix(fixes[i]!, fixes[j]!);
      if (why === undefined) continue;
      parent[find(j)] = find(i);
      because.set(find(i), why);
    }
  }
  const byRoot = new Map<number, number[]>();
  entries.forEach((_, i) => byRoot.set(find(i), [...(byRoot.get(find(i)) ?? []), i]));
  return [...byRoot].map(([root, parts]) => {
    const ordered = [...parts].sort((a, b) => entries[b]![1].length - entries[a]![1].length || (entries[a]![0] < entries[b]![0] ? -1 : 1));
    const members = ordered.flatMap((k) => entries[k]![1]);
    const why = because.get(root);
    return { members, signatures: ordered.map((k) => entries[k]![0]), ...(parts.length > 1 && why !== undefined ? { wordings: why } : {}) };
  });
}

const FAILURE_TYPES = new Set(['struggle', 'stuck', 'timeout']);

/**
 * Whether a failure was met with the lesson's fix in the plan's brief: the lesson itself, or
 * another item about the same error (a brief holds one item per error: a skill may have stood
 * for the lesson).
 */
function briefedWith(r: SignalRecord, file: string, signatures: ReadonlySet<string>): boolean {
  const m = (r.signal.metadata ?? {}) as Record<string, unknown>;
  const briefed = m.briefed;
  if (Array.isArray(briefed) && briefed.some((b) => typeof b === 'string' && (b === file || file.endsWith(`/${b}`) || b.endsWith(`/${file}`)))) return true;
  const own = signatureOfMetadata(m);
  return own !== undefined && signatures.has(own) && Array.isArray(m.briefedFor) && m.briefedFor.includes(own);
}

/**
 * Whether a lesson's fix went stale. Either a plan failed with the lesson in its brief, and a
 * repair after that recorded a fix that is not the lesson's (an upgrade changed the remedy); or,
 * with no such plan, the latest repair of the same failure recorded another fix, in other terms
 * than the lesson's (not the same fix in other words, and naming code the lesson does not). Then
 * the newer fix supersedes the older one, through the same reviewed pull request; a repair that
 * says the lesson's fix again is no reason, and a later one saying it again undoes nothing it did
 * not do (the latest repair decides).
 */
function supersedes(lesson: LessonRecord, pattern: Pattern, old: FixEvidence | undefined): Supersede | undefined {
  const signatures = new Set([...(lesson.lesson.signatures ?? []), ...(pattern.signatures ?? [])]);
  const failed = pattern.signals.filter((s) => FAILURE_TYPES.has(s.signal.type) && briefedWith(s, lesson.file, signatures));
  if (failed.length === 0) return changedByRepairs(pattern, old);
  const first = failed[0]!;
  const repairs = pattern.signals.filter((s) => s.signal.type === 'repair' && byTime(first, s) < 0);
  const fresh = fixEvidence(repairs);
  if (!hasFix(fresh)) return undefined;
  if (old !== undefined && hasFix(old) && !fixChanged(old, fresh)) return undefined;
  return { failed, repairs, briefed: true };
}

/** The repairs' side alone: the latest repair, and every one like it, records another fix than the lesson's. */
function changedByRepairs(pattern: Pattern, old: FixEvidence | undefined): Supersede | undefined {
  if (old === undefined || !hasFix(old)) return undefined;
  const repairs = pattern.signals.filter((s) => s.signal.type === 'repair').sort(byTime);
  // Each repair by what its plan's agent said of the fix (the repair's account and the insight it reported): a diff alone is
  // what one plan happened to change, never a reason to replace a fix.
  const changed = repairs.filter((r) => {
    const place = placeOfRecord(r);
    const fresh = fixEvidence(pattern.signals.filter((s) => placeOfRecord(s) === place && (s.signal.type === 'repair' || s.signal.metadata?.repairs === true)));
    return fresh.statements.length > 0 && sameFix(old, fresh) === undefined && fixChanged(old, fresh);
  });
  const latest = repairs.at(-1);
  if (latest === undefined || !changed.includes(latest)) return undefined;
  const places = new Set(changed.map(placeOfRecord));
  const failed = pattern.signals.filter((s) => FAILURE_TYPES.has(s.signal.type) && places.has(placeOfRecord(s)));
  return { failed, repairs: changed, briefed: false };
}

function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** The reflection over some signals and lessons; see the module's comment. */
export function reflect(input: ReflectInput): Reflection {
  const skipped: Skipped[] = (input.unreadable ?? []).map((u) => ({ signal: u.file, reason: `cannot be read: ${u.file}:${u.line}: ${u.problem}` }));
  const docs = gatherDocs(input, skipped);
  const reflecting = weighed(input, docs, skipped);
  for (const group of groupDocs(docs, input.settings)) placeGroup(reflecting, group);
  return strongestFirst(reflecting);
}

/** The signals taken already, and why: evidence of a lesson or a proposal, or cited by a lesson that cannot be read. An accepted lesson's citation is the one named. */
function takenSignals(input: ReflectInput): Map<string, string> {
  const takenBecause = new Map<string, string>();
  const take = (paths: readonly string[], reason: string) => {
    for (const path of paths) if (!takenBecause.has(signalKey(path))) takenBecause.set(signalKey(path), reason);
  };
  for (const lesson of input.lessons) take(lesson.evidence, `already evidence of lesson ${lesson.file}`);
  for (const p of input.proposals ?? []) take(p.evidence, `already evidence of ${describeProposal(p)}`);
  for (const b of input.unreadableLessons ?? []) take(b.evidence, `cited by ${b.file}, which cannot be read: fix ${b.file}:${b.line}: ${b.problem}`);
  return takenBecause;
}

/** Gather: the signals no lesson cites yet, each once and oldest first, as docs; every other signal skipped with why. */
function gatherDocs(input: ReflectInput, skipped: Skipped[]): Doc[] {
  const takenBecause = takenSignals(input);
  for (const file of input.unread ?? []) {
    skipped.push({
      signal: file,
      reason: takenBecause.get(signalKey(file)) ?? 'not read this time (beyond the newest signals a reflection reads); a later reflection reads it',
    });
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
  return docs;
}

/** One reflection as it goes: the docs and what they are compared with (the lessons and proposals), and what it finds. */
interface Reflecting {
  input: ReflectInput;
  docs: Doc[];
  byKey: Map<string, SignalRecord>;
  /** The accepted lessons' vectors, then the proposals'. */
  knownIndex: VectorIndex;
  lessonSignatures: Set<string>[];
  /** What each accepted lesson recommends: a failure in other words that the same fix put right is the lesson's too, and a repair after its fix failed that records another makes it stale. */
  lessonFixes: FixEvidence[];
  evidence: PlaceEvidence;
  patterns: NewPattern[];
  links: PatternLink[];
  skipped: Skipped[];
}

/** The docs and the lessons and proposals as vectors: the words' weights come from everything compared, the signals and the lessons. */
function weighed(input: ReflectInput, docs: Doc[], skipped: Skipped[]): Reflecting {
  const vocabulary = new Vocabulary();
  for (const d of docs) d.ids = vocabulary.add(d.counts);
  const byKey = new Map(input.signals.map((r) => [signalKey(r.file), r]));
  const knownCounts = [
    ...input.lessons.map((lesson) => lessonCounts(lesson, citedRecords(lesson, byKey))),
    ...(input.proposals ?? []).map((p) => proposalCounts(p, citedRecords(p, byKey))),
  ];
  const knownIds = knownCounts.map((c) => vocabulary.add(c));
  for (const d of docs) d.vector = vocabulary.vector(d.ids!);
  const knownVectors = knownIds.map((c) => vocabulary.vector(c));
  return {
    input,
    docs,
    byKey,
    knownIndex: new VectorIndex(knownVectors),
    lessonSignatures: input.lessons.map((l) => new Set(l.lesson.signatures ?? [])),
    lessonFixes: input.lessons.map((l) => statedFix(l.text.recommendation)),
    evidence: placeEvidence(input.signals),
    patterns: [],
    links: [],
    skipped,
  };
}

/**
 * The docs in groups: one per cause for those with a signature (the strongest likeness there
 * is: never compared by words with others), the rest clustered by their words within a family.
 */
function groupDocs(docs: readonly Doc[], settings: ReflectSettings): Group[] {
  const bySignature = new Map<string, number[]>();
  const unsigned: number[] = [];
  docs.forEach((d, i) => {
    const signature = signatureOfMetadata(d.record.signal.metadata);
    if (signature === undefined) unsigned.push(i);
    else bySignature.set(signature, [...(bySignature.get(signature) ?? []), i]);
  });
  return [
    ...oneCause(bySignature, docs),
    ...cluster(
      unsigned.map((i) => docs[i]!.vector!),
      unsigned.map((i) => FAMILY[docs[i]!.record.signal.type]!),
      settings.similarity,
    ).map((g) => ({ members: g.map((j) => unsigned[j]!), signatures: [] })),
  ];
}

/** One group: a one-off, a pattern a known lesson or proposal says, or a new pattern (when it qualifies). */
function placeGroup(r: Reflecting, group: Group): void {
  const { members, signatures, wordings } = group;
  const { docs } = r;
  // A group of one is its signal: its vector is the centre, and without a lesson it is a one-off.
  const centroid = members.length === 1 ? undefined : centroidOf(members.map((i) => docs[i]!.vector!));
  const vector = centroid ? centroid.vector() : docs[members[0]!]!.vector!;
  const known = knownMatch(r, group, vector);
  if (known.match === undefined && members.length === 1) {
    r.skipped.push({ signal: docs[members[0]!]!.record.file, reason: ONE_OFF });
    return;
  }
  const pattern = patternOf(
    members.map((i) => docs[i]! as Required<PatternMember>),
    centroid ?? centroidOf([vector]),
    vector,
  );
  const signature = signatures[0];
  if (signature !== undefined) {
    pattern.signature = signature;
    pattern.signatures = signatures;
    if (wordings !== undefined) pattern.wordings = wordings;
  }
  if (known.match !== undefined) sayKnown(r, pattern, signatures, { match: known.match, sameBecause: known.sameBecause });
  else sayNew(r, pattern, signatures);
}

/** A lesson or proposal by its place in `knownIndex`, and how alike. */
type Match = { index: number; similarity: number };

/** The lesson or proposal (by its place in `knownIndex`) that says a group already, and how alike; why it is the same fix, when that is why. */
interface KnownMatch {
  match: Match | undefined;
  sameBecause: string | undefined;
}

/**
 * A lesson about this very error takes the group, or one whose fix is this error's fix too;
 * one about another error never does, however alike the words. Else the lesson or proposal
 * most alike in words, when alike enough.
 */
function knownMatch(r: Reflecting, group: Group, vector: Vector): KnownMatch {
  const { input, lessonSignatures } = r;
  const { members, signatures } = group;
  const signature = signatures[0];
  const fix = signature === undefined ? undefined : fixEvidence(members.map((i) => r.docs[i]!.record));
  let same = signature === undefined ? -1 : lessonSignatures.findIndex((s) => signatures.some((sig) => s.has(sig)));
  let sameBecause: string | undefined;
  if (same < 0 && fix !== undefined && hasFix(fix)) {
    same = r.lessonFixes.findIndex((f, i) => lessonSignatures[i]!.size > 0 && (sameBecause = sameFix(f, fix)) !== undefined);
  }
  const match =
    same >= 0
      ? { index: same, similarity: 1 }
      : r.knownIndex.best(
          vector,
          input.settings.similarity,
          signature === undefined ? undefined : (i) => i >= input.lessons.length || lessonSignatures[i]!.size === 0,
        );
  return { match, sameBecause };
}

/** When the pattern applies, as learnt from the plans that met it and those that did not. */
function learnConditions(pattern: Pattern, learned: ReturnType<typeof appliesWhen>): void {
  pattern.conditions = learned.conditions;
  pattern.uncovered = learned.uncovered;
  pattern.known = learned.known;
}

/**
 * A pattern a known one says: a proposal's keeps its signals until it is merged; an accepted
 * lesson's becomes a link (more evidence for it), with when it applies learnt again and any
 * sign that its fix went stale.
 */
function sayKnown(r: Reflecting, pattern: Pattern, signatures: readonly string[], known: KnownMatch & { match: Match }): void {
  const { input } = r;
  const { match, sameBecause } = known;
  const lesson = input.lessons[match.index];
  if (lesson === undefined) {
    const proposal = (input.proposals ?? [])[match.index - input.lessons.length]!;
    for (const s of pattern.signals) {
      r.skipped.push({
        signal: s.file,
        reason: `says what the ${describeProposal(proposal)} says (similarity ${match.similarity.toFixed(2)}); reflect again once it is merged`,
      });
    }
    return;
  }
  const met = [...new Set([...pattern.places, ...citedRecords(lesson, r.byKey, Infinity).map(placeOfRecord)])];
  learnConditions(pattern, appliesWhen(r.evidence, met, [lesson.file], [...new Set([...(lesson.lesson.signatures ?? []), ...signatures])]));
  const link: PatternLink = { lesson, pattern, similarity: match.similarity, why: linkWhy(pattern, lesson, match.similarity, sameBecause) };
  const stale = supersedes(lesson, pattern, r.lessonFixes[match.index]);
  if (stale) link.supersede = stale;
  r.links.push(link);
}

/** A pattern no lesson says: new when it qualifies, else its signals skipped with why. */
function sayNew(r: Reflecting, pattern: Pattern, signatures: readonly string[]): void {
  const { settings } = r.input;
  learnConditions(pattern, appliesWhen(r.evidence, pattern.places, [], signatures));
  const verdict = qualifies(pattern, settings);
  if (verdict === true) r.patterns.push({ pattern, why: qualifiedWhy(pattern, settings) });
  else for (const s of pattern.signals) r.skipped.push({ signal: s.file, reason: verdict });
}

/** The reflection as told: new patterns strongest first, links by lesson (those to one lesson merged), skipped signals by path. */
function strongestFirst(r: Reflecting): Reflection {
  const { patterns, links, skipped } = r;
  patterns.sort(
    (a, b) => b.pattern.weight - a.pattern.weight || b.pattern.places.length - a.pattern.places.length || byTime(a.pattern.signals[0]!, b.pattern.signals[0]!),
  );
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
    // The conditions learnt with more of the lesson's plans at hand, and every sign its fix went stale.
    const richer = (link.pattern.known ?? 0) > (found.pattern.known ?? 0) ? link.pattern : found.pattern;
    if (richer.conditions) pattern.conditions = richer.conditions;
    if (richer.uncovered !== undefined) pattern.uncovered = richer.uncovered;
    if (richer.known !== undefined) pattern.known = richer.known;
    pattern.signatures = [...new Set([...(found.pattern.signatures ?? []), ...(link.pattern.signatures ?? [])])];
    const stale = [found.supersede, link.supersede].filter((x): x is Supersede => x !== undefined);
    const merged: PatternLink = { lesson: found.lesson, pattern, similarity, why: [found.why, link.why].join('; ') };
    if (stale.length > 0)
      merged.supersede = {
        failed: stale.flatMap((x) => x.failed).sort(byTime),
        repairs: stale.flatMap((x) => x.repairs).sort(byTime),
        briefed: stale.some((x) => x.briefed),
      };
    byLesson.set(link.lesson.file, merged);
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

function linkWhy(p: Pattern, lesson: LessonRecord, similarity: number, sameFixBecause?: string): string {
  const said =
    sameFixBecause !== undefined
      ? `${p.signals.length === 1 ? 'is' : 'are'} another wording of what ${lesson.file} is about: its repairs record ${sameFixBecause}`
      : `${p.signals.length === 1 ? 'says' : 'say'} what ${lesson.file} says (similarity ${similarity.toFixed(2)})`;
  return `${plural(p.signals.length, 'new signal')} (${p.places.join('; ')}) ${said}: more evidence for it, not a new lesson`;
}

function centroidOf(vectors: readonly Vector[]): Centroid {
  const c = new Centroid();
  for (const v of vectors) c.add(v);
  return c;
}
