/**
 * A fast path for the plain YAML that frontmatter is nearly always written in. The `yaml`
 * library is exact but slow (about 0.2 ms for a 1 KB frontmatter, which made parsing most
 * of the time `harness validate` takes on a large spec); this reads a strict subset in a
 * single pass and returns `undefined` for anything outside it, so that the caller falls
 * back to `yaml` and its messages. For every input it accepts, the data and the line of
 * each key and list item are exactly what `yaml` gives (test/properties.test.ts checks
 * this against `yaml` on generated and mutated documents).
 *
 * The subset: block mappings with simple keys (letters, digits, "_", "-"), block
 * sequences (`- value`, `- key: value` with its further keys aligned), single-line flow
 * sequences and mappings, single-line quoted strings, comments and blank lines. Plain
 * scalars are strings unless they are null, a boolean or a whole number of up to 15
 * digits, per YAML 1.2's core schema; anything that might be another number, or use
 * anchors, aliases, tags, block scalars, multi-line scalars, tabs or control characters,
 * goes to `yaml`.
 */

/** A key path into frontmatter: `['must_pass', 2, 'type']`. */
export type KeyPath = readonly (string | number)[];

/** Where the parser records the line of each key and list item (a LineMap). */
export interface LineSink {
  set(path: KeyPath, line: number): void;
}

type Path = readonly (string | number)[];

/** Thrown to leave the fast path: the input is outside the subset. */
const BAIL = Symbol('bail');
function bail(): never {
  throw BAIL;
}

// Any control character but "\n", DEL and C1 controls, NEL, the Unicode line separators, BOM.
// eslint-disable-next-line no-control-regex
const UNSUPPORTED = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff]/;
/** Keys that read as null or a boolean, and one that would reach an object's prototype. */
const RESERVED_KEY = new Set(['~', 'null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE', '__proto__']);
const NULL = /^(?:~|[Nn]ull|NULL)$/;
const TRUE = /^(?:[Tt]rue|TRUE)$/;
const FALSE = /^(?:[Ff]alse|FALSE)$/;
const INT = /^(?:0|[1-9][0-9]{0,14})$/;
/** Might be a number of some other form (sign, float, octal, hex, .inf, .nan). */
const NUMERIC_START = /^[-+.0-9]/;
/**
 * A date or an ISO time (2026-03-02, 2026-03-02T09:14:00Z): a string under the core schema,
 * and in every signal, lesson and run document, so it stays on the fast path.
 */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))?$/;
/** Characters that cannot start a plain scalar here (YAML indicators; "-", "?" and ":" to be safe), by code. */
const INDICATOR = new Uint8Array(128);
for (const c of '-?:,[]{}#&*!|>\'"%@`') INDICATOR[c.charCodeAt(0)] = 1;

/**
 * Parse `raw` (the frontmatter between the fences; line 1 is the opening fence's line),
 * recording key and item lines into `sink` (without one, no key paths are even built: the
 * lines are read again only when asked for). Returns the data, or undefined to say:
 * parse this with `yaml`.
 *
 * Lines are read in place, as offsets into `raw`: no line, and no text but keys and
 * values, is cut out as a string of its own (a string and an object per line was most of
 * the garbage, and so much of the time, of loading a large spec).
 */
