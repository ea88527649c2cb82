import { earliest, nextSaying, prepare, unframed, type Found, type Recogniser } from './recogniser.js';

/**
 * JavaScript test runners: jest (`● orders › creates an order`, then the error's first line),
 * vitest (` FAIL  src/order.test.ts > orders > creates an order`, then the error's line),
 * node:test's TAP (`not ok 1 - adds`, then `error: |-` and its message, or `error: '…'`) and
 * spec reporter (`✖ adds (2.4ms)`, then the error's line). The test's name is never the cause;
 * the line under it is. node:test's `error: 'test failed'` only says a file failed: its cause
 * is the stack head printed above it, which the generic recogniser reads.
 */

/** jest's heading of a failing test (its console output is headed `● Console`). */
const JEST_TEST = /^\s*● (?!Console$)\S/;
/** vitest's heading of a failing test or file: ` FAIL  src/x.test.ts > suite > test`. */
const VITEST_FAIL = /^\s*FAIL\s{1,2}\S+\.[cm]?[jt]sx? (?:> |\[ )/;
/** node:test's spec reporter: `✖ name (2.4ms)`, not the `✖ failing tests:` heading. */
const SPEC_FAIL = /^\s*✖ (?!failing tests:)\S.*\(\d[\d.]*m?s\)$/;
const TAP_NOT_OK = /^\s*not ok \d+ /;
const TAP_ERROR = /^\s*error: (.*)$/;
const YAML_BLOCK = /^[|>][-+]?$/;
/** A runner's own location and source lines under a heading: `❯ src/x.test.ts:6:34`, `at …`. */
const NOT_A_MESSAGE = /^(?:❯ |at |\d+\s*\||>\s*\d+\s*\|)/;

function under(lines: readonly string[], heading: RegExp, tool: string): Found | undefined {
  for (let at = 0; at < lines.length; at++) {
    if (!heading.test(lines[at]!)) continue;
    const next = nextSaying(lines, at + 1);
    if (next === undefined) continue;
    const line = unframed(lines[next]!);
    if (!NOT_A_MESSAGE.test(line)) return { at: next, line, tool };
  }
  return undefined;
}

function tap(lines: readonly string[]): Found | undefined {
  for (let at = 0; at < lines.length; at++) {
    if (!TAP_NOT_OK.test(lines[at]!)) continue;
    // The YAML block under it, up to its end (`...`) or the next test.
    for (let i = at + 1; i < lines.length && !/^\s*(?:\.\.\.|not ok |ok )/.test(lines[i]!); i++) {
      const m = TAP_ERROR.exec(lines[i]!);
      if (m === null) continue;
      const value = m[1]!.trim();
      if (value === "'test failed'") break;
      if (!YAML_BLOCK.test(value)) return { at: i, line: `error: ${value}`, tool: 'node:test' };
      const message = nextSaying(lines, i + 1, 3);
      if (message !== undefined) return { at: i, line: `error: ${lines[message]!.trim()}`, tool: 'node:test' };
    }
  }
  return undefined;
}

export const node: Recogniser = {
  name: 'node',
  find(output) {
    const lines = prepare(output);
    return earliest(under(lines, JEST_TEST, 'jest'), under(lines, VITEST_FAIL, 'vitest'), under(lines, SPEC_FAIL, 'node:test'), tap(lines));
  },
};
