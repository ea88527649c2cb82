import type { Check } from '../spec/model.js';
import { fail, pass, type Finding } from './check-result.js';
import { commandEvidence, quote, stripAnsi } from './evidence.js';
import type { ExecResult, VerifyPorts } from './ports.js';
import { compileRegex, inProcessSearch } from './regex.js';
import { testsRan } from './tests-ran.js';
import { formatMs } from './with-timeout.js';

type CommandOutput = Extract<Check, { type: 'command_output' }>;
type BuildSucceeds = Extract<Check, { type: 'build_succeeds' }>;
type TestsPass = Extract<Check, { type: 'tests_pass' }>;
type CommandCheck = CommandOutput | BuildSucceeds | TestsPass;

async function run(check: CommandCheck, ports: VerifyPorts, timeoutMs: number): Promise<ExecResult> {
  return ports.exec(check.command, { cwd: check.cwd, timeoutMs });
}

function exitOf(r: ExecResult): string {
  if (r.timedOut) return `timed out after ${formatMs(r.durationMs)} and was killed`;
  return r.code === null ? 'was killed by a signal' : `exit ${r.code}`;
}

/** Output as a person reads it: stdout then stderr, without colour codes. */
function combined(r: ExecResult): string {
  return stripAnsi(
    [r.stdout, r.stderr]
      .map((s) => s.replace(/\s+$/, ''))
      .filter((s) => s !== '')
      .join('\n'),
  );
}

/**
 * The command's exit and output tail as evidence, its secrets redacted first (ports.redact),
 * then cut: redacting what is left after the cut finds no key whose first line is gone.
 */
async function evidence(verdict: string, r: ExecResult, ports: VerifyPorts, failed = false): Promise<string> {
  if (!ports.redact) return commandEvidence(verdict, r.stdout, r.stderr, failed);
  const [stdout, stderr] = await Promise.all([ports.redact(r.stdout), ports.redact(r.stderr)]);
  return commandEvidence(verdict, stdout, stderr, failed);
}

/** A pattern after a command that used its whole timeout still gets this long (within the check's grace). */
const MIN_PATTERN_MS = 2_000;

/** exit_code (default 0), and `contains`/`matches` against stdout and stderr together. */
export async function checkCommandOutput(check: CommandOutput, ports: VerifyPorts, timeoutMs: number): Promise<Finding> {
  const started = ports.clock.monotonic();
  const r = await run(check, ports, timeoutMs);
  const want = check.expect.exit_code ?? 0;
  const exit = exitOf(r);
  if (r.timedOut || r.code !== want) return fail(await evidence(`${exit}, expected exit ${want}`, r, ports, true));
  const out = combined(r);
  if (check.expect.contains !== undefined && !out.includes(check.expect.contains)) {
    return fail(await evidence(`${exit} but the output does not contain ${quote(check.expect.contains)}`, r, ports));
  }
  if (check.expect.matches !== undefined) {
    const re = compileRegex(check.expect.matches, 'm');
    if (typeof re === 'string') return fail(re);
    // What is left of the check's time after the command: the pattern gets that, no more.
    const left = Math.max(MIN_PATTERN_MS, timeoutMs - (ports.clock.monotonic() - started));
    const found = await (ports.regex ?? inProcessSearch)({ text: out, source: check.expect.matches, flags: 'm' }, left);
    if (!found) return fail(await evidence(`${exit} but the output has no match for /${check.expect.matches}/`, r, ports));
  }
  return pass(await evidence(exit, r, ports));
}

export async function checkBuildSucceeds(check: BuildSucceeds, ports: VerifyPorts, timeoutMs: number): Promise<Finding> {
  const r = await run(check, ports, timeoutMs);
  const ok = !r.timedOut && r.code === 0;
  return (ok ? pass : fail)(await evidence(exitOf(r), r, ports, !ok));
}

/**
 * Exit 0 is necessary but not enough: a runner that found no tests is not green. Output the
 * checker cannot read (an unfamiliar runner) is judged by its exit code, and says so.
 */
export async function checkTestsPass(check: TestsPass, ports: VerifyPorts, timeoutMs: number): Promise<Finding> {
  const r = await run(check, ports, timeoutMs);
  const exit = exitOf(r);
  if (r.timedOut || r.code !== 0) return fail(await evidence(exit, r, ports, true));
  const ran = testsRan(combined(r));
  if (ran.verdict === 'none') {
    return fail(await evidence(`${exit} but no tests ran (${quote(ran.seen ?? '', 60)}); a test command that runs nothing is not green`, r, ports));
  }
  if (ran.verdict === 'unknown') {
    // docs/spec.md's promise: tests_pass passes when the output shows tests ran. An exit code alone is what build_succeeds judges.
    return fail(
      await evidence(
        `${exit}, but its output shows no tests ran: no test runner's summary (such as "# pass 3", "Tests  3 passed", "3 passed in 0.12s") is in it; use build_succeeds or command_output for a command that is not a test runner`,
        r,
        ports,
      ),
    );
  }
  return pass(await evidence(`${exit}; tests ran (${quote(ran.seen ?? '', 60)})`, r, ports));
}
