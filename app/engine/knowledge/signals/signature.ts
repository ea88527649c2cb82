/**
 * A failure's signature (docs/design.md, Knowledge): the telling error line with what varies
 * between two occurrences of the same failure masked — numbers, hex and ids, dates and times,
 * durations, temporary and absolute paths, URLs, ports, a test framework's `file:line:` location,
 * the names of tests, tables, columns, constraints, indexes, modules and packages — and what
 * tells one failure from another kept: the error's class and code, its message's words, a
 * SQLSTATE, a MySQL error number. Two attempts that fail the same way, in any plan of any spec,
 * give the same signature; reflection groups by it before it compares any words, so a lesson
 * never mixes two errors, and surfacing finds the lessons about the error a plan's earlier
 * attempt met.
 *
 *     Error: SQLITE_BUSY: database is locked (pid 4127, /tmp/vitest-8a1f/db.sqlite)
 *     → Error: SQLITE_BUSY: database is locked (pid <n>, <tmp>)
 *     psycopg2.errors.UndefinedTable: relation "orders" does not exist
 *     → psycopg2.errors.UndefinedTable: relation "<name>" does not exist
 *
 * Every pattern is linear (no nested quantifiers), and a line is cut to LINE_MAX first.
 */

/** A signature is one line, short enough to read in a lesson's frontmatter. */
export const SIGNATURE_MAX = 160;

