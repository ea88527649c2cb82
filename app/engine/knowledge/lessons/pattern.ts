import type { Level } from '../../core/documents/fields.js';
import type { Condition } from '../documents/conditions.js';
import type { SignalType } from '../documents/schema.js';
import type { SignalRecord } from '../signals/signal-record.js';
import { stemOf, type Term } from './terms.js';
import { cosine, type Centroid, type TermCounts, type Vector } from './vectors.js';

/**
 * A pattern as reflection states it: from the signals of one cluster, the words they share
 * (as they wrote them), the tags a lesson about it carries, its weight, the places it
 * happened, how alike its signals are and which one stands for the rest.
 */

/** Signals that keep saying the same thing. */
export interface Pattern {
  /** The most frequent type among its signals. */
  type: SignalType;
  /** Oldest first. */
  signals: SignalRecord[];
  /** The words its signals share, as they wrote them, most telling first. */
  terms: string[];
  /** The tags of a lesson about it: those two of its signals carry (as one word: sqlite3 is sqlite), most common first, then its shared words. */
  tags: string[];
  /** Each signal by its severity. */
  weight: number;
  /** The distinct places it happened: `project SPC-001 01-02`. */
  places: string[];
  /** How alike its signals are: their mean cosine to the pattern's centre. */
  cohesion: number;
  /** The signal closest to the pattern's centre: its excerpt stands for the rest. */
  representative: SignalRecord;
  /** The failure signature its signals share, when they are a failure's (reflection groups by it): the most often met of `signatures`. */
  signature?: string;
  /**
   * Every signature it is about: one, or several wordings of one cause (two errors the same fix
   * put right, reflect.ts), with why they are one.
   */
  signatures?: string[];
  wordings?: string;
  /** When it applies (documents/conditions.ts): what the plans that met it had that the others had not. */
  conditions?: Condition[];
  /** The plans that met it that no condition covers, and the plans it could compare (those with a profile). */
  uncovered?: number;
  known?: number;
}

/** A signal of a cluster, with what reflection computed of it. */
export interface PatternMember {
  record: SignalRecord;
  /** Its text's terms and its tags' terms, kept for the words and tags a pattern states. */
  terms: Term[];
  tags: Term[];
  counts: TermCounts;
  vector?: Vector;
}

/** How much a signal weighs towards a pattern, by its severity. */
export const SEVERITY_WEIGHT: Readonly<Record<Level, number>> = { low: 1, medium: 2, high: 3 };

/** Where a signal happened, as one occurrence: a plan of a project; a signal of no plan is its own. */
function placeOf(record: SignalRecord): string {
  const s = record.signal;
  const where =
    s.plan !== undefined ? [s.spec, s.plan].filter((x) => x !== undefined).join(' ') : s.spec !== undefined ? `${s.spec} (${record.file})` : record.file;
  return `${s.project} ${where}`;
}

/** A signal's time in milliseconds, parsed once: sorting thousands of signals compares each many times. */
const TIMES = new WeakMap<SignalRecord, number>();

function timeOf(r: SignalRecord): number {
  let t = TIMES.get(r);
  if (t === undefined) TIMES.set(r, (t = Date.parse(r.signal.timestamp)));
  return t;
}

export function byTime(a: SignalRecord, b: SignalRecord): number {
  return timeOf(a) - timeOf(b) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0);
}

/** The most frequent of some values; ties to the one first seen. */
function mostCommon<T>(values: readonly T[]): T {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = values[0] as T;
  for (const [v, n] of counts) if (n > counts.get(best)!) best = v;
  return best;
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

/** The pattern of a cluster: `centroid` is the sum of its members' vectors, `direction` that sum normalised. */
export function patternOf(members: readonly Required<PatternMember>[], centroid: Centroid, direction: Vector): Pattern {
  const surface = new SurfaceWords();
  for (const d of members) {
    surface.add(d.terms);
    surface.add(d.tags);
  }
  const signals = members.map((d) => d.record).sort(byTime);
  const sims = members.map((d) => cosine(d.vector, direction));
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
