import type { Check } from '../spec/model.js';
import { fail, pass, type Finding } from './check-result.js';
import { quote } from './evidence.js';
import { declares, exportsOf } from './exports-of.js';
import { resolveModule } from './module-paths.js';
import type { VerifyPorts } from './ports.js';
import { linesOf, looksLikeRegex, searchPattern } from './find-pattern.js';
import { inProcessSearch } from './regex.js';
import { languageOf, lineNumber, substantiveLines } from './source-text.js';
import { stubMarkers } from './stub-markers.js';

type Artifact = Extract<Check, { type: 'artifact' }>;

/** Without min_lines an empty or one-line stub must still fail. */
export const DEFAULT_MIN_LINES = 3;

/** `export * from` chains are followed this deep; deeper re-export towers are not worth the reads. */
const MAX_STAR_DEPTH = 4;

/** Every name the file exports, following `export * from` into repository files. */
async function exportedNames(path: string, text: string, ports: VerifyPorts, depth = 0): Promise<{ names: Set<string>; known: boolean }> {
  const lang = languageOf(path);
  const found = exportsOf(text, lang);
  if (depth < MAX_STAR_DEPTH) {
    for (const spec of found.starFrom) {
      const target = await resolveModule(path, spec, ports);
      const targetText = target === undefined ? undefined : await ports.readFile(target);
      if (target === undefined || targetText === undefined) continue;
      const inner = await exportedNames(target, targetText, ports, depth + 1);
      // `export *` never re-exports the default.
      for (const n of inner.names) if (n !== 'default') found.names.add(n);
    }
  }
  return found;
}

/**
 * GSD's artifact: the file exists and has substance. Every shortfall is reported at once,
 * so one run tells the agent everything that is missing.
 */
export async function checkArtifact(check: Artifact, ports: VerifyPorts, timeoutMs: number): Promise<Finding> {
  const text = await ports.readFile(check.path);
  if (text === undefined) return fail(`${check.path} does not exist`);
  const lang = languageOf(check.path);
  const problems: string[] = [];
  const seen: string[] = [];

  const min = check.min_lines ?? DEFAULT_MIN_LINES;
  const lines = substantiveLines(text, lang);
  if (lines < min) problems.push(`${lines} substantive lines, fewer than ${min}`);
  else seen.push(`${lines} substantive lines (min ${min})`);

  if (check.exports !== undefined && check.exports.length > 0) {
    const { names, known } = await exportedNames(check.path, text, ports);
    const missing = check.exports.filter((name) => (known ? !names.has(name) : !declares(text, lang, name)));
    if (missing.length > 0) problems.push(`${known ? 'does not export' : 'does not declare'} ${missing.join(', ')}`);
    else seen.push(`${known ? 'exports' : 'declares'} ${check.exports.join(', ')}`);
  }

  if (check.contains !== undefined) {
    const found = await contains(text, check.contains, ports, timeoutMs);
    if (found.ok) seen.push(found.evidence);
    else problems.push(found.evidence);
  }

  const stubs = stubMarkers(text, lang, { required: check.exports ?? [], declarations: /\.(?:pyi|d\.[cm]?ts)$/.test(check.path) });
  if (stubs.length > 0) problems.push(`looks like a stub: ${stubs.slice(0, 3).join('; ')}${stubs.length > 3 ? `; and ${stubs.length - 3} more` : ''}`);
  else seen.push('no stub markers');

  return problems.length > 0 ? fail(`${check.path}: ${problems.join('; ')}`) : pass(`${check.path}: ${seen.join('; ')}`);
}

/**
 * `contains` is a literal in harness; GSD authors often write a regular expression there
 * (`export (const|function) db`). A literal found is enough; otherwise a value that reads as a
 * regular expression is matched as one, and the evidence says which reading held.
 */
async function contains(text: string, wanted: string, ports: VerifyPorts, timeoutMs: number): Promise<{ ok: boolean; evidence: string }> {
  const at = text.indexOf(wanted);
  if (at >= 0) return { ok: true, evidence: `contains ${quote(wanted)} at line ${lineNumber(text, at)}` };
  if (!looksLikeRegex(wanted)) return { ok: false, evidence: `does not contain ${quote(wanted)}` };
  const match = await searchPattern(text, wanted, ports.regex ?? inProcessSearch, timeoutMs, () => ports.clock.monotonic());
  if (match === undefined || typeof match === 'string') return { ok: false, evidence: `does not contain ${quote(wanted)}, as text or as a regular expression` };
  return { ok: true, evidence: `matches /${wanted}/ (contains, read as a regular expression) at ${linesOf(match)}: ${quote(match.text)}` };
}
