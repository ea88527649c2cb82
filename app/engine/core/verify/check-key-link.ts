import type { Check } from '../spec/model.js';
import { fail, pass, type Finding } from './check-result.js';
import { quote } from './evidence.js';
import { existingModule, importSpecifiers, looksLikeRepoPath, moduleKey, resolveModule } from './module-paths.js';
import type { VerifyPorts } from './ports.js';
import { linesOf, searchPattern } from './find-pattern.js';
import { inProcessSearch } from './regex.js';
import { languageOf, lineNumber, stripComments } from './source-text.js';

type KeyLink = Extract<Check, { type: 'key_link' }>;

/** Does some import in `from` name the module `to`? Relative imports are resolved; aliases (@/, ~/) match by suffix. */
async function importsModule(from: string, code: string, to: string, ports: VerifyPorts): Promise<string | undefined> {
  const want = moduleKey(to);
  for (const spec of importSpecifiers(code)) {
    if (spec.startsWith('.')) {
      const resolved = await resolveModule(from, spec, ports);
      if (resolved !== undefined && moduleKey(resolved) === want) return spec;
      continue;
    }
    const bare = moduleKey(spec.replace(/^(?:@|~|#)\//, ''));
    if (bare !== '' && (want === bare || want.endsWith(`/${bare}`))) return spec;
  }
  return undefined;
}

/**
 * GSD's key link: `from` is really wired to `to`. With a pattern, the pattern must match the
 * code of `from` (comments do not count); without one, `from` must import `to` (when it is a
 * file) or mention it. A `to` that names a repository file must exist.
 */
export async function checkKeyLink(check: KeyLink, ports: VerifyPorts, timeoutMs: number): Promise<Finding> {
  const text = await ports.readFile(check.from);
  if (text === undefined) return fail(`${check.from} does not exist`);
  const code = stripComments(text, languageOf(check.from));
  const via = check.via ? ` (via ${check.via})` : '';

  const isPath = looksLikeRepoPath(check.to);
  const target = isPath ? await existingModule(check.to, ports) : undefined;
  if (isPath && target === undefined) return fail(`${check.to} does not exist, so ${check.from} cannot link to it`);

  if (check.pattern !== undefined) {
    const m = await searchPattern(code, check.pattern, ports.regex ?? inProcessSearch, timeoutMs, () => ports.clock.monotonic());
    if (typeof m === 'string') return fail(m);
    if (!m) return fail(`${check.from} has no match for /${check.pattern}/ outside comments; the link to ${check.to}${via} is missing`);
    return pass(`${check.from} ${linesOf(m)} links to ${check.to}${via}: ${quote(m.text)}`);
  }

  if (target !== undefined) {
    const spec = await importsModule(check.from, code, target, ports);
    if (spec !== undefined) return pass(`${check.from} line ${lineNumber(code, Math.max(0, code.indexOf(spec)))} imports ${check.to} as ${quote(spec)}${via}`);
  }
  const at = code.indexOf(check.to);
  if (at >= 0) return pass(`${check.from} line ${lineNumber(code, at)} mentions ${quote(check.to)}${via}`);
  return fail(`${check.from} neither imports nor mentions ${check.to}${via}; the link is missing`);
}
