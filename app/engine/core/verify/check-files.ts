import type { Check } from '../spec/model.js';
import { fail, pass, type Finding } from './check-result.js';
import { quote } from './evidence.js';
import type { VerifyPorts } from './ports.js';
import { linesOf, searchPattern } from './find-pattern.js';
import { inProcessSearch } from './regex.js';
import { lineNumber } from './source-text.js';

type FileExists = Extract<Check, { type: 'file_exists' }>;
type FileContains = Extract<Check, { type: 'file_contains' }>;

export async function checkFileExists(check: FileExists, ports: VerifyPorts): Promise<Finding> {
  const kind = await ports.exists(check.path);
  return kind ? pass(`${check.path} exists (${kind})`) : fail(`${check.path} does not exist`);
}

/** Both `contains` (literal) and `pattern` (regex) must hold when both are given. */
export async function checkFileContains(check: FileContains, ports: VerifyPorts, timeoutMs: number): Promise<Finding> {
  if (check.contains === undefined && check.pattern === undefined) {
    return fail('the check names neither contains nor pattern, so it could not fail; add one');
  }
  const text = await ports.readFile(check.path);
  if (text === undefined) return fail(`${check.path} does not exist`);
  const seen: string[] = [];
  if (check.contains !== undefined) {
    const at = text.indexOf(check.contains);
    if (at < 0) return fail(`${check.path} does not contain ${quote(check.contains)}`);
    seen.push(`contains ${quote(check.contains)} at line ${lineNumber(text, at)}`);
  }
  if (check.pattern !== undefined) {
    const m = await searchPattern(text, check.pattern, ports.regex ?? inProcessSearch, timeoutMs, () => ports.clock.monotonic());
    if (typeof m === 'string') return fail(m);
    if (!m) return fail(`${check.path} has no match for /${check.pattern}/`);
    seen.push(`matches /${check.pattern}/ at ${linesOf(m)}: ${quote(m.text)}`);
  }
  return pass(`${check.path} ${seen.join('; ')}`);
}
