import type { Signal, SignalType } from './schema.js';

/** A signal as reflection reads it: where it is filed, its frontmatter, and its first line of prose. */
export interface SignalRecord {
  file: string;
  signal: Signal;
  /** The first line under "What happened", for the lesson's evidence list. */
  summary?: string;
}

/** Signals of one type that share tags: something that keeps happening, worth a lesson. */
export interface Pattern {
  type: SignalType;
  /** The tags every signal of the pattern carries, sorted. */
  tags: string[];
  /** Oldest first. */
  signals: SignalRecord[];
}

/** One signal is an event; two of a kind sharing a tag are a pattern (`/harness reflect`). */
export const MIN_EVIDENCE = 2;

/**
 * The recurring patterns among signals: for each signal type and tag, the signals carrying
 * both, when there are at least MIN_EVIDENCE of them. Tags that pick out the same signals are
 * one pattern with all those tags; a pattern whose signals all belong to a larger pattern of
 * the same type is left out, since that lesson cites the same evidence. Largest first, then
 * by type and tags, so that the same signals always give the same answer.
 */
export function reflect(records: readonly SignalRecord[]): Pattern[] {
  const unique = new Map<string, SignalRecord>();
  for (const r of records) if (!unique.has(r.file)) unique.set(r.file, r);

  const groups = new Map<string, { type: SignalType; tag: string; files: string[] }>();
  for (const r of [...unique.values()].sort(byTime)) {
    for (const tag of new Set(r.signal.tags)) {
      const key = `${r.signal.type}\u0000${tag}`;
      const group = groups.get(key) ?? { type: r.signal.type, tag, files: [] };
      group.files.push(r.file);
      groups.set(key, group);
    }
  }

  // Tags with the same signals (of the same type) merge into one pattern.
  const merged = new Map<string, Pattern>();
  for (const g of groups.values()) {
    if (g.files.length < MIN_EVIDENCE) continue;
    const key = `${g.type}\u0000${g.files.join('\u0000')}`;
    const found = merged.get(key);
    if (found) found.tags.push(g.tag);
    else merged.set(key, { type: g.type, tags: [g.tag], signals: g.files.map((f) => unique.get(f)!) });
  }

  const patterns = [...merged.values()];
  for (const p of patterns) p.tags.sort();
  return patterns
    .filter((p) => !patterns.some((q) => q !== p && q.type === p.type && q.signals.length > p.signals.length && p.signals.every((s) => q.signals.includes(s))))
    .sort((a, b) => b.signals.length - a.signals.length || a.type.localeCompare(b.type) || a.tags.join(' ').localeCompare(b.tags.join(' ')));
}

function byTime(a: SignalRecord, b: SignalRecord): number {
  return Date.parse(a.signal.timestamp) - Date.parse(b.signal.timestamp) || a.file.localeCompare(b.file);
}
