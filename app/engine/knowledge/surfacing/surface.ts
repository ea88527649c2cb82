import picomatch from 'picomatch';
import { KNOWLEDGE_OVERHEAD, knowledgeLine, CHARS_PER_TOKEN } from '../../core/agents/knowledge-brief.js';
import { globsOverlap, hasMagic, PICOMATCH_OPTIONS } from '../../core/graph/glob.js';
import type { Check, Plan } from '../../core/spec/model.js';
import { planGlobKeys } from './file-keys.js';
import { type IndexedEntry, type KnowledgeIndex, type Postings } from './knowledge-index.js';
import type { SurfacedEntry } from '../documents/loop.js';
import { bestMet, describeCondition, type Condition } from '../documents/conditions.js';
import { profileFeatures, profileOfPlan } from '../documents/plan-profile.js';
import { wordCounts, wordForms } from '../documents/words.js';
import { geneBalance } from './gene-balance.js';

/**
 * Surfacing: which of the store's accepted lessons, skills and genes apply to a plan, best
 * first, within what the brief can spare (docs/knowledge.md, Surfacing). An entry reaches a
 * plan only with evidence that the plan meets its cause, and each reason is kept apart so that
 * it can be told:
 *
 * - the plan's earlier attempt failed with an error the entry is about (its failure signature,
 *   on a retried or resumed plan): the strongest sign there is, and enough alone;
 * - the plan meets one of the entry's conditions (documents/conditions.ts: the commands its
 *   checks run, the modules it reads and imports, the words it says) that makes the failure at
 *   least as likely as not; an entry with conditions applies before a first attempt by these
 *   alone;
 * - for an entry without conditions, its own words meet the plan's: half its tags, or both a
 *   close text (tf-idf cosine over the whole store) and many of its trigger words.
 *
 * A file the entry names adds to its score but never makes it apply: a folder says nothing of a
 * cause. One scoring below MIN_SCORE or far below the best is not surfaced; a lesson's
 * confidence and a gene's record weigh its score. The brief holds each item once (an error, a
 * fix) and whole: an entry that does not fit gives way to a shorter one.
 */

export interface SurfaceOptions {
  /** Tokens the brief's section may take, about four characters each (knowledge.surface.budget_tokens). */
  budgetTokens: number;
  /** Entries at most (knowledge.surface.max_entries). */
  maxEntries: number;
  /** The share of entries and of the budget candidate genes may take (knowledge.genes.candidate_share); see geneBalance. */
  candidateShare?: number;
}

export const DEFAULT_SURFACE: SurfaceOptions = { budgetTokens: 500, maxEntries: 5 };

/** What a plan offers to be matched: its words, its files, its profile and the signatures of its earlier attempts' failures. */
export interface SurfaceSubject {
  /** The plan's own words: title, body, truths, requirements, checks (never its paths: a folder says nothing of a cause). */
  text: string;
  files: string[];
  /** Its profile's features (documents/plan-profile.ts): the commands its checks run, the modules its files import, its words. */
  features?: ReadonlySet<string>;
  signatures?: string[];
}

const TAG_WEIGHT = 2;
const FILE_WEIGHT = 2.5;
const MORE_FILES_WEIGHT = 0.5;
const MAX_FILE_SCORE = 3.5;
const TRIGGER_WEIGHT = 2;
const TEXT_WEIGHT = 4;
/** The error the plan's earlier attempt met: what the knowledge is about, whatever the words. */
const SIGNATURE_WEIGHT = 6;
/** Below this an entry does not apply, however few others do. */
export const MIN_SCORE = 1.5;
/**
 * Without a file or half its tags in the plan, an entry applies only when the plan both says
 * much the same things and has many of its trigger words: words every plan has (tests, run,
 * src) make up a good part of any similarity, and alone they prove nothing.
 */
const TEXT_GATE = 0.25;
const TRIGGER_GATE = 0.3;
const TAG_GATE = 0.5;
/** An entry scoring under this share of the best is noise beside it. */
const RELATIVE_FLOOR = 0.25;
/** A condition met, by how likely it makes the failure: a sure one weighs as much as the error itself. */
const CONDITION_WEIGHT = 6;

/**
 * What a check says about the work: its type and what it runs or looks at. Its id is the
 * plan's own name for it, and the words a brief wraps around checks ("the tests … pass") are
 * in every plan, so they say nothing about this one.
 */
