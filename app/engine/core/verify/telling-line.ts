import { hasErrorShape } from './telling/generic.js';
import { recognisedError } from './telling/index.js';
import { prepare, unframed } from './telling/recogniser.js';

export { recognisedError, type RecognisedError } from './telling/index.js';

/**
 * The line of some output that says what went wrong. A failing run prints its cause first and
 * its consequences after (a module not found, then the test file that could not load, then the
 * runner's "# fail 1"), so the telling line is the first error the output names, as the tool
 * that printed it says it (telling/: go test, pytest, jest, vitest, node:test, cargo, JUnit
 * through Maven and Gradle, dotnet test, RSpec, the compilers, package managers, containers and
 * database drivers, then the shapes of an error in any tool).
 *
 * Only a recognised error may give a failure its signature (recognisedError). For a person
 * reading why something failed, an output with none still gets a line: the first that names
 * an error word or an error code, else the last that says something failed (a tally says only
 * that), else its last line.
 */

/** Words an output line says what went wrong with. */
const ERROR_WORDS =
  /error|assert|expected|not ok|✗|✖|exception|fatal|panic|denied|refused|not found|no such|cannot|can't|unable|invalid|missing|locked|busy|timed? ?out|conflict|enoent|eaddrinuse|econnrefused/i;
/** Error codes: SQLITE_BUSY, ERR_MODULE_NOT_FOUND (case matters: ghp_… is a token, not a code). */
const ERROR_CODE = /\b[A-Z][A-Z0-9]{2,}_[A-Z0-9_]+\b/;
/** Lines that name an error word but say nothing went wrong: a tally of none. */
const NO_ERRORS = /\b(?:0|no)\s+(?:errors?|failures?|failed|problems?)\b/i;

/** Does this line head an error (one a tool's recogniser names on its own, or an error's shape), as output streams by? */
export function isErrorHead(line: string): boolean {
  return hasErrorShape(line) || recognisedError([line]) !== undefined;
}

/**
 * The last lines of some output for an error message, with the first error head above them
 * when it scrolled out: the cause stays beside its consequences.
 */
export function withFirstError(tail: readonly string[], head: string | undefined): string[] {
  return head === undefined || tail.includes(head) ? [...tail] : [head, '…', ...tail];
}

function saying(output: readonly string[]): string[] {
  return prepare(output)
    .map(unframed)
    .filter((l) => l !== '');
}

/** The first error the output names (a recognised one, else a line with an error word or code); undefined when it names none. */
export function firstError(output: readonly string[]): string | undefined {
  const recognised = recognisedError(output);
  if (recognised !== undefined) return recognised.line;
  return saying(output).find((l) => (ERROR_WORDS.test(l) || ERROR_CODE.test(l)) && !NO_ERRORS.test(l));
}

/** The line a person reads for why the output failed; never undefined for an output that says anything. */
export function tellingLine(output: readonly string[]): string | undefined {
  const named = firstError(output);
  if (named !== undefined) return named;
  const lines = saying(output);
  return [...lines].reverse().find((l) => /fail/i.test(l)) ?? lines.at(-1);
}