export function parseSimpleYaml(raw: string, sink?: LineSink): Record<string, unknown> | undefined {
  if (UNSUPPORTED.test(raw)) return undefined;
  // Each line that holds something, four numbers to a line in one array kept between
  // calls: its number, the column of its first character, and where its text starts and
  // ends (trailing spaces dropped).
  let lines = busy ? new Int32Array(64) : LINES;
  let count = 0;
  let no = 0;
  for (let from = 0; from <= raw.length;) {
    let to = raw.indexOf('\n', from);
    if (to === -1) to = raw.length;
    no++;
    let start = from;
    while (start < to && raw.charCodeAt(start) === 32) start++;
    let end = to;
    while (end > start && raw.charCodeAt(end - 1) === 32) end--;
    if (start < end && raw.charCodeAt(start) !== 35 /* # */) {
      if (start === from && (raw.startsWith('---', start) || raw.startsWith('...', start) || raw.charCodeAt(start) === 37) /* % */) return undefined;
      if (4 * count + 4 > lines.length) {
        const larger = new Int32Array(2 * lines.length);
        larger.set(lines);
        lines = larger;
        if (!busy) LINES = larger;
      }
      lines[4 * count] = no;
      lines[4 * count + 1] = start - from;
      lines[4 * count + 2] = start;
      lines[4 * count + 3] = end;
      count++;
    }
    from = to + 1;
  }
  if (count === 0) return {};
  if (lines[1] !== 0 || isSeqItem(raw, lines[2]!, lines[3]!)) return undefined;
  const outer = busy;
  busy = true;
  // One parser for every document, not an object per document: besides the garbage, the
  // garbage collector forgets the shape of an object none of which is left, and the
  // optimised parser that relied on it is thrown away with it.
  const parser = (outer ? new Parser() : PARSER).reset(raw, lines, count, sink);
  try {
    const data = parser.blockMap(0, []);
    return parser.done() ? data : undefined;
  } catch (e) {
    if (e === BAIL) return undefined;
    throw e;
  } finally {
    parser.reset();
    busy = outer;
  }
}

/** The lines of the document being parsed (see parseSimpleYaml); `busy` while a parse uses them. */
let LINES = new Int32Array(4 * 64);
let busy = false;

/** `-` alone or `- ` and more, at `start`. */
function isSeqItem(raw: string, start: number, end: number): boolean {
  return raw.charCodeAt(start) === 45 /* - */ && (start + 1 === end || raw.charCodeAt(start + 1) === 32);
}

/** A character that may start a key: a letter or "_". */
function keyStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

/** A character that may follow in a key: a letter, digit, "_" or "-". */
function keyPart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45;
}

/** A key and its colon at `start`, followed by a space or the end of the line: "- key: …" begins a mapping. */
function isPair(raw: string, start: number, end: number): boolean {
  if (start >= end || !keyStart(raw.charCodeAt(start))) return false;
  let k = start + 1;
  while (k < end && keyPart(raw.charCodeAt(k))) k++;
  return k < end && raw.charCodeAt(k) === 58 /* : */ && (k + 1 === end || raw.charCodeAt(k + 1) === 32);
}

/**
 * Keys seen before, by a hash of their first and last characters and length: frontmatter
 * repeats the same few dozen keys in every plan, and a key found here is returned as the
 * string already checked (and hashed) instead of being cut out, checked and hashed again.
 */
const KEY_CACHE: string[] = new Array<string>(512).fill('');

/** raw.startsWith(text, start), for a short text: a loop beats the call. */
function sameText(raw: string, start: number, text: string): boolean {
  for (let k = 0; k < text.length; k++) if (raw.charCodeAt(start + k) !== text.charCodeAt(k)) return false;
  return true;
}

/** The key in raw[start, end), if it is a simple key new to `into`; else leave the fast path. */
function keyAt(raw: string, start: number, end: number, into: Record<string, unknown>): string {
  const length = end - start;
  if (length <= 0) bail();
  const first = raw.charCodeAt(start);
  const slot = (first * 31 + raw.charCodeAt(end - 1) * 7 + length) & 511;
  const known = KEY_CACHE[slot]!;
  if (known.length === length && sameText(raw, start, known)) {
    if (Object.hasOwn(into, known)) bail();
    return known;
  }
  if (!keyStart(first)) bail();
  for (let k = start + 1; k < end; k++) if (!keyPart(raw.charCodeAt(k))) bail();
  const key = raw.slice(start, end);
  // Only these can start a reserved key that a simple key may spell ("~" cannot start one).
  const reserved = first === 110 || first === 78 || first === 116 || first === 84 || first === 102 || first === 70 || first === 95;
  if (reserved && RESERVED_KEY.has(key)) bail();
  // A copy of its own, so that the cache never keeps the text it was cut from.
  KEY_CACHE[slot] = Array.from(key).join('');
  if (Object.hasOwn(into, key)) bail();
  return key;
}

