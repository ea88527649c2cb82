import { problem, type Problem } from '../spec/problem.js';
import { DOCUMENT_HINTS } from './hints.js';
import type { DocumentContext, DocumentRules } from './parse-with.js';
import { StatusSchema, type Status } from './schema.js';

/** STATUS.md: progress and velocity, consistent with themselves. */
export const statusRules: DocumentRules<typeof StatusSchema> = {
  schema: StatusSchema,
  template: 'templates/STATUS.md',
  hints: DOCUMENT_HINTS,
  check: checkStatus,
};

/** round(100 × verified / total), 0 for a spec without plans. */
export function progressPercent(plansVerified: number, plansTotal: number): number {
  return plansTotal === 0 ? 0 : Math.round((100 * plansVerified) / plansTotal);
}

/** Minutes per completed plan, to one decimal; 0 before the first plan completes. */
export function averageMinutes(totalMinutes: number, plansCompleted: number): number {
  return plansCompleted === 0 ? 0 : Math.round((10 * totalMinutes) / plansCompleted) / 10;
}

function checkStatus(context: DocumentContext<Status>): Problem[] {
  return [...checkCounts(context), ...checkPercent(context), ...checkVelocity(context), ...checkComplete(context)];
}

/** Plans done before an import, 0 when none were. */
function plansBeforeImport(data: Status): number {
  return data.progress.plans_done_before_import ?? 0;
}

/** No more plans or phases verified (with those done before an import) than there are. */
function checkCounts({ file, data, lines }: DocumentContext<Status>): Problem[] {
  const problems: Problem[] = [];
  const { progress } = data;
  const at = (...path: string[]) => lines.lineOf(path);
  if (progress.plans_verified > progress.plans_total) {
    problems.push(
      problem(
        file,
        at('progress', 'plans_verified'),
        'field-value',
        `progress.plans_verified (${progress.plans_verified}) is more than plans_total (${progress.plans_total})`,
      ),
    );
  }
  if (progress.phases_verified > progress.phases_total) {
    problems.push(
      problem(
        file,
        at('progress', 'phases_verified'),
        'field-value',
        `progress.phases_verified (${progress.phases_verified}) is more than phases_total (${progress.phases_total})`,
      ),
    );
  }
  const plansBefore = plansBeforeImport(data);
  if (progress.plans_verified + plansBefore > progress.plans_total) {
    problems.push(
      problem(
        file,
        at('progress', 'plans_done_before_import'),
        'field-value',
        `progress.plans_verified and plans_done_before_import (${progress.plans_verified} + ${plansBefore}) are more than plans_total (${progress.plans_total})`,
      ),
    );
  }
  return problems;
}

/** progress.percent is what the plans verified (with those done before an import) make it. */
function checkPercent({ file, data, lines }: DocumentContext<Status>): Problem[] {
  const { progress } = data;
  const plansBefore = plansBeforeImport(data);
  const percent = progressPercent(progress.plans_verified + plansBefore, progress.plans_total);
  if (progress.percent === percent) return [];
  return [
    problem(
      file,
      lines.lineOf(['progress', 'percent']),
      'field-value',
      `progress.percent is ${progress.percent} but ${progress.plans_verified}${plansBefore > 0 ? ` + ${plansBefore} done before import` : ''} of ${progress.plans_total} plans verified is ${percent}`,
    ),
  ];
}

/** velocity.average_minutes_per_plan is its total over its plans, to within rounding. */
function checkVelocity({ file, data, lines }: DocumentContext<Status>): Problem[] {
  const { velocity } = data;
  const average = averageMinutes(velocity.total_minutes, velocity.plans_completed);
  if (Math.abs(velocity.average_minutes_per_plan - average) > 0.05) {
    return [
      problem(
        file,
        lines.lineOf(['velocity', 'average_minutes_per_plan']),
        'field-value',
        `velocity.average_minutes_per_plan is ${velocity.average_minutes_per_plan} but ${velocity.total_minutes} minutes over ${velocity.plans_completed} plans is ${average}`,
      ),
    ];
  }
  return [];
}

/** A spec is complete only when every plan and phase is verified (or was done before an import). */
function checkComplete({ file, data, lines }: DocumentContext<Status>): Problem[] {
  const { progress } = data;
  const plansBefore = plansBeforeImport(data);
  const phasesBefore = progress.phases_done_before_import ?? 0;
  if (
    data.status === 'complete' &&
    (progress.plans_verified + plansBefore < progress.plans_total || progress.phases_verified + phasesBefore < progress.phases_total)
  ) {
    return [
      problem(
        file,
        lines.lineOf(['status']),
        'field-value',
        'status is complete but not every plan and phase is verified; a spec is complete only when every phase has passed',
      ),
    ];
  }
  return [];
}
