import { earliest, nextSaying, prepare, unframed, type Found, type Recogniser } from './recogniser.js';

/**
 * JUnit, through Maven's surefire, Gradle, the JUnit Platform console launcher and JUnit 4's
 * JUnitCore, and Java's own exceptions. The cause is the exception line under the failing
 * test's name (`org.opentest4j.AssertionFailedError: expected: <201> but was: <500>`); when the
 * exception's message starts on the next line (`org.postgresql.util.PSQLException: ` then
 * `ERROR: relation "invoices" does not exist`) the two are joined. Maven's compile errors
 * (`[ERROR] …/OrderService.java:[18,16] cannot find symbol`) are the compiler's line; its
 * closing `[ERROR] Failed to execute goal …` counts only when it holds the cause (a dependency
 * that could not be resolved), not when it says `There are test failures.`.
 */

/** A Java exception: its qualified class, then its message (`Exception in thread "main" ` before it when uncaught). */
const EXCEPTION = /^(?:Exception in thread "[^"]*" |Caused by: )?((?:[a-z_$][\w$]*\.)+[A-Z][\w$]*)(?:(:)(?: (.*))?| at \S+:\d+)?$/;
/** surefire's line for a failing test: `[ERROR] createsOrder(com.example.OrderTest)  Time elapsed: 0.005 s  <<< FAILURE!` (2.x) or `[ERROR] com.example.OrderTest.createsOrder -- Time elapsed: …` (3.x). */
const SUREFIRE_TEST = /^\[ERROR\] (?!Tests run:)\S.*<<< (?:FAILURE|ERROR)!$/;
/** Gradle's: `OrderTest > createsOrder() FAILED`. */
const GRADLE_TEST = /^\S.* > \S.* FAILED$/;
/** JUnit 4's JUnitCore: `1) createsOrder(OrderTest)`. */
const JUNITCORE_TEST = /^\d+\) \S+\(\S+\)$/;
/** The JUnit Platform console launcher's failure: `=> org.opentest4j.AssertionFailedError: …`. */
const CONSOLE_FAILURE = /^=> (\S.*)$/;
const MAVEN_COMPILE = /^\[ERROR\] (\S+\.(?:java|kt|scala|groovy):\[\d+,\d+\] \S.*)$/;
const MAVEN_GOAL = /^\[ERROR\] Failed to execute goal .*?: (?!There are test failures|Compilation failure|There was a timeout)(\S.*)$/;

/** The exception on line `at`, its message joined when it starts on the next line. */
function exceptionAt(lines: readonly string[], at: number, tool: string): Found | undefined {
  const line = unframed(lines[at]!);
  const m = EXCEPTION.exec(line);
  if (m === null) return undefined;
  if (m[2] !== undefined && (m[3] ?? '').trim() === '') {
    const next = nextSaying(lines, at + 1, 2);
    const message = next === undefined ? '' : lines[next]!.trim();
    if (message !== '' && !message.startsWith('at ')) return { at, line: `${m[1]!}: ${message}`, tool };
  }
  return { at, line: line.replace(/^(?:Exception in thread "[^"]*" |Caused by: )/, ''), tool };
}

function afterTest(lines: readonly string[], heading: RegExp, tool: string): Found | undefined {
  for (let at = 0; at < lines.length; at++) {
    if (!heading.test(lines[at]!.trim())) continue;
    const next = nextSaying(lines, at + 1, 3);
    const found = next === undefined ? undefined : exceptionAt(lines, next, tool);
    if (found !== undefined) return found;
  }
  return undefined;
}

function anywhere(lines: readonly string[]): Found | undefined {
  for (let at = 0; at < lines.length; at++) {
    const trimmed = lines[at]!.trim();
    const console = CONSOLE_FAILURE.exec(trimmed);
    if (console !== null && EXCEPTION.test(console[1]!)) return { at, line: console[1]!, tool: 'junit' };
    const compile = MAVEN_COMPILE.exec(trimmed);
    if (compile !== null) return { at, line: compile[1]!, tool: 'maven' };
    if (/^(?:Exception in thread "[^"]*" )\S/.test(trimmed)) return exceptionAt(lines, at, 'java');
  }
  return undefined;
}

function goal(lines: readonly string[]): Found | undefined {
  for (let at = 0; at < lines.length; at++) {
    const m = MAVEN_GOAL.exec(lines[at]!.trim());
    if (m !== null) return { at, line: m[1]!, tool: 'maven' };
  }
  return undefined;
}

export const jvm: Recogniser = {
  name: 'jvm',
  find(output) {
    const lines = prepare(output);
    const found = earliest(
      afterTest(lines, SUREFIRE_TEST, 'maven'),
      afterTest(lines, GRADLE_TEST, 'gradle'),
      afterTest(lines, JUNITCORE_TEST, 'junit'),
      anywhere(lines),
    );
    return found ?? goal(lines);
  },
};