class Parser {
  #i = 0;
  /** The inline value being read: raw[pos, end) on line `no`. */
  pos = 0;
  end = 0;
  no = 0;
  raw = '';
  /** Four numbers a line: number, indent, start, end. */
  lines: Int32Array = LINES;
  count = 0;
  sink: LineSink | undefined = undefined;

  /** Ready to parse `raw` (or, with nothing, holding no document). */
  reset(raw = '', lines: Int32Array = LINES, count = 0, sink: LineSink | undefined = undefined): this {
    this.#i = 0;
    this.pos = this.end = this.no = 0;
    this.raw = raw;
    this.lines = lines;
    this.count = count;
    this.sink = sink;
    return this;
  }

  done(): boolean {
    return this.#i === this.count;
  }

  /**
   * A block mapping whose keys sit at `indent`; a pair already begun on a "- " line is
   * raw[firstStart, firstEnd) on line firstNo (firstStart -1: none).
   */
  blockMap(indent: number, path: Path, firstStart = -1, firstEnd = 0, firstNo = 0): Record<string, unknown> {
    const raw = this.raw;
    const map: Record<string, unknown> = {};
    let pending = firstStart;
    for (;;) {
      let start: number;
      let end: number;
      let no: number;
      if (pending >= 0) {
        start = pending;
        end = firstEnd;
        no = firstNo;
        pending = -1;
      } else {
        const i = this.#i;
        if (i >= this.count || this.lines[4 * i + 1]! < indent) break;
        if (this.lines[4 * i + 1]! > indent) bail();
        start = this.lines[4 * i + 2]!;
        end = this.lines[4 * i + 3]!;
        if (isSeqItem(raw, start, end)) break; // a sequence beside its key belongs to the parent
        no = this.lines[4 * i]!;
        this.#i++;
      }
      const colon = raw.indexOf(':', start);
      if (colon <= start || colon >= end) bail();
      const key = keyAt(raw, start, colon, map);
      if (colon + 1 < end && raw.charCodeAt(colon + 1) !== 32) bail();
      let at = colon + 1;
      while (at < end && raw.charCodeAt(at) === 32) at++;
      const keyPath = this.sink ? [...path, key] : path;
      this.sink?.set(keyPath, no);
      if (at === end || raw.charCodeAt(at) === 35 /* # */) {
        // The value is on the lines below: a deeper block, a sequence beside the key, or nothing.
        const next = this.#i;
        if (next < this.count && this.lines[4 * next + 1]! > indent) map[key] = this.block(this.lines[4 * next + 1]!, keyPath);
        else if (next < this.count && this.lines[4 * next + 1] === indent && isSeqItem(raw, this.lines[4 * next + 2]!, this.lines[4 * next + 3]!))
          map[key] = this.blockSeq(indent, keyPath);
        else map[key] = null;
      } else {
        map[key] = this.inline(at, end, no, keyPath);
        this.noDeeperThan(indent);
      }
    }
    return map;
  }

  block(indent: number, path: Path): unknown {
    const i = this.#i;
    return isSeqItem(this.raw, this.lines[4 * i + 2]!, this.lines[4 * i + 3]!) ? this.blockSeq(indent, path) : this.blockMap(indent, path);
  }

