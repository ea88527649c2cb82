import { pathText } from '../spec/issues.js';
import { problem, type Problem } from '../spec/problem.js';
import { checkRecords } from './check-records.js';
import { DOCUMENT_HINTS } from './hints.js';
import type { DocumentContext, DocumentRules } from './parse-with.js';
import { SummarySchema, type Summary } from './schema.js';

/** SUMMARY.md: one plan's run, as its worker reports it. */
export const summaryRules: DocumentRules<typeof SummarySchema> = {
  schema: SummarySchema,
  template: 'templates/SUMMARY.md',
  hints: DOCUMENT_HINTS,
  check: checkSummary,
};

function checkSummary({ file, data, lines }: DocumentContext<Summary>): Problem[] {
  const problems: Problem[] = [...checkRecords(file, data.checks, lines)];
  const wallMinutes = (Date.parse(data.finished) - Date.parse(data.started)) / 60_000;
  if (wallMinutes < 0) {
    problems.push(problem(file, lines.lineOf(['finished']), 'field-value', `finished (${data.finished}) is before started (${data.started})`));
  } else if (data.duration_minutes > wallMinutes + 1) {
    problems.push(
      problem(
        file,
        lines.lineOf(['duration_minutes']),
        'field-value',
        `duration_minutes is ${data.duration_minutes} but only ${Math.round(wallMinutes)} minutes passed from started to finished`,
      ),
    );
  }
  data.checks.forEach((check, i) => {
    if (check.plan !== undefined && check.plan !== data.plan_id) {
      problems.push(
        problem(
          file,
          lines.lineOf(['checks', i, 'plan']),
          'field-value',
          `checks[${i}].plan is "${check.plan}" but this is the summary of plan ${data.plan_id}; drop the key or move the result`,
        ),
      );
    }
  });
  if (data.status === 'verified') {
    if (data.checks.length === 0) {
      problems.push(
        problem(
          file,
          lines.lineOf(['status']),
          'vacuous-plan',
          'status is verified but no check results are listed; add the must_pass results that showed it under checks:',
        ),
      );
    }
    data.checks.forEach((check, i) => {
      if (check.result === 'pass') return;
      problems.push(
        problem(
          file,
          lines.lineOf(['checks', i, 'result']),
          'field-value',
          `${pathText(['checks', i, 'result'])} is ${check.result} ("${check.id}"), so the plan is not verified; set status: failed or record the passing run`,
        ),
      );
    });
  }
  return problems;
}
