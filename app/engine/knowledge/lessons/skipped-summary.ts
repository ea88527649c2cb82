import type { Skipped } from './reflect.js';

/** Why signals were not made into lessons, counted by kind of reason. */
const REASONS: readonly [RegExp, string][] = [
  [/^already evidence of lesson .* \(proposed in/, 'evidence of a proposed lesson'],
  [/^already evidence of/, 'evidence of a lesson already'],
  [/^cited by /, 'cited by a lesson that cannot be read'],
  [/^a one-off/, 'one-offs'],
  [/all in one place/, 'recurring in one place only'],
  [/a pattern needs \d/, 'under the weight a pattern needs'],
  [/^says what the lesson/, 'like a proposed lesson, waiting for it to be merged'],
  [/^not read this time/, 'not read this time'],
  [/^cannot be read/, 'unreadable'],
  [/^a (completion|use) signal/, 'completion or use signals, which are not reflected on'],
];

/** The skipped signals counted by kind of reason, for a line a person reads: `3 one-offs, 2 evidence of a lesson already`. */
export function skippedSummary(skipped: readonly Skipped[]): string {
  const counts = new Map<string, number>();
  for (const s of skipped) {
    const kind = REASONS.find(([re]) => re.test(s.reason))?.[1] ?? 'other reasons';
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts].map(([kind, n]) => `${n} ${kind}`).join(', ');
}