  blockSeq(indent: number, path: Path): unknown[] {
    const raw = this.raw;
    const list: unknown[] = [];
    for (;;) {
      const i = this.#i;
      if (i >= this.count || this.lines[4 * i + 1] !== indent || !isSeqItem(raw, this.lines[4 * i + 2]!, this.lines[4 * i + 3]!)) {
        if (i < this.count && this.lines[4 * i + 1]! > indent) bail();
        break;
      }
      this.#i++;
      const lineStart = this.lines[4 * i + 2]!;
      const end = this.lines[4 * i + 3]!;
      const no = this.lines[4 * i]!;
      let at = lineStart + 1;
      while (at < end && raw.charCodeAt(at) === 32) at++;
      // An empty item, one that continues below, or a nested "- -": leave to yaml.
      if (at === end || raw.charCodeAt(at) === 35 /* # */ || isSeqItem(raw, at, end)) bail();
      const itemPath = this.sink ? [...path, list.length] : path;
      this.sink?.set(itemPath, no);
      if (isPair(raw, at, end)) {
        list.push(this.blockMap(indent + (at - lineStart), itemPath, at, end, no));
      } else {
        list.push(this.inline(at, end, no, itemPath));
        this.noDeeperThan(indent);
      }
    }
    return list;
  }

  /** After a value that ended its line, a deeper line would continue it: not ours. */
  noDeeperThan(indent: number): void {
    const i = this.#i;
    if (i < this.count && this.lines[4 * i + 1]! > indent) bail();
  }

  /** A value that is raw[start, end), the rest of line `no` (a comment may follow). */
  inline(start: number, end: number, no: number, path: Path): unknown {
    this.pos = start;
    this.end = end;
    this.no = no;
    const value = this.value(path, false);
    // Only a comment (after a space) may follow the value.
    const before = this.pos;
    this.spaces();
    if (this.pos < end && !(this.raw.charCodeAt(this.pos) === 35 /* # */ && this.pos > before)) bail();
    return value;
  }

  spaces(): void {
    while (this.pos < this.end && this.raw.charCodeAt(this.pos) === 32) this.pos++;
  }

  /** The character at pos, or -1 at the end of the value's line. */
  peek(): number {
    return this.pos < this.end ? this.raw.charCodeAt(this.pos) : -1;
  }

  value(path: Path, flow: boolean): unknown {
    switch (this.peek()) {
      case 34 /* " */:
        return this.doubleQuoted();
      case 39 /* ' */:
        return this.singleQuoted();
      case 91 /* [ */:
        return this.flowSeq(path);
      case 123 /* { */:
        return this.flowMap(path);
      default:
        return this.plain(flow);
    }
  }

  // Quoted strings are cut out whole between escapes: building them a character at a time
  // made most of the garbage of loading a large spec.
  doubleQuoted(): string {
    const raw = this.raw;
    const end = this.end;
    let out = '';
    let from = this.pos + 1;
    for (let j = from; j < end; j++) {
      const c = raw.charCodeAt(j);
      if (c === 34 /* " */) {
        this.pos = j + 1;
        return out + raw.slice(from, j);
      }
      if (c === 92 /* \ */) {
        const escaped = j + 1 < end ? escape(raw.charCodeAt(j + 1)) : undefined;
        if (escaped === undefined) bail();
        out += raw.slice(from, j) + escaped;
        j++;
        from = j + 1;
      }
    }
    return bail();
  }

  singleQuoted(): string {
    const raw = this.raw;
    const end = this.end;
    let out = '';
    let from = this.pos + 1;
    for (let j = from; j < end; j++) {
      if (raw.charCodeAt(j) !== 39 /* ' */) continue;
      if (j + 1 < end && raw.charCodeAt(j + 1) === 39) {
        // A doubled quote stands for one: keep the first, skip the second.
        out += raw.slice(from, j + 1);
        j++;
        from = j + 1;
        continue;
      }
      this.pos = j + 1;
      return out + raw.slice(from, j);
    }
    return bail();
  }

