/**
 * What every recogniser of a tool's failing output shares (telling/index.ts tries them in
 * order). A recogniser reads the output's lines and names the one that says the cause, as the
 * tool printed it (or, where the tool spreads it over two lines, the two joined), with where it
 * was found; it names nothing when the output is not its tool's.
 *
 * Every pattern is linear on hostile input: no nested quantifiers, and every line is cut to
 * MAX_LINE characters before any pattern sees it.
 */

export interface Found {
  /** Index of the line the cause was read from (the earliest wins across recognisers). */
  at: number;
  /** The telling line. */
  line: string;
  /** The tool whose output it is (`go test`, `pytest`, `postgres`…). */
  tool: string;
}

export interface Recogniser {
  /** The ecosystem, for tests and for reading the order in index.ts. */
  readonly name: string;
  find(output: readonly string[]): Found | undefined;
}

/** Lines longer than this are cut before matching: no tool prints its cause past it. */
export const MAX_LINE = 4000;

// eslint-disable-next-line no-control-regex -- a terminal's colour and cursor codes
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/** One line, ready to match: colour codes and a trailing CR gone, cut to MAX_LINE. */
export function prepared(line: string): string {
  const cut = line.length > MAX_LINE ? line.slice(0, MAX_LINE) : line;
  return cut.replace(ANSI, '').replace(/\r$/, '');
}

export function prepare(output: readonly string[]): string[] {
  return output.map(prepared);
}

/** What frames a line in some tools' output: TAP's diagnostics, pytest's error lines, quotes and boxes. */
const FRAME = /^(?:#\s+|E\s{2,}|>\s+|[│|]\s+)+/;

/** A line without its indentation and what frames it. */
export function unframed(line: string): string {
  return line.trim().replace(FRAME, '').trim();
}

/** The first line from `from` on that says something. */
export function nextSaying(lines: readonly string[], from: number, within = 6): number | undefined {
  for (let i = from; i < lines.length && i < from + within; i++) if (lines[i]!.trim() !== '') return i;
  return undefined;
}

/** The earliest of several finds (the first given wins a tie). */
export function earliest(...found: (Found | undefined)[]): Found | undefined {
  let best: Found | undefined;
  for (const f of found) if (f !== undefined && (best === undefined || f.at < best.at)) best = f;
  return best;
}

/** Words a message says something failed with (a test's own words: got/want, expected). */
export const FAILURE_WORDS =
  /\b(?:error|err|fail(?:ed|ure)?|unexpected|expected|want(?:ed)?|got|mismatch|missing|not found|no such|does not exist|doesn't exist|cannot|can't|unable|invalid|refused|denied|timed? ?out|panic)\b/i;