function checkWords(check: Check): string {
  const values = Object.entries(check).flatMap(([key, value]) => (key === 'id' || key === 'type' || typeof value !== 'string' ? [] : [value]));
  return [check.type.replace(/_/g, ' '), ...values].join(' ');
}

/**
 * A plan as surfacing reads it; `imports`, the modules its files that exist import (read by the
 * caller), complete its profile. Its paths are not among its words: plans of one folder meet
 * different causes, and a folder's name in every one of them would make them all look alike.
 */
export function planSubject(plan: Plan, imports: readonly string[] = []): SurfaceSubject {
  const text = [plan.title, plan.body.replace(/<!--[\s\S]*?-->/g, ' '), ...plan.truths, ...plan.requirements, ...plan.mustPass.map(checkWords)].join('\n');
  return { text, files: [...plan.filesModified, ...plan.filesRead], features: profileFeatures(profileOfPlan(plan, imports)) };
}

interface Match {
  tags: number[];
  files: { entry: string; plan: string }[];
  signature?: string;
  /** The condition of the entry's the plan meets, and how likely it makes the failure. */
  condition?: { condition: Condition; chance: number };
}

interface Scored {
  index: number;
  score: number;
}

function matchOf(map: Map<number, Match>, index: number): Match {
  let m = map.get(index);
  if (!m) map.set(index, (m = { tags: [], files: [] }));
  return m;
}

/** A file a piece of knowledge names against a plan's glob: the same path, a glob over it, or (for a bare name) the same file name. */
function fileMeets(entryFile: string, planGlob: string, matcher: (path: string) => boolean): boolean {
  if (!entryFile.includes('/')) {
    const name = planGlob.slice(planGlob.lastIndexOf('/') + 1);
    return hasMagic(entryFile) || hasMagic(name) ? globsOverlap(entryFile, name) : entryFile === name;
  }
  if (!hasMagic(entryFile)) {
    if (matcher(entryFile)) return true;
    // A path without an extension may be a directory: `src/db` names what is under it.
    return !/\.[A-Za-z0-9]+$/.test(entryFile) && globsOverlap(`${entryFile}/**`, planGlob);
  }
  return globsOverlap(entryFile, planGlob);
}

function fileMatches(index: KnowledgeIndex, files: readonly string[], found: Map<number, Match>): void {
  for (const glob of files) {
    const matcher = picomatch(glob, PICOMATCH_OPTIONS);
    const seen = new Set<number>();
    for (const key of planGlobKeys(glob)) {
      for (const i of index.files.get(key) ?? []) {
        if (seen.has(i)) continue;
        seen.add(i);
        const entry = index.entries[i]!;
        const named = entry.files.find((f) => fileMeets(f, glob, matcher));
        if (named === undefined) continue;
        const m = matchOf(found, i);
        if (!m.files.some((f) => f.entry === named)) m.files.push({ entry: named, plan: glob });
      }
    }
  }
}

function why(entry: IndexedEntry, match: Match | undefined, triggerWords: string[], similarity: number): string {
  const parts: string[] = [];
  if (match?.signature !== undefined) parts.push(`the error of its earlier attempt: ${match.signature}`);
  if (match?.condition !== undefined)
    parts.push(`a plan ${describeCondition(match.condition.condition)}: ${Math.round(match.condition.chance * 100)}% likely to meet it`);
  if (match && match.tags.length > 0) {
    const tags = [...match.tags].sort((a, b) => a - b).map((k) => entry.tags[k]!.tag);
    parts.push(`tags ${tags.join(', ')}${tags.length < entry.tags.length ? ` (${tags.length} of ${entry.tags.length})` : ''}`);
  }
  if (match && match.files.length > 0) {
    parts.push(`names ${match.files.map((f) => (f.entry === f.plan ? f.entry : `${f.entry} (plan: ${f.plan})`)).join(', ')}`);
  }
  if (triggerWords.length > 0) parts.push(`its trigger words ${triggerWords.slice(0, 5).join(', ')}`);
  if (similarity >= 0.05) parts.push(`text similarity ${similarity.toFixed(2)}`);
  return parts.join('; ');
}

/** The section's characters with these lines in it (knowledgeBrief joins them with newlines). */
function sectionChars(lines: readonly string[]): number {
  return lines.length === 0 ? 0 : KNOWLEDGE_OVERHEAD + lines.reduce((n, l) => n + l.length + 1, 0) - 1;
}

/**
 * The entries that apply to a plan, best first, within the budget: each is taken whole if
 * its line fits, else with its text cut to what is left (when enough is left to be worth
 * reading), else passed over for a shorter one further down; never more than maxEntries.
 */
