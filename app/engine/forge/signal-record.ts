import { findSection, sections } from '../core/documents/sections.js';
import { parseKnowledge } from '../knowledge/parse.js';
import type { SignalRecord } from '../knowledge/reflect.js';

/** Evidence lines stay one line: the first sentence-ish of what happened, capped. */
const SUMMARY_MAX = 160;

/**
 * A signal file as reflection reads it, or the reason it cannot be read: a signal with any
 * error is left out rather than guessed at, and the answer says how many were.
 */
export function signalRecord(file: string, text: string): SignalRecord | { file: string; problem: string } {
  const parsed = parseKnowledge('signal', file, text);
  const error = parsed.problems.find((p) => p.severity === 'error');
  if (!parsed.data || error) return { file, problem: error?.message ?? 'not a signal' };
  const record: SignalRecord = { file, signal: parsed.data };
  const what = findSection(sections(parsed.body ?? '', parsed.bodyLine ?? 1), 'What happened');
  const first = what?.content
    .replace(/<!--[\s\S]*?-->/g, '')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (first) record.summary = first.length > SUMMARY_MAX ? `${first.slice(0, SUMMARY_MAX - 1)}…` : first;
  return record;
}
