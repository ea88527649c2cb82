import { compileRegex } from './regex.js';
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

/** The first match, undefined when there is none, or the reason the pattern does not compile. */
export function findPattern(text: string, pattern: string): PatternMatch | undefined | string {
  const re = compileRegex(pattern, 'm');
  if (typeof re === 'string') return re;
  const m = re.exec(text);
  if (m) return at(text, m.index, m[0]);
  if (!/(^|[^\\])\./.test(pattern)) return undefined;
  const spanning = compileRegex(lazy(pattern), 'gms');
  if (typeof spanning === 'string') return undefined;
  for (let found = spanning.exec(text); found; found = spanning.exec(text)) {
    const match = at(text, found.index, found[0]);
    if (match.endLine - match.line < MAX_SPAN_LINES) return match;
    spanning.lastIndex = found.index + 1;
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
