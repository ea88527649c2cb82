import { HarnessError } from '../error.js';

/**
 * Patterns come from plans people write; validation already rejects most bad ones, but a
 * check must still report a bad pattern as a failure rather than throw.
 */
export function compileRegex(pattern: string, flags = ''): RegExp | string {
  try {
    return new RegExp(pattern, flags);
  } catch (e) {
    return `the pattern /${pattern}/ is not a valid regular expression: ${(e as Error).message}`;
  }
}

/** One search with a user's pattern: the first match, or with `maxSpanLines` the first spanning fewer lines. */
export interface RegexRequest {
  text: string;
  source: string;
  flags: string;
  maxSpanLines?: number;
}

export interface RegexMatch {
  index: number;
  text: string;
}

/**
 * Where user patterns run. A pattern such as `(a+)+$` backtracks for minutes on a line of
 * a's, and RegExp cannot be interrupted: on the event loop it would ignore every timer,
 * timeout_seconds included. A port runs it where it can be stopped (the machine's: a
 * worker thread, terminated at the timeout), and rejects with a PatternTimeoutError then.
 */
export type RegexSearch = (request: RegexRequest, timeoutMs: number) => Promise<RegexMatch | null>;

export class PatternTimeoutError extends HarnessError {
  constructor(source: string, ms: number) {
    super(
      `the pattern /${source.length > 80 ? `${source.slice(0, 77)}...` : source}/ was still searching after ${ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`} (timeout_seconds) and was stopped; a nested quantifier such as (a+)+ backtracks without end: simplify it`,
    );
  }
}

/**
 * The search itself. Self-contained on purpose (no imports, no inner functions): the
 * machine's worker thread runs this very function from its source text.
 */
export function searchInProcess(request: RegexRequest): RegexMatch | null {
  const re = new RegExp(request.source, request.flags);
  const max = request.maxSpanLines;
  for (let found = re.exec(request.text); found; found = re.exec(request.text)) {
    if (max === undefined) return { index: found.index, text: found[0] };
    let lines = 0;
    for (let i = 0; i < found[0].length; i++) if (found[0].charCodeAt(i) === 10) lines++;
    if (lines < max) return { index: found.index, text: found[0] };
    if (!re.global) return null;
    re.lastIndex = found.index + 1;
  }
  return null;
}

/** Search on the event loop, for tests and for ports that have no other place to run a pattern. */
export const inProcessSearch: RegexSearch = (request) => Promise.resolve(searchInProcess(request));
