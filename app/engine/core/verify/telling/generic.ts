import { prepare, unframed, type Recogniser } from './recogniser.js';

/**
 * The shapes an error takes in any tool, tried last: a stack's head (`Error: …`, `TypeError: …`,
 * `Error [ERR_MODULE_NOT_FOUND]: …`, `ModuleNotFoundError: …`), an assertion (`AssertionError …`),
 * a panic, and a diagnostic (`error: …`, `fatal error: …`, `src/x.ts(3,5): error TS2322: …`).
 * Lines that close a failure without saying why (`error: could not compile`, `error: test
 * failed`, a YAML block's `error: |-`) are not errors here.
 */

const STACK_HEAD = /^(?:Uncaught\s+)?(?:[A-Z][A-Za-z0-9]*)?(?:Error|Exception)\b(?:\s*\[[A-Z0-9_]+\])?:\s*\S/;
const ASSERTION = /^AssertionError\b|\bpanicked at\b|^panic:/;
const DIAGNOSTIC = /^(?:\S.*?(?:\(\d+,\d+\)|:\d+(?::\d+)?):?\s+)?(?:fatal\s+)?error(?:\[[A-Z]+\d+\]|\s+[A-Z]+\d+)?:\s*\S/i;
/** A YAML block's opening (`error: |-` in node's TAP): its message is on the lines below. */
const BLOCK = /^error:\s*[|>][-+]?$/i;
/** What closes a failure without saying why. */
const CLOSING = /^(?:error: (?:could not compile|test failed|aborting due to|build failed|Recipe)|error: 'test failed'|collect2: error: ld returned)/i;

/** Does this line, alone, have an error's shape? */
export function hasErrorShape(line: string): boolean {
  const l = unframed(line);
  return (STACK_HEAD.test(l) || ASSERTION.test(l) || DIAGNOSTIC.test(l)) && !BLOCK.test(l) && !CLOSING.test(l);
}

export const generic: Recogniser = {
  name: 'generic',
  find(output) {
    const lines = prepare(output);
    for (let at = 0; at < lines.length; at++) {
      if (hasErrorShape(lines[at]!)) return { at, line: unframed(lines[at]!), tool: 'generic' };
    }
    return undefined;
  },
};
