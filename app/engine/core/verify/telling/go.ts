import { earliest, FAILURE_WORDS, prepare, type Found, type Recogniser } from './recogniser.js';

/**
 * `go test`, `go build` and `go vet`. A failing test's cause is the message after its
 * location (`    order_test.go:7: CreateOrder status = 500, want 201` says
 * `CreateOrder status = 500, want 201`), or its panic (`panic: runtime error: …`); never
 * `--- FAIL: TestX (0.00s)` nor the closing `FAIL	example.com/shop	0.01s`, which say only that
 * it failed. With -v a test's log lines come before its `--- FAIL`, without it after: a message
 * counts only when it belongs to a failing test (a passing test's `t.Log` is not its cause), and
 * of a failing test's messages the first that says what went wrong wins over a log line before
 * it. A compile or vet error is the compiler's line, `./order.go:12:5: undefined: CreateInvoice`.
 */

/** A test's message: indented, after its file and line. */
const MESSAGE = /^(?: {4}|\t)\s*([\w.-]+\.go):(\d+): ?(.*)$/;
const CONTINUATION = /^(?: {8}|\t\t)\s*(\S.*)$/;
const RUN = /^=== (?:RUN|CONT|PAUSE|NAME)\s/;
const PASSED = /^\s*--- (?:PASS|SKIP): /;
const FAILED = /^\s*--- FAIL: /;
const PACKAGE_PASSED = /^(?:ok|PASS)(?:\s|$)/;
const PACKAGE_FAILED = /^FAIL(?:\s|$)/;
/** A panic, without the `[recovered]` the testing package adds when it re-panics. */
const PANIC = /^panic: (.+?)(?: \[recovered(?:, repanicked)?\])?$/;
const FATAL = /^fatal error: \S/;
/** A compiler's or vet's diagnostic: `./order.go:12:5: undefined: CreateInvoice` (`vet: ` before it when vet fails to type-check). */
const COMPILE = /^(?:vet: )?(?:\.{0,2}\/)?[\w./-]*\.go:\d+:\d+: \S/;

function testMessage(lines: readonly string[]): Found | undefined {
  // Messages seen since the last test began or ended: a test's own, with -v.
  let pending: { at: number; text: string }[] = [];
  const failing: { at: number; text: string }[] = [];
  let afterFail = false;
  for (let at = 0; at < lines.length; at++) {
    const line = lines[at]!;
    const m = MESSAGE.exec(line);
    if (m !== null) {
      let text = m[3]!.trim();
      // A message that starts on the next line (t.Errorf("\n…")).
      if (text === '' && lines[at + 1] !== undefined) text = CONTINUATION.exec(lines[at + 1]!)?.[1]?.trim() ?? '';
      if (text === '') continue;
      (afterFail ? failing : pending).push({ at, text });
      continue;
    }
    if (CONTINUATION.test(line)) continue;
    if (FAILED.test(line)) {
      failing.push(...pending);
      pending = [];
      afterFail = true;
    } else if (PASSED.test(line) || RUN.test(line) || PACKAGE_PASSED.test(line)) {
      pending = [];
      afterFail = false;
    } else if (PACKAGE_FAILED.test(line)) {
      afterFail = false;
    }
  }
  // No `--- FAIL` seen (its line scrolled out): a message that says what went wrong still tells.
  const candidates = failing.length > 0 ? failing : pending.filter((p) => FAILURE_WORDS.test(p.text));
  const chosen = candidates.find((c) => FAILURE_WORDS.test(c.text)) ?? candidates[0];
  return chosen === undefined ? undefined : { at: chosen.at, line: chosen.text, tool: 'go test' };
}

function panicOrCompile(lines: readonly string[]): Found | undefined {
  for (let at = 0; at < lines.length; at++) {
    const line = lines[at]!.trimEnd();
    const panic = PANIC.exec(line);
    if (panic !== null) return { at, line: `panic: ${panic[1]!}`, tool: 'go test' };
    if (FATAL.test(line)) return { at, line, tool: 'go' };
    if (COMPILE.test(line)) return { at, line: line.replace(/^vet: /, ''), tool: 'go build' };
  }
  return undefined;
}

export const go: Recogniser = {
  name: 'go',
  find(output) {
    const lines = prepare(output);
    // A panic is the cause whatever a test logged before it.
    const panic = panicOrCompile(lines);
    if (panic !== undefined && panic.line.startsWith('panic:')) return panic;
    return earliest(panic, testMessage(lines));
  },
};
