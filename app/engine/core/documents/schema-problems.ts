import { z } from 'zod';
import type { KeyPath, LineMap } from '../spec/frontmatter.js';
import { describeValue, issuesToProblems, lastKey, pathText, valueAt } from '../spec/issues.js';
import { problem, type Problem } from '../spec/problem.js';

/**
 * issuesToProblems, with each document's own hints. The spec parser's hints are keyed by
 * plan keys (`type` there means a verification type); a signal's `type` or a gene's `id`
 * needs its own words. Issues this layer has a hint for are phrased here, in the same
 * `<key> is <value>; it must be <hint>` form; the rest go to issuesToProblems unchanged.
 *
 * Hints are looked up by the path with list indices as `[]` (`mutations[].id`), then
 * with the last key as `*` (`metadata.*`), then by the last key alone (`status`).
 */
export function schemaProblems(
  file: string,
  schema: z.ZodType,
  error: z.ZodError,
  data: unknown,
  lines: LineMap,
  hints: Readonly<Record<string, string>>,
): Problem[] {
  const out: Problem[] = [];
  // One problem per key: "" for a description is both too short and blank, but one fix mends both.
  const reported = new Set<string>();
  for (const issue of error.issues) {
    const path = issue.path as (string | number)[];
    if (issue.code !== 'unrecognized_keys') {
      const key = path.join('\u0000');
      if (reported.has(key)) continue;
      reported.add(key);
    }
    const own = phrase(issue, path, valueAt(data, path), hints);
    if (own) out.push(problem(file, lines.lineOf(path), own.code, own.message));
    else out.push(...issuesToProblems(file, schema, new z.ZodError([issue]), data, lines));
  }
  return out;
}

type Phrased = { code: 'field-missing' | 'field-type' | 'field-value'; message: string };

type Issue = z.ZodError['issues'][number];

function phrase(issue: Issue, path: KeyPath, value: unknown, hints: Readonly<Record<string, string>>): Phrased | undefined {
  const key = lastKey(path);
  const enumHint = issue.code === 'invalid_value' ? `one of ${(issue.values as unknown[]).map(String).join(', ')}` : undefined;
  if (value === undefined && key !== '' && path.length > 0 && typeof path[path.length - 1] === 'string') {
    if (issue.code !== 'invalid_type' && issue.code !== 'invalid_value' && issue.code !== 'invalid_union') return undefined;
    const hint = hintFor(path, hints) ?? enumHint;
    const where = path.length > 1 ? ` in ${pathText(path.slice(0, -1))}` : '';
    return { code: 'field-missing', message: `missing required key "${key}"${where}${hint ? `: ${hint}` : ''}` };
  }
  const hint = hintFor(path, hints);
  if (!hint) return undefined;
  const at = pathText(path);
  switch (issue.code) {
    case 'invalid_type':
      return { code: 'field-type', message: `${at} is ${describeValue(value)}; it must be ${hint}` };
    case 'too_small':
    case 'too_big':
      if ((typeof value === 'string' || Array.isArray(value)) && value.length === 0) {
        return { code: 'field-value', message: `${at} is empty; it must be ${hint}` };
      }
      if (typeof value === 'string') {
        return { code: 'field-value', message: `${at} is ${value.length.toLocaleString('en-US')} characters long; it must be ${hint}` };
      }
      return { code: 'field-value', message: `${at} is ${describeValue(value)}; it must be ${hint}` };
    case 'invalid_format':
    case 'invalid_union':
      return { code: 'field-value', message: `${at} is ${describeValue(value)}; it must be ${hint}` };
    default:
      return undefined;
  }
}

function hintFor(path: KeyPath, hints: Readonly<Record<string, string>>): string | undefined {
  const shape = pathText(path.map((p) => (typeof p === 'number' ? -1 : p))).replace(/\[-1\]/g, '[]');
  const wildcard = typeof path[path.length - 1] === 'string' ? shape.replace(/[^.[\]]+$/, '*') : undefined;
  return hints[shape] ?? (wildcard !== undefined ? hints[wildcard] : undefined) ?? hints[lastKey(path)];
}
