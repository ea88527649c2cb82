import { FIRST_ERROR } from '../core/verify/evidence.js';
import type { LevelResult, VerificationReport } from '../core/verify/levels.js';
import { recognisedError, tellingLine } from '../core/verify/telling-line.js';

export { tellingLine };

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
  if (parts.length === 0 && waiting.length > 0)
    parts.push(`${waiting.length} human check${waiting.length === 1 ? '' : 's'} not approved: ${waiting.map(key).join(', ')}`);
  return `${what} did not pass verification: ${parts.join('; ') || 'no reason given'}`;
}

/**
 * Evidence in one line: its first, with the first error a failing command's output names.
 * When the first line only introduces output ("npm test exited 1; output ends:", evidence of
 * older runs), the output's telling line goes with it; cut there, the reason ended in
 * "output ends:)" and said nothing of what failed.
 */
export function evidenceLine(evidence: string): string {
  const [first = '', ...rest] = evidence.split('\n');
  // A failing command's evidence names its first error on the next line: kept whole.
  if (rest[0]?.startsWith(FIRST_ERROR)) return `${first}: ${rest[0].slice(FIRST_ERROR.length)}`;
  const intro = /;?\s*output ends:\s*$/.exec(first);
  if (!intro) return first;
  const telling = tellingLine(rest.map((l) => l.replace(/^…/, '')));
  const head = first.slice(0, intro.index);
  if (telling === undefined) return head;
  return `${head}: ${telling}`;
}

/** A command check's verdict that says only how the command ended: the same for every failure. */
const EXIT_ONLY = /^(?:exit \d+|was killed by a signal|timed out after \S+ and was killed)(?:, expected exit \d+)?$/;

/**
 * The line of a check's evidence its failure's signature may be made of: the error a tool's
 * recogniser found in the command's output (the evidence's first error, else its tail's), or,
 * for a check that ran no command, harness's own words about it. Undefined for a command whose
 * output names no error a recogniser knows and whose verdict is only how it exited: such a
 * failure gets no signature rather than one every unrecognised failure would share.
 */
export function evidenceErrorLine(evidence: string): string | undefined {
  const [first = '', ...rest] = evidence.split('\n');
  if (rest[0]?.startsWith(FIRST_ERROR)) return rest[0].slice(FIRST_ERROR.length);
  const intro = /;?\s*(?:output ends:|no output)\s*$/.exec(first);
  if (!intro) return first;
  const recognised = recognisedError(rest.map((l) => l.replace(/^…/, '')));
  if (recognised !== undefined) return recognised.line;
  const verdict = first.slice(0, intro.index).trim();
  return verdict === '' || EXIT_ONLY.test(verdict) ? undefined : verdict;
}
