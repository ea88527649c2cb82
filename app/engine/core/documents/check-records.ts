import type { LineMap } from '../spec/frontmatter.js';
import { problem, type Problem } from '../spec/problem.js';
import type { CheckRecord } from './schema.js';

/** Each check is reported once: ids are unique per plan within one list of results. */
export function checkRecords(file: string, checks: readonly CheckRecord[], lines: LineMap): Problem[] {
  const problems: Problem[] = [];
  const seen = new Map<string, number>();
  checks.forEach((check, i) => {
    const key = `${check.plan ?? ''}/${check.id}`;
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, i);
      return;
    }
    const whose = check.plan ? ` of plan ${check.plan}` : '';
    problems.push(
      problem(
        file,
        lines.lineOf(['checks', i, 'id']),
        'duplicate-check',
        `checks[${i}]: check "${check.id}"${whose} is already reported by checks[${first}]; report each check once`,
      ),
    );
  });
  return problems;
}

/** The index of the first result that is `result`, or -1. */
export function firstResult(checks: readonly CheckRecord[], result: CheckRecord['result']): number {
  return checks.findIndex((c) => c.result === result);
}