export function surface(index: KnowledgeIndex, subject: SurfaceSubject, options: SurfaceOptions = DEFAULT_SURFACE): SurfacedEntry[] {
  if (options.maxEntries <= 0 || options.budgetTokens <= 0 || index.entries.length === 0) return [];
  const s = startSurfacing(index, subject);
  weighText(s);
  weighTriggers(s);
  matchEntries(s);
  return fitInBrief(s, ranked(s), options);
}

/**
 * One plan against the store as it goes. Accumulators by entry number: a common word reaches
 * most of a large store, and a typed array takes that in stride where an object per entry would not.
 */
interface Surfacing {
  index: KnowledgeIndex;
  subject: SurfaceSubject;
  /** The plan's words, counted. */
  counts: Map<string, number>;
  similarity: Float64Array;
  trigger: Float64Array;
  reached: Uint8Array;
  /** The entries reached, in the order they were. */
  touched: number[];
  matches: Map<number, Match>;
  /** The plan's own forms of its words, read once when first asked for. */
  forms?: Map<string, string>;
}

function startSurfacing(index: KnowledgeIndex, subject: SurfaceSubject): Surfacing {
  const n = index.entries.length;
  return {
    index,
    subject,
    counts: wordCounts(subject.text),
    similarity: new Float64Array(n),
    trigger: new Float64Array(n),
    reached: new Uint8Array(n),
    touched: [],
    matches: new Map(),
  };
}

/** An entry reached by the plan, once. */
function touch(s: Surfacing, i: number): void {
  if (s.reached[i] === 0) {
    s.reached[i] = 1;
    s.touched.push(i);
  }
}

/** Text similarity: the plan's tf-idf vector (by the store's rarity) against each entry's. */
function weighText(s: Surfacing): void {
  const { index } = s;
  let norm = 0;
  const planWeights: [Postings, number][] = [];
  for (const [w, c] of s.counts) {
    const idf = index.idf.get(w);
    if (idf === undefined) continue;
    const weight = (1 + Math.log(c)) * idf;
    planWeights.push([index.text.get(w)!, weight]);
    norm += weight * weight;
  }
  norm = Math.sqrt(norm);
  for (const [postings, weight] of planWeights) {
    const share = weight / norm;
    const { entries, weights } = postings;
    for (let k = 0; k < entries.length; k++) {
      const i = entries[k]!;
      s.similarity[i] += share * weights[k]!;
      touch(s, i);
    }
  }
}

/** The entries' trigger words the plan has, by their weight. */
function weighTriggers(s: Surfacing): void {
  for (const w of s.counts.keys()) {
    const postings = s.index.triggers.get(w);
    if (!postings) continue;
    const { entries, weights } = postings;
    for (let k = 0; k < entries.length; k++) {
      const i = entries[k]!;
      s.trigger[i] += weights[k]!;
      touch(s, i);
    }
  }
}

/** What else of an entry's the plan meets: its tags, the files it names, the error it is about, a condition of its. */
function matchEntries(s: Surfacing): void {
  const { index, subject, counts, matches } = s;
  for (const w of counts.keys()) {
    const postings = index.tags.get(w);
    if (!postings) continue;
    for (let k = 0; k < postings.entries.length; k++) {
      const i = postings.entries[k]!;
      const tag = index.entries[i]!.tags[postings.weights[k]!]!;
      if (tag.words.every((t) => counts.has(t))) matchOf(matches, i).tags.push(postings.weights[k]!);
    }
  }
  fileMatches(index, subject.files, matches);
  if (subject.signatures && subject.signatures.length > 0) {
    const met = new Set(subject.signatures);
    index.entries.forEach((entry, i) => {
      const signature = entry.signatures?.find((sig) => met.has(sig));
      if (signature !== undefined) matchOf(matches, i).signature = signature;
    });
  }
  // Knowledge that says when it applies is put to every plan: the conditions are few, and a plan may meet one by its imports alone.
  const features = subject.features ?? new Set<string>();
  for (const i of index.conditioned) {
    const best = bestMet(index.entries[i]!.conditions!, features);
    if (best) matchOf(matches, i).condition = best;
  }
  for (const i of matches.keys()) touch(s, i);
}

