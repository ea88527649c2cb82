import { stripAnsi } from './evidence.js';

/**
 * Did a test command actually run tests? A runner that finds no test files often exits 0
 * (node --test, vitest/jest with --passWithNoTests, `go test` on a package without tests),
 * and a green check over zero tests is the vacuous pass harness exists to prevent. This
 * reads the closing lines the common runners print.
 */
export interface TestsRan {
  /** `ran`: some runner reports passing tests; `none`: runners report zero; `unknown`: no summary recognised. */
  verdict: 'ran' | 'none' | 'unknown';
  /** The summary line that decided it. */
  seen?: string;
}

interface Signal {
  ran: boolean;
  line: string;
}

type Reader = (text: string) => Signal[];

const lineOf = (text: string, index: number): string => {
  const start = text.lastIndexOf('\n', index - 1) + 1;
  const end = text.indexOf('\n', index);
  return text.slice(start, end < 0 ? undefined : end).trim();
};

function each(text: string, re: RegExp, judge: (m: RegExpExecArray) => boolean | undefined): Signal[] {
  const out: Signal[] = [];
  for (const m of text.matchAll(new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`))) {
    const ran = judge(m as RegExpExecArray);
    if (ran !== undefined) out.push({ ran, line: lineOf(text, m.index ?? 0) });
  }
  return out;
}

const n = (s: string | undefined): number => Number.parseInt(s ?? '0', 10);

const READERS: Reader[] = [
  // node --test: TAP "# pass 3" (or the spec reporter's "ℹ pass 3"); "# tests 0" when nothing ran.
  (t) => each(t, /^\s*(?:#|ℹ)\s*pass (\d+)\s*$/m, (m) => n(m[1]) > 0),
  (t) => each(t, /^\s*(?:#|ℹ)\s*tests 0\s*$/m, () => false),
  // TAP's plan for zero tests.
  (t) => each(t, /^\s*1\.\.0\b/m, () => false),
  // vitest "Tests  3 passed (3)", jest "Tests:  3 passed, 3 total"; all skipped or "no tests" is none.
  (t) =>
    each(t, /^\s*Tests:?\s+(.+)$/m, (m) => {
      const passed = /(\d+) passed/.exec(m[1]!);
      if (passed) return n(passed[1]) > 0;
      return /no tests|skipped|todo|\b0 total/.test(m[1]!) ? false : undefined;
    }),
  (t) => each(t, /No test files found|No tests found/, () => false),
  // mocha "2 passing (5ms)".
  (t) => each(t, /^\s*(\d+) passing\b/m, (m) => n(m[1]) > 0),
  // pytest "=== 3 passed, 1 skipped in 0.12s ===", "no tests ran", "collected 0 items".
  (t) =>
    each(t, /^=*\s*((?:\d+ (?:passed|failed|skipped|deselected|xfailed|xpassed|warnings?|errors?)(?:, )?)+) in [\d.]+s\b.*$/m, (m) => {
      const passed = /(\d+) passed/.exec(m[1]!);
      return passed ? n(passed[1]) > 0 : false;
    }),
  (t) => each(t, /\bno tests ran\b|^collected 0 items\b/m, () => false),
  // go test: "ok  pkg 0.01s" ran; "[no test files]" and "[no tests to run]" did not.
  (t) => each(t, /^ok\s+\S+\s+(?:\(cached\)|[\d.]+s)(.*)$/m, (m) => !/no tests to run/.test(m[1]!)),
  (t) => each(t, /^---\s*PASS:/m, () => true),
  (t) => each(t, /\[no test files\]|testing: warning: no tests to run/, () => false),
  // cargo test "test result: ok. 5 passed; 0 failed".
  (t) => each(t, /^test result: \w+\. (\d+) passed/m, (m) => n(m[1]) > 0),
  // The plain closing line any runner may print: "N passed, N failed".
  (t) => each(t, /^(?:\w+:\s*)?(\d+) passed, \d+ failed(?:, \d+ skipped)?\s*$/m, (m) => n(m[1]) > 0),
];

export function testsRan(output: string): TestsRan {
  const text = stripAnsi(output);
  const signals = READERS.flatMap((read) => read(text));
  // One suite that ran is enough: `npm test` may chain runners, some of which have nothing to do.
  const ran = signals.find((s) => s.ran);
  if (ran) return { verdict: 'ran', seen: ran.line };
  const none = signals.find((s) => !s.ran);
  return none ? { verdict: 'none', seen: none.line } : { verdict: 'unknown' };
}
