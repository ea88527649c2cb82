import { compileRegex, searchInProcess, type RegexRequest, type RegexSearch } from './regex.js';
import { lineNumber } from './source-text.js';

/**
 * A plan's pattern found in a file. Code is formatted by tools that break long calls over
 * lines (`app.register(\n  invoiceRoutes`), while the people writing patterns think of the
 * call as one: a `.` in their pattern is meant to reach across those breaks. So a pattern
 * that finds nothing line by line is tried again with `.` crossing lines, lazily and only
 * within a few lines, so that `a.*b` cannot join an `a` at the top of a file to a `b` at its end.
 */

/** How far a match may reach across lines when `.` crosses them. */
export const MAX_SPAN_LINES = 6;

export interface PatternMatch {
  text: string;
  /** 1-based lines of the match's start and end. */
  line: number;
  endLine: number;
}

/** The searches that find a pattern: as written, then (with a `.` in it) lazily across a few lines. */
function searches(text: string, pattern: string): RegexRequest[] | string {
  const re = compileRegex(pattern, 'm');
  if (typeof re === 'string') return re;
  const out: RegexRequest[] = [{ text, source: pattern, flags: 'm' }];
  if (!/(^|[^\\])\./.test(pattern)) return out;
  const spanning = lazy(pattern);
  if (typeof compileRegex(spanning, 'gms') === 'string') return out;
  out.push({ text, source: spanning, flags: 'gms', maxSpanLines: MAX_SPAN_LINES });
  return out;
}

/** The first match, undefined when there is none, or the reason the pattern does not compile. */
export function findPattern(text: string, pattern: string): PatternMatch | undefined | string {
  const plan = searches(text, pattern);
  if (typeof plan === 'string') return plan;
  for (const request of plan) {
    const m = searchInProcess(request);
    if (m) return at(text, m.index, m.text);
  }
  return undefined;
}

/**
 * findPattern through a port (`search`), each search given what is left of `timeoutMs`:
 * how checks run the patterns plans give them.
 */
export async function searchPattern(
  text: string,
  pattern: string,
  search: RegexSearch,
  timeoutMs: number,
  now: () => number,
): Promise<PatternMatch | undefined | string> {
  const plan = searches(text, pattern);
  if (typeof plan === 'string') return plan;
  const end = now() + timeoutMs;
  for (const request of plan) {
    const m = await search(request, Math.max(1, end - now()));
    if (m) return at(text, m.index, m.text);
  }
  return undefined;
}

/** `.*` and `.+` made lazy, so that the nearest end is found first. */
function lazy(pattern: string): string {
  return pattern.replace(/(^|[^\\])\.([*+])(?!\?)/g, '$1.$2?');
}

function at(text: string, index: number, matched: string): PatternMatch {
  const line = lineNumber(text, index);
  return { text: matched, line, endLine: line + (matched.match(/\n/g)?.length ?? 0) };
}

/** "line 4" or "lines 4-6": where a match is, for evidence. */
export function linesOf(match: PatternMatch): string {
  return match.endLine > match.line ? `lines ${match.line}-${match.endLine}` : `line ${match.line}`;
}

/**
 * Does a `contains` read as a regular expression? GSD authors often write `drizzle\(.*schema`
 * or `export (const|function) db` where harness's artifact check expects a literal.
 */
export function looksLikeRegex(value: string): boolean {
  if (typeof compileRegex(value) === 'string') return false;
  return /\\[()[\]{}.*+?|^$sSdDwWb]|\.[*+?]|\[[^\]]+\]|\([^)]*\|[^)]*\)|^\^|\$$/.test(value);
}
