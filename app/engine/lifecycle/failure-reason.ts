import type { LevelResult, VerificationReport } from '../core/verify/levels.js';

/**
 * Why an attempt or a phase failed, in one line: the same words in SUMMARY.md, STATUS.md, the
 * terminal, the job's failure and its summary, wherever the plan ran.
 */

/** The agent did not finish the plan. */
export function agentFailure(agent: string, error: string): string {
  return `the ${agent} agent failed: ${error}`;
}

function key(result: LevelResult): string {
  return result.plan === undefined ? result.id : `${result.plan}/${result.id}`;
}

/** A report that did not pass: each failed check with the first line of its evidence, then the level's problems, else the human checks still waiting. */
export function verificationFailure(report: VerificationReport): string {
  const what = report.level === 'plan' ? `plan ${report.id}` : `phase ${report.id}`;
  const failed = report.results.filter((r) => r.status === 'fail');
  const parts: string[] = [];
  if (failed.length > 0) {
    const reasons = failed.map((r) => `${key(r)} (${evidenceLine(r.evidence)})`);
    parts.push(`${failed.length} check${failed.length === 1 ? '' : 's'} failed: ${reasons.join('; ')}`);
  }
  parts.push(...report.problems);
  const waiting = report.results.filter((r) => r.status === 'human');
  if (parts.length === 0 && waiting.length > 0) parts.push(`${waiting.length} human check${waiting.length === 1 ? '' : 's'} not approved: ${waiting.map(key).join(', ')}`);
  return `${what} did not pass verification: ${parts.join('; ') || 'no reason given'}`;
}

/** Words an output line says what went wrong with. */
const ERROR_WORDS = /error|assert|expected|not ok|✗|✖|exception|fatal|panic|denied|refused|not found|no such|cannot|can't|unable|invalid|missing|locked|busy|timed? ?out|conflict|enoent|eaddrinuse|econnrefused/i;
/** Error codes: SQLITE_BUSY, ERR_MODULE_NOT_FOUND (case matters: ghp_… is a token, not a code). */
const ERROR_CODE = /\b[A-Z][A-Z0-9]{2,}_[A-Z0-9_]+\b/;

/**
 * The line of some output that says what went wrong: the last that names an error, an
 * assertion or an error code; else the last that says something failed (a runner's "# fail 1"
 * tally says only that something did); else the last line. Undefined for no output.
 */
export function tellingLine(output: readonly string[]): string | undefined {
  const lines = output.map((l) => l.trim()).filter((l) => l !== '');
  const last = (test: (l: string) => boolean) => [...lines].reverse().find(test);
  return last((l) => ERROR_WORDS.test(l) || ERROR_CODE.test(l)) ?? last((l) => /fail/i.test(l)) ?? lines.at(-1);
}

/**
 * Evidence in one line: its first. When that line only introduces output ("npm test exited
 * 1; output ends:"), the output's telling line goes with it; cut there, the reason ended in
 * "output ends:)" and said nothing of what failed.
 */
export function evidenceLine(evidence: string): string {
  const [first = '', ...rest] = evidence.split('\n');
  const intro = /;?\s*output ends:\s*$/.exec(first);
  if (!intro) return first;
  const telling = tellingLine(rest.map((l) => l.replace(/^…/, '')));
  const head = first.slice(0, intro.index);
  if (telling === undefined) return head;
  return `${head}: ${telling.length > 160 ? `${telling.slice(0, 159)}…` : telling}`;
}
