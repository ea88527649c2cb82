import { planPhase } from '../spec/model.js';
import { problem, type Problem } from '../spec/problem.js';
import { checkRecords, firstResult } from './check-records.js';
import { DOCUMENT_HINTS } from './hints.js';
import type { DocumentContext, DocumentRules } from './parse-with.js';
import { VerificationSchema, type Verification } from './schema.js';

/** VERIFICATION.md: the checks of one level, run on the merged result, with their evidence. */
export const verificationRules: DocumentRules<typeof VerificationSchema> = {
  schema: VerificationSchema,
  template: 'templates/VERIFICATION.md',
  hints: DOCUMENT_HINTS,
  check: checkVerification,
};

function checkVerification({ file, data, lines }: DocumentContext<Verification>): Problem[] {
  const problems: Problem[] = [...checkRecords(file, data.checks, lines)];
  const levelLine = lines.lineOf(['level']);
  if (data.level === 'plan' && data.plan === undefined) {
    problems.push(problem(file, levelLine, 'field-missing', 'level is plan but there is no "plan" key; add plan: "01-01"'));
  }
  if (data.level === 'phase' && data.phase === undefined) {
    problems.push(problem(file, levelLine, 'field-missing', 'level is phase but there is no "phase" key; add phase: "01"'));
  }
  if (data.level !== 'plan' && data.plan !== undefined) {
    problems.push(
      problem(file, lines.lineOf(['plan']), 'field-value', `plan is only for level: plan; this is a ${data.level}-level verification, so remove it`),
    );
  }
  if (data.level === 'spec' && data.phase !== undefined) {
    problems.push(problem(file, lines.lineOf(['phase']), 'field-value', 'phase is not for level: spec, which covers every phase; remove it'));
  }
  if (data.plan !== undefined && data.phase !== undefined && planPhase(data.plan) !== data.phase) {
    problems.push(
      problem(file, lines.lineOf(['phase']), 'field-value', `phase is "${data.phase}" but plan ${data.plan} belongs to phase ${planPhase(data.plan)}`),
    );
  }

  const failed = firstResult(data.checks, 'fail');
  const human = firstResult(data.checks, 'skipped-for-human');
  const expected = failed >= 0 ? 'failed' : human >= 0 ? 'needs-human' : data.checks.length > 0 ? 'verified' : undefined;
  const statusLine = lines.lineOf(['status']);
  if (expected === undefined) {
    problems.push(
      problem(file, lines.lineOf(['checks']), 'vacuous-plan', 'no check results are listed; a verification must show the checks it ran under checks:'),
    );
  } else if (data.status !== expected) {
    const why =
      expected === 'failed'
        ? `checks[${failed}] "${data.checks[failed]!.id}" failed`
        : expected === 'needs-human'
          ? `checks[${human}] "${data.checks[human]!.id}" waits for a person`
          : 'every check passed';
    problems.push(problem(file, statusLine, 'field-value', `status is ${data.status} but ${why}; set status: ${expected}`));
  }
  return problems;
}
