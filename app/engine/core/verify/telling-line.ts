/**
 * The line of some output that says what went wrong. A failing run prints its cause first and
 * its consequences after (a module not found, then the test file that could not load, then the
 * runner's "# fail 1"), so the telling line is the first error the output names:
 *
 * - a stack's head: `Error: …`, `TypeError: …`, `Error [ERR_MODULE_NOT_FOUND]: …`,
 *   `ModuleNotFoundError: …`, `AssertionError …`, a panic;
 * - a compiler's diagnostic: `src/a.ts(3,5): error TS2322: …`, `a.c:3:5: error: …`,
 *   `error[E0425]: …`, `error: …`;
 * - a test runner's failure: pytest's `FAILED tests/x.py::t - …`.
 *
 * Lines are read without what frames them (TAP's `# `, pytest's `E   `, a quote's `> `). An
 * output that names no such error gets the first line that names an error word or an error
 * code, else the last that says something failed (a tally says only that), else its last line.
 */

const STACK_HEAD = /^(?:Uncaught\s+)?(?:[A-Z][A-Za-z0-9]*)?(?:Error|Exception)\b(?:\s*\[[A-Z0-9_]+\])?:\s*\S/;
const ASSERTION = /^AssertionError\b|\bpanicked at\b|^panic:/;
const DIAGNOSTIC = /^(?:\S.*?(?:\(\d+,\d+\)|:\d+(?::\d+)?):?\s+)?(?:fatal\s+)?error(?:\[[A-Z]+\d+\]|\s+[A-Z]+\d+)?:\s*\S/i;
const RUNNER_FAILURE = /^FAILED\s+\S/;

/** Words an output line says what went wrong with. */
const ERROR_WORDS = /error|assert|expected|not ok|✗|✖|exception|fatal|panic|denied|refused|not found|no such|cannot|can't|unable|invalid|missing|locked|busy|timed? ?out|conflict|enoent|eaddrinuse|econnrefused/i;
/** Error codes: SQLITE_BUSY, ERR_MODULE_NOT_FOUND (case matters: ghp_… is a token, not a code). */
const ERROR_CODE = /\b[A-Z][A-Z0-9]{2,}_[A-Z0-9_]+\b/;
/** Lines that name an error word but say nothing went wrong: a tally of none. */
const NO_ERRORS = /\b(?:0|no)\s+(?:errors?|failures?|failed|problems?)\b/i;

/** What frames a line in some tools' output: TAP's diagnostics, pytest's error lines, quotes and boxes. */
const FRAME = /^(?:#\s+|E\s{2,}|>\s+|[│|]\s+)+/;

function unframed(line: string): string {
  return line.trim().replace(FRAME, '').trim();
}

/** Does this line head an error (a stack's head, a diagnostic, a runner's FAILED), as output streams by? */
export function isErrorHead(line: string): boolean {
  const l = unframed(line);
  return (STACK_HEAD.test(l) || ASSERTION.test(l) || DIAGNOSTIC.test(l) || RUNNER_FAILURE.test(l)) && !BLOCK.test(l);
}

/**
 * The last lines of some output for an error message, with the first error head above them
 * when it scrolled out: the cause stays beside its consequences.
 */
export function withFirstError(tail: readonly string[], head: string | undefined): string[] {
  return head === undefined || tail.includes(head) ? [...tail] : [head, '…', ...tail];
}

/** A YAML block's opening (`error: |-` in node's TAP): its message is on the lines below. */
const BLOCK = /^error:\s*[|>][-+]?$/i;

/** The first error the output names (a head, else a line with an error word or code); undefined when it names none. */
export function firstError(output: readonly string[]): string | undefined {
  const lines = output.map(unframed).filter((l) => l !== '');
  const at = lines.findIndex((l) => STACK_HEAD.test(l) || ASSERTION.test(l) || DIAGNOSTIC.test(l) || RUNNER_FAILURE.test(l));
  if (at >= 0) {
    const head = lines[at]!;
    if (!BLOCK.test(head)) return head;
    const message = lines[at + 1];
    return message === undefined ? head : `error: ${message}`;
  }
  return lines.find((l) => (ERROR_WORDS.test(l) || ERROR_CODE.test(l)) && !NO_ERRORS.test(l));
}

export function tellingLine(output: readonly string[]): string | undefined {
  const named = firstError(output);
  if (named !== undefined) return named;
  const lines = output.map(unframed).filter((l) => l !== '');
  return [...lines].reverse().find((l) => /fail/i.test(l)) ?? lines.at(-1);
}