/** The entries that apply, best first (by path when alike). */
function ranked(s: Surfacing): Scored[] {
  const { index } = s;
  const scored: Scored[] = [];
  for (const i of s.touched) {
    const score = scoreOf(s, i);
    if (score !== undefined && score >= MIN_SCORE) scored.push({ index: i, score });
  }
  scored.sort((a, b) => b.score - a.score || (index.entries[a.index]!.path < index.entries[b.index]!.path ? -1 : 1));
  return scored;
}

/** An entry's score for the plan, or undefined when it does not apply. */
function scoreOf(s: Surfacing, i: number): number | undefined {
  const { similarity, trigger } = s;
  const entry = s.index.entries[i]!;
  const match = s.matches.get(i);
  const tagShare = match === undefined || entry.tags.length === 0 ? 0 : match.tags.length / entry.tags.length;
  const files = match === undefined || match.files.length === 0 ? 0 : Math.min(MAX_FILE_SCORE, FILE_WEIGHT + MORE_FILES_WEIGHT * (match.files.length - 1));
  const signature = match?.signature !== undefined ? SIGNATURE_WEIGHT : 0;
  const condition = match?.condition !== undefined ? CONDITION_WEIGHT * match.condition.chance : 0;
  // The error met, or a condition met; knowledge that says when it applies and whose conditions the plan does not meet does not apply before the first attempt.
  // Without conditions, the entry's own words must meet the plan's: half its tags, or a close text with many of its trigger words. A file alone never does.
  const applies =
    signature > 0 ||
    condition > 0 ||
    (entry.conditions === undefined && (tagShare >= TAG_GATE || (similarity[i]! >= TEXT_GATE && trigger[i]! >= TRIGGER_GATE)));
  if (!applies) return undefined;
  return entry.weight * (signature + condition + TAG_WEIGHT * tagShare * tagShare + files + TRIGGER_WEIGHT * trigger[i]! + TEXT_WEIGHT * similarity[i]!);
}

/** The entries taken into the brief, best first, within the budget and the genes' balance, each item once. */
function fitInBrief(s: Surfacing, scored: readonly Scored[], options: SurfaceOptions): SurfacedEntry[] {
  const floor = (scored[0]?.score ?? 0) * RELATIVE_FLOOR;
  const budget = options.budgetTokens * CHARS_PER_TOKEN;
  const lines: string[] = [];
  const out: SurfacedEntry[] = [];
  const balance = geneBalance(options, budget);
  // Nothing twice: a lesson and a skill about the same error, or two entries giving the same fix, are one item; the better placed stays.
  const saidErrors = new Set<string>();
  const saidFixes = new Set<string>();
  for (const c of scored) {
    if (out.length >= options.maxEntries || c.score < floor) break;
    const entry = s.index.entries[c.index]!;
    if (!balance.admits(entry)) continue;
    const fixKey = entry.text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, ' ')
      .trim();
    if ((entry.signatures ?? []).some((sig) => saidErrors.has(sig)) || (fixKey !== '' && saidFixes.has(fixKey))) continue;
    const chosen = surfacedEntry(s, entry, c);
    balance.cap(entry, chosen);
    // Whole or not at all: a fix cut short ("start it with `docker …") is worse than none; a shorter entry further down may fit.
    const line = knowledgeLine(chosen);
    if (sectionChars([...lines, line]) > budget) continue;
    if (!balance.take(entry, line)) continue;
    lines.push(line);
    out.push(chosen);
    for (const sig of entry.signatures ?? []) saidErrors.add(sig);
    if (fixKey !== '') saidFixes.add(fixKey);
  }
  return out;
}

/** An entry as the brief carries it, with why it applies. */
function surfacedEntry(s: Surfacing, entry: IndexedEntry, c: Scored): SurfacedEntry {
  return {
    path: entry.path,
    kind: entry.kind,
    title: entry.title,
    text: entry.text,
    score: Math.round(c.score * 1000) / 1000,
    why: why(entry, s.matches.get(c.index), triggerWords(s, entry), s.similarity[c.index]!),
    ...(entry.origin ? { origin: entry.origin } : {}),
    ...(entry.signatures && entry.signatures.length > 0 ? { signatures: [...entry.signatures] } : {}),
  };
}

/** The plan's own words for the entry's trigger words it has, the rarest first: they are the ones that tell. */
function triggerWords(s: Surfacing, entry: IndexedEntry): string[] {
  return entry.triggers
    .filter((t) => s.counts.has(t.word))
    .sort((a, b) => b.share - a.share || (a.word < b.word ? -1 : 1))
    .map(({ word }) => (s.forms ??= wordForms(s.subject.text)).get(word) ?? word);
}
