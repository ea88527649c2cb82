import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { recognisedError } from '../../../../../app/engine/core/verify/telling-line.js';
import type { Recogniser } from '../../../../../app/engine/core/verify/telling/recogniser.js';
import { failureSignature } from '../../../../../app/engine/knowledge/signals/signature.js';

/** The tools' real output (test/fixtures/tool-output/README.md says how each was captured). */
const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '../../../../fixtures/tool-output');

export function output(file: string): string[] {
  return readFileSync(join(ROOT, file), 'utf8').split('\n');
}

/** What recognisedError reads off a fixture: its line and tool. */
export function recognised(file: string): { line: string; tool: string } | undefined {
  return recognisedError(output(file));
}

/** The signature a failure with this output gets: only ever from a recognised line. */
export function signature(file: string): string | undefined {
  return failureSignature(recognisedError(output(file))?.line);
}

/** Signatures of fixtures that are one kind of failure met by different plans: one signature, and one there is. */
export function expectOneSignature(...files: string[]): void {
  const all = files.map(signature);
  expect(all[0]).toBeDefined();
  expect(new Set(all).size, files.map((f, i) => `${f}: ${all[i]}`).join('\n')).toBe(1);
}

/** Fixtures that are different kinds of failure: as many signatures as files. */
export function expectDistinctSignatures(...files: string[]): void {
  const all = files.map(signature);
  for (const s of all) expect(s).toBeDefined();
  expect(new Set(all).size, files.map((f, i) => `${f}: ${all[i]}`).join('\n')).toBe(files.length);
}

const K = 100_000;
/**
 * Lines of 100 kB shaped to make a backtracking pattern work hardest: long runs of what a
 * pattern repeats, with the character it needs to end missing, after every prefix a
 * recogniser looks for.
 */
export const HOSTILE: readonly string[] = [
  'a'.repeat(K),
  `${' '.repeat(K)}x`,
  `${'a.'.repeat(K / 2)}Error`,
  `${'a:1'.repeat(K / 3)}:`,
  `${'(1,1)'.repeat(K / 5)}: error`,
  `    order_test.go:1: ${'a: '.repeat(K / 3)}`,
  `E   ${'psycopg2.'.repeat(K / 9)}`,
  `${'relation "'.repeat(K / 10)}`,
  `thread 'a' panicked at '${"a', ".repeat(K / 4)}`,
  `org.${'a.'.repeat(K / 2)}`,
  `npm error ${'code '.repeat(K / 5)}`,
  `go: ${'a: '.repeat(K / 3)}`,
  `[ERROR] Failed to execute goal ${'a: '.repeat(K / 3)}`,
  `${'a > '.repeat(K / 4)}FAILE`,
  `docker: Error response from daemon: ${'"'.repeat(K)}`,
  `${'1'.repeat(K)}g`,
  `${'ab12'.repeat(K / 4)}g`,
  `query: ${'a: '.repeat(K / 3)}`,
  `x.rb:1:in 'a': ${' (A::'.repeat(K / 5)}`,
  `Error 1146 (42S02): Table '${"a'".repeat(K / 2)}`,
  `${'\u001b['.repeat(K / 2)}`,
];

/** A recogniser given every hostile line, alone and among other output, returns. */
export function expectReturnsOnHostileInput(recogniser: Recogniser): void {
  for (const line of HOSTILE) {
    expect(() => recogniser.find([line])).not.toThrow();
    recogniser.find(['--- FAIL: TestX (0.00s)', line, '=== RUN TestY', 'Failures:', '  1) x', 'Failure/Error: x', line]);
  }
}