// eslint-disable-next-line no-control-regex -- a terminal colour code is ESC [ … m
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g;
const CLOCK = /\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/g;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
/** A run of 7 or more hex digits with both digits and letters in it (a commit, a hash): one quantifier, checked after. */
const HEX = /\b(?:0x)?[0-9a-f]{7,}\b/gi;
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
const NAME = /^[^\s'"`<>()]*[a-z][^\s'"`<>()]*$/;
const THREE_WORDS = /\S\s+\S+\s+\S+$/;

/** `no such table: main.notes` → `no such table: <name>`: the text after the last `: `, when it is one name and a message of three words or more is before it. */
function nameAtEnd(s: string): string {
  const at = s.lastIndexOf(': ');
  if (at < 0 || !NAME.test(s.slice(at + 2)) || !THREE_WORDS.test(s.slice(0, at))) return s;
  return `${s.slice(0, at)}: <name>`;
}
/** Codes that name the error and must survive the number mask: `SQLSTATE 23505`, MySQL's `Error 1062 (23000)`, PyMySQL's `(1062, "`. */
const CODE = /\bSQLSTATE\s+[0-9A-Z]{5}\b|\bError \d{4}(?: \([0-9A-Z]{5}\))?|(?<=^|[\s:(])\(\d{4}(?=, ["'])/g;
/** A test runner's line naming a test: the name varies, the runner's verdict does not. */
const RUNNER_LINES: readonly [RegExp, string][] = [
  [/^--- (FAIL|PASS|SKIP): \S+/, '--- $1: <test>'],
  [/^(FAILED|ERROR) \S+::\S+/, '$1 <test>'],
  [/^● .+/, '● <test>'],
  [/^FAIL\s+\S+\.[cm]?[jt]sx?(?: (?:>|\[) .*)?$/, 'FAIL <test>'],
  [/^(✖|×|✕|✗) .+/, '$1 <test>'],
  [/^not ok \d+ - .+/, 'not ok <n> - <test>'],
  [/^\S[^>]* > .* FAILED$/, '<test> FAILED'],
  [/^Failed \S+ \[/, 'Failed <test> ['],
  [/^thread '[^']*'(?: \(\d+\))?/, "thread '<test>'"],
];
/** A location at the line's start: `user_test.go:42: `, `tests/test_x.py:17: `, `src/a.ts(3,5): `, `src/a.test.ts:3:5 - `, `Order.java:[18,16] `. */
const LOCATION_PREFIX = /^(?:[A-Za-z]:)?[\w./\\-]+\.\w{1,6}(?:\(\d+,\d+\)|:\[\d+,\d+\]|:\d+(?::\d+)?)(?::| -)? /;
/** A source location inside a line: `at UserServiceTest.java:19`. */
const LOCATION = /(?<![\w./\\-])[\w./\\-]*\.(?:java|kt|scala|go|py|rb|[cm]?[jt]sx?|rs|c|cc|cpp|h|hpp|cs|fs|vb|swift|php|exs?):\d+(?::\d+)?\b/g;
/** MSBuild's project after a diagnostic: `[/src/Shop/Shop.csproj]`. */
const PROJECT_SUFFIX = /\s\[[^\]\s]*\.[a-z]*proj\]$/;
/** What a quoted name is the name of: the name varies with the work, the noun before it does not. An absolute path quoted there is masked as a path. */
const NAMED_NOUNS =
  'relation|table|column|constraint|index|database|schema|role|sequence|view|function|collection|key|entry|field|module|package|named|test|task|service|container|endpoint|script|name|value|variable|crate|method|struct|trait|macro|file';
const QUOTED_NAME = new RegExp(`\\b(${NAMED_NOUNS})(:?\\s+)(["'\`‘“])(?![A-Za-z]:\\\\|/[^"'\`’”\\s]*/)[^"'\`’”\\s]{1,200}(["'\`’”])`, 'gi');
/** A quoted name followed by what is wrong with it: `‘count’ undeclared`, `'x' is not defined`. */
const QUOTED_SUBJECT =
  /(["'`‘“])[\w.$/-]{1,200}(["'`’”]) (?=undeclared|is not defined|is undefined|is not a function|already exists|does not exist|doesn't exist|not found)/g;
/** Names a message holds without quotes. */
const BARE_NAMES: readonly [RegExp, string | ((match: string, ...groups: string[]) => string)][] = [
  // Go's `undefined: mocks.NewMockStore` keeps its package: a mock not generated is not a typo's `undefined: CreateInvoice`.
  [/\bundefined: (?:([a-z]\w*)\.)?\w+$/, (_: string, pkg?: string) => `undefined: ${pkg ? `${pkg}.` : ''}<name>`],
  [/\b(package|module) [\w-]*[./@][\w.@/-]*/g, '$1 <name>'],
  [/\bimported by [\w.@/-]+/g, 'imported by <name>'],
  [/\b(satisfies the requirement|distribution found for) \S+/g, '$1 <name>'],
  [/\b(collection|index): \S+/g, '$1: <name>'],
  [/\bdup key: \{[^}]*\}/g, 'dup key: { <value> }'],
  [/\bKey \([^)]*\)=\([^)]*\)/g, 'Key (<name>)=(<value>)'],
  [/\b(endpoint|access denied for|uninitialized constant) [^\s,(]+/g, '$1 <name>'],
  // A model's or a class's attribute inside a message (Django's `DateTimeField Invoice.due_at received …`): the project's name, not the error's.
  [/(?<=\s)[A-Z][A-Za-z0-9]*\.[a-z_][a-z0-9_]*\b(?!\()/g, '<name>'],
];
/** A duration: `(0.01s)`, `12ms`, `in 3.2 seconds`, `[12 ms]`, Go's `10m0s`. */
const DURATION = /\b\d+m\d+(?:\.\d+)?s\b|\b\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|seconds?|secs?|minutes?|mins?|s|m|h)\b/g;
/** A container id (12 or 64 hex digits), whatever digits or letters it happens to have. */
const CONTAINER_ID = /\b[0-9a-f]{64}\b|\b[0-9a-f]{12}\b/g;
/** A URL, quoted or not: its host, port and path vary with the work (`/v1/invoices/7`, `/v1/tax_rates/3`). */
const URL = /\bhttps?:\/\/[^\s"'`<>]+/g;
/**
 * Go's net/http error, `Get "<url>": <cause>` (url.Error), after whatever the project's code
 * wrapped it in (`enrich invoice 7: `): the wrapping names the task, the error from `Get` on is
 * the failure.
 */
const GO_URL_ERROR = /^.*?: ((?:Get|Post|Put|Patch|Delete|Head|Options) "<url>": )/;
/** A line is cut to this before any pattern sees it: a signature keeps far less. */
const LINE_MAX = 2000;

/** Standalone numbers; a number inside an identifier (TS2345, E11000, sqlite3) is part of the error's name. */
const NUMBER = /(?<![\w.])(?<![A-Za-z]-)\d+(?:[.,]\d+)*(?![\w])/g;

/**
 * The signature of an error line, or undefined for a line with nothing to tell (empty, or
 * only masks). Deterministic: the same line always gives the same signature.
 */
export function failureSignature(line: string | undefined): string | undefined {
  if (line === undefined) return undefined;
  let s = line.replace(ANSI, '').split('\n')[0]!.slice(0, LINE_MAX).trim();
  // The codes that name the error are set aside while numbers are masked, then put back.
  const codes: string[] = [];
  s = s.replace(CODE, (code) => `\u0001${String.fromCharCode(65 + codes.push(code) - 1)}\u0001`);
  for (const [re, mask] of RUNNER_LINES) s = s.replace(re, mask);
  s = s.replace(LOCATION_PREFIX, '<location>: ').replace(PROJECT_SUFFIX, '').replace(LOCATION, '<location>');
  s = s.replace(URL, '<url>').replace(GO_URL_ERROR, '$1');
  s = s.replace(QUOTED_NAME, '$1$2$3<name>$4').replace(QUOTED_SUBJECT, '$1<name>$2 ');
  for (const [re, mask] of BARE_NAMES) s = s.replace(re, mask as string);
  s = s
    .replace(ISO_TIME, '<date>')
    .replace(CLOCK, '<time>')
    .replace(DURATION, '<duration>')
    .replace(UUID, '<id>')
    .replace(TEMP_PATH, '<tmp>')
    .replace(ABSOLUTE_PATH, '<path>')
    .replace(PORT, '$1<port>')
    .replace(HEX_LITERAL, '<hex>')
    .replace(CONTAINER_ID, '<hex>')
    .replace(HEX, (h) => (/\d/.test(h) && /[a-f]/i.test(h) ? '<hex>' : h))
    .replace(NUMBER, '<n>')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(QUOTED_NAME_AT_END, '$1$2<name>$2');
  s = nameAtEnd(s)
    // eslint-disable-next-line no-control-regex -- the codes set aside above
    .replace(/\u0001([A-Z])\u0001/g, (_, i: string) => codes[i.charCodeAt(0) - 65] ?? '');
  if (s.replace(/<[a-z]+>|[\W_]/g, '') === '') return undefined;
  return s.length > SIGNATURE_MAX ? `${s.slice(0, SIGNATURE_MAX - 1)}…` : s;
}

/** A signal's signature, as capture recorded it in its metadata; undefined for a signal of no failure. */
export function signatureOfMetadata(metadata: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const s = metadata?.signature;
  return typeof s === 'string' && s.trim() !== '' ? s : undefined;
}