  flowSeq(path: Path): unknown[] {
    const list: unknown[] = [];
    this.pos++;
    this.spaces();
    if (this.peek() === 93 /* ] */) {
      this.pos++;
      return list;
    }
    for (;;) {
      // A flow sequence here ends on its parent's line, so a scalar item's line is its
      // parent's, which lineOf falls back to: only items that hold keys of their own are
      // recorded (recording every item of a plan listing thousands of unknown dependencies
      // was most of the time it took to report them).
      const c0 = this.peek();
      const nested = c0 === 91 /* [ */ || c0 === 123; /* { */
      const itemPath = this.sink && nested ? [...path, list.length] : path;
      if (nested) this.sink?.set(itemPath, this.no);
      list.push(this.value(itemPath, true));
      this.spaces();
      const c = this.peek();
      this.pos++;
      if (c === 93 /* ] */) return list;
      if (c !== 44 /* , */) bail();
      this.spaces();
      if (this.peek() === 93) bail(); // a trailing comma: leave it to yaml
    }
  }

  flowMap(path: Path): Record<string, unknown> {
    const raw = this.raw;
    const map: Record<string, unknown> = {};
    this.pos++;
    this.spaces();
    if (this.peek() === 125 /* } */) {
      this.pos++;
      return map;
    }
    for (;;) {
      const colon = raw.indexOf(': ', this.pos);
      if (colon === -1 || colon + 2 > this.end) bail();
      const key = keyAt(raw, this.pos, colon, map);
      const keyPath = this.sink ? [...path, key] : path;
      this.sink?.set(keyPath, this.no);
      this.pos = colon + 2;
      this.spaces();
      const v = this.peek();
      if (v === -1 || v === 44 /* , */ || v === 125 /* } */) bail(); // a key without a value
      map[key] = this.value(keyPath, true);
      this.spaces();
      const c = this.peek();
      this.pos++;
      if (c === 125 /* } */) return map;
      if (c !== 44 /* , */) bail();
      this.spaces();
      if (this.peek() === 125) bail();
    }
  }

  plain(flow: boolean): unknown {
    const raw = this.raw;
    const end = this.end;
    const from = this.pos;
    if (from >= end || INDICATOR[raw.charCodeAt(from)] === 1) bail();
    let j = from;
    for (; j < end; j++) {
      const c = raw.charCodeAt(j);
      if (c === 35 /* # */ && raw.charCodeAt(j - 1) === 32) break;
      if (c === 58 /* : */) {
        const after = j + 1 < end ? raw.charCodeAt(j + 1) : -1;
        if (after === -1 || after === 32 || (flow && (after === 44 || after === 93 || after === 125))) bail();
      }
      if (flow) {
        if (c === 44 /* , */ || c === 93 /* ] */ || c === 125 /* } */) break;
        if (c === 91 /* [ */ || c === 123 /* { */) bail();
      }
    }
    let to = j;
    while (to > from && raw.charCodeAt(to - 1) === 32) to--;
    this.pos = to;
    const s = raw.slice(from, to);
    // The first character tells which of the forms below a scalar might have: a word that
    // starts with another letter is a string.
    switch (raw.charCodeAt(from)) {
      case 110 /* n */:
      case 78 /* N */:
        return NULL.test(s) ? null : s;
      case 116 /* t */:
      case 84 /* T */:
        return TRUE.test(s) ? true : s;
      case 102 /* f */:
      case 70 /* F */:
        return FALSE.test(s) ? false : s;
      default: {
        const first = raw.charCodeAt(from);
        if ((first >= 97 && first <= 122) || (first >= 65 && first <= 90)) return s;
      }
    }
    if (NULL.test(s)) return null;
    if (TRUE.test(s)) return true;
    if (FALSE.test(s)) return false;
    if (INT.test(s)) return Number(s);
    if (DATE_TIME.test(s)) return s;
    if (NUMERIC_START.test(s)) bail();
    return s;
  }
}

const PARSER = new Parser();

/** What a double-quoted string's escape stands for, or undefined (leave it to yaml). */
function escape(c: number): string | undefined {
  switch (c) {
    case 92:
      return '\\';
    case 34:
      return '"';
    case 47:
      return '/';
    case 110:
      return '\n';
    case 116:
      return '\t';
    default:
      return undefined;
  }
}
