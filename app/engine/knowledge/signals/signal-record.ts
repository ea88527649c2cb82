import { findSection, sections } from '../../core/documents/sections.js';
import type { Problem } from '../../core/spec/problem.js';
import { parseKnowledge } from '../documents/parse.js';
import type { Signal } from '../documents/schema.js';

/** The prose of a signal, section by section, comments and unfilled placeholders left out. */
export interface SignalText {
  happened: string;
  context: string;
  cause: string;
}

/** A signal as reflection reads it: where it is filed, its frontmatter, and its prose. */
export interface SignalRecord {
  /** Its path as cited in a lesson's evidence: relative to the repository root (`.harness/knowledge/signals/…`). */
  file: string;
  signal: Signal;
  /** The first line under "What happened", for the evidence lists. */
  summary?: string;
  /** The three sections; absent when the record was made from the frontmatter alone. */
  text?: SignalText;
}

/** A knowledge file that cannot be read: the first error, with its line, as the parser words it. */
export interface Unreadable {
  file: string;
  line: number;
  problem: string;
}

/** Evidence lines stay one line: the first sentence-ish of what happened, capped. */
export const SUMMARY_MAX = 160;

/** A section's text as prose: HTML comments and `{{placeholders}}` nobody filled in are not. */
export function prose(content: string | undefined): string {
  return (content ?? '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/\{\{\s*[A-Za-z][A-Za-z0-9_.-]*\s*\}\}/g, '')
    .trim();
}

/** The first non-empty line of a text, capped at `max` characters. */
export function firstLine(text: string, max: number = SUMMARY_MAX): string | undefined {
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (line === undefined) return undefined;
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function unreadable(file: string, problems: readonly Problem[]): Unreadable {
  const error = problems.find((p) => p.severity === 'error');
  return { file, line: error?.line ?? 1, problem: error?.message ?? 'not a signal' };
}

/**
 * A signal file as reflection reads it, or why it cannot be read: a signal with any error is
 * left out rather than guessed at, and reflection says which and why.
 */
export function readSignal(file: string, text: string): SignalRecord | Unreadable {
  const parsed = parseKnowledge('signal', file, text);
  if (!parsed.data || parsed.problems.some((p) => p.severity === 'error')) return unreadable(file, parsed.problems);
  const all = sections(parsed.body ?? '', parsed.bodyLine ?? 1);
  const happened = prose(findSection(all, 'What happened')?.content);
  const record: SignalRecord = {
    file,
    signal: parsed.data,
    text: { happened, context: prose(findSection(all, 'Context')?.content), cause: prose(findSection(all, 'Potential cause')?.content) },
  };
  const summary = firstLine(happened);
  if (summary !== undefined) record.summary = summary;
  return record;
}

export function isUnreadable(read: SignalRecord | Unreadable | object): read is Unreadable {
  return 'problem' in read;
}
