import { signalKey } from '../lessons/lesson-record.js';
import type { SkillCandidate } from './skill-candidate.js';
import { wordCounts } from '../documents/words.js';

/** Knowledge a candidate may already be: a lesson, an active or archived skill, a spike's decision. */
export interface KnownEntry {
  /** Its path in the store (`skills/x/SKILL.md`, `skills-archived/x/SKILL.md`, …). */
  path: string;
  kind: 'lesson' | 'skill' | 'archived-skill' | 'decision';
  /** A skill's name; a lesson's or decision's file name. */
  name: string;
  /** What it is about: title, description, triggers. */
  text: string;
  /** The signal paths it cites. */
  evidence: readonly string[];
}

/** How alike (cosine of their words) a candidate and an entry must be for the candidate to be the entry again. */
export const DUPLICATE_SIMILARITY = 0.5;

function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [w, n] of a) {
    na += n * n;
    dot += n * (b.get(w) ?? 0);
  }
  for (const n of b.values()) nb += n * n;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

export interface Duplicate {
  entry: KnownEntry;
  why: string;
}

/**
 * The entry a candidate duplicates, if any, best first: one citing the same evidence (it was
 * extracted from this before), one with the name it would get, else the most alike in words
 * at DUPLICATE_SIMILARITY or more. A lesson never duplicates the candidate drawn from it.
 */
export function findDuplicate(c: SkillCandidate, name: string, known: readonly KnownEntry[], similarity = DUPLICATE_SIMILARITY): Duplicate | undefined {
  const others = known.filter((k) => c.id !== `lesson:${k.path}` && !c.id.endsWith(`:${k.path}`));
  const mine = new Set(c.evidence.filter((e) => /signals\//.test(e)).map(signalKey));
  const shared = others.find((k) => k.evidence.some((e) => mine.has(signalKey(e))));
  if (shared) return { entry: shared, why: `it cites the same evidence (${[...mine].find((e) => shared.evidence.some((x) => signalKey(x) === e))})` };
  const named = others.find((k) => (k.kind === 'skill' || k.kind === 'archived-skill') && k.name === name);
  if (named) return { entry: named, why: `a skill named ${name} exists` };
  const words = wordCounts([c.title, ...c.triggers, c.problem].join('\n'));
  let best: { entry: KnownEntry; score: number } | undefined;
  for (const k of others) {
    const score = cosine(words, wordCounts(k.text));
    if (score >= similarity && (!best || score > best.score)) best = { entry: k, score };
  }
  return best ? { entry: best.entry, why: `it says what it says (${Math.round(best.score * 100)}% alike in words)` } : undefined;
}
