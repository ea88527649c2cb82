/**
 * A failure's signature (docs/design.md, Knowledge): the telling error line with what varies
 * between two occurrences of the same failure masked — numbers, hex and ids, dates and times,
 * temporary and absolute paths, ports — and the error's class and message kept. Two attempts
 * that fail the same way, in any plan of any spec, give the same signature; reflection groups
 * by it before it compares any words, so a lesson never mixes two errors, and surfacing finds
 * the lessons about the error a plan's earlier attempt met.
 *
 *     Error: SQLITE_BUSY: database is locked (pid 4127, /tmp/vitest-8a1f/db.sqlite)
 *     → Error: SQLITE_BUSY: database is locked (pid <n>, <tmp>)
 */

/** A signature is one line, short enough to read in a lesson's frontmatter. */
export const SIGNATURE_MAX = 160;

// eslint-disable-next-line no-control-regex -- a terminal colour code is ESC [ … m
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g;
const CLOCK = /\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/g;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const HEX = /\b(?:0x)?[0-9a-f]*\d[0-9a-f]*[a-f][0-9a-f]*\b|\b(?:0x)?[0-9a-f]*[a-f][0-9a-f]*\d[0-9a-f]*\b/gi;
/** Temporary folders, wherever a system keeps them; the rest of the path varies with them. */
const TEMP_PATH = /(?:[A-Za-z]:)?(?:\/(?:tmp|var\/folders|private\/var\/folders|var\/tmp)|\\Temp|\\AppData\\Local\\Temp)(?:[\\/][^\s'"`),:;]*)?/g;
/** An absolute path (a home, a checkout, a runner's workspace): where the project was, not what went wrong. */
const ABSOLUTE_PATH = /(?<![\w.])(?:[A-Za-z]:\\|\/)(?:[^\s'"`),:;]+[\\/])+[^\s'"`),:;]*/g;
const PORT = /((?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1?\]|port)\s?:?\s?)\d{2,5}\b/gi;
/** A hex literal (a byte, an address): varies with the data, whatever its length. */
const HEX_LITERAL = /\b0x[0-9a-f]+\b/gi;
/**
 * The name a message ends on (what was missing: a table, a module, a key), quoted or after a
 * colon, following a message of a few words: it varies with the work, the error does not.
 * `no such table: main.notes` and `no such table: main.tags` are one error; an error code
 * (`Error: ENOENT`, all capitals) or a one-word message (`Error: timeout`) is kept.
 */
const QUOTED_NAME_AT_END = /(\S+\s+\S+\s+)(['"`])[^'"`\s]+\2$/;
const NAME_AT_END = /^(.*\S+\s+\S+\s+\S+): ([^\s'"`<>()]*[a-z][^\s'"`<>()]*)$/;
/** Standalone numbers; a number inside an identifier (TS2345, E11000, sqlite3) is part of the error's name. */
const NUMBER = /(?<![\w.])(?<![A-Za-z]-)\d+(?:[.,]\d+)*(?![\w])/g;

/**
 * The signature of an error line, or undefined for a line with nothing to tell (empty, or
 * only masks). Deterministic: the same line always gives the same signature.
 */
export function failureSignature(line: string | undefined): string | undefined {
  if (line === undefined) return undefined;
  let s = line.replace(ANSI, '').split('\n')[0]!.trim();
  s = s
    .replace(ISO_TIME, '<date>')
    .replace(CLOCK, '<time>')
    .replace(UUID, '<id>')
    .replace(TEMP_PATH, '<tmp>')
    .replace(ABSOLUTE_PATH, '<path>')
    .replace(PORT, '$1<port>')
    .replace(HEX_LITERAL, '<hex>')
    .replace(HEX, (h) => (h.length >= 7 ? '<hex>' : h))
    .replace(NUMBER, '<n>')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(QUOTED_NAME_AT_END, '$1$2<name>$2')
    .replace(NAME_AT_END, '$1: <name>');
  if (s.replace(/<[a-z]+>|[\W_]/g, '') === '') return undefined;
  return s.length > SIGNATURE_MAX ? `${s.slice(0, SIGNATURE_MAX - 1)}…` : s;
}

/** A signal's signature, as capture recorded it in its metadata; undefined for a signal of no failure. */
export function signatureOfMetadata(metadata: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const s = metadata?.signature;
  return typeof s === 'string' && s.trim() !== '' ? s : undefined;
}
