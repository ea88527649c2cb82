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
import type { KeyPath } from './frontmatter.js';

/** Where the parser records the line of each key and list item (a LineMap). */
export interface LineSink {
  set(path: KeyPath, line: number): void;
}

type Path = readonly (string | number)[];

interface Line {
  no: number;
  indent: number;
  text: string;
}

/** Thrown to leave the fast path: the input is outside the subset. */
const BAIL = Symbol('bail');
function bail(): never {
  throw BAIL;
}

// Any control character but "\n", DEL and C1 controls, NEL, the Unicode line separators, BOM.
// eslint-disable-next-line no-control-regex
const UNSUPPORTED = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff]/;
const KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const PAIR = /^[A-Za-z_][A-Za-z0-9_-]*:(?: |$)/;
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
/** Characters that cannot start a plain scalar here (YAML indicators; "-", "?" and ":" to be safe). */
const INDICATOR = new Set('-?:,[]{}#&*!|>\'"%@`'.split(''));
const ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', '/': '/', n: '\n', t: '\t' };

/**
 * Parse `raw` (the frontmatter between the fences; line 1 is the opening fence's line),
 * recording key and item lines into `sink` (without one, no key paths are even built: the
 * lines are read again only when asked for). Returns the data, or undefined to say:
 * parse this with `yaml`.
 */
export function parseSimpleYaml(raw: string, sink?: LineSink): Record<string, unknown> | undefined {
  if (UNSUPPORTED.test(raw)) return undefined;
  const lines: Line[] = [];
  const split = raw.split('\n');
  for (let k = 0; k < split.length; k++) {
    const s = split[k]!;
    let indent = 0;
    while (s.charCodeAt(indent) === 32) indent++;
    let end = s.length;
    while (end > indent && s.charCodeAt(end - 1) === 32) end--;
    const text = s.slice(indent, end);
    if (text === '' || text[0] === '#') continue;
    if (indent === 0 && (text.startsWith('---') || text.startsWith('...') || text[0] === '%')) return undefined;
    lines.push({ no: k + 1, indent, text });
  }
  if (lines.length === 0) return {};
  if (lines[0]!.indent !== 0 || isSeqItem(lines[0]!.text)) return undefined;
  try {
    const parser = new Parser(lines, sink);
    const data = parser.blockMap(0, []);
    return parser.done() ? data : undefined;
  } catch (e) {
    if (e === BAIL) return undefined;
    throw e;
  }
}

function isSeqItem(text: string): boolean {
  return text === '-' || text.startsWith('- ');
}

function checkKey(key: string, into: Record<string, unknown>): void {
  if (!KEY.test(key) || RESERVED_KEY.has(key) || Object.hasOwn(into, key)) bail();
}

class Parser {
  #i = 0;

  constructor(
    readonly lines: readonly Line[],
    readonly sink: LineSink | undefined,
  ) {}

  done(): boolean {
    return this.#i === this.lines.length;
  }

  /** A block mapping whose keys sit at `indent`; `first` is a pair already begun on a "- " line. */
  blockMap(indent: number, path: Path, first?: { text: string; no: number }): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    let pending = first;
    for (;;) {
      let text: string;
      let no: number;
      if (pending) {
        ({ text, no } = pending);
        pending = undefined;
      } else {
        const line = this.lines[this.#i];
        if (!line || line.indent < indent) break;
        if (line.indent > indent) bail();
        if (isSeqItem(line.text)) break; // a sequence beside its key belongs to the parent
        ({ text, no } = line);
        this.#i++;
      }
      const colon = text.indexOf(':');
      if (colon <= 0) bail();
      const key = text.slice(0, colon);
      checkKey(key, map);
      if (colon + 1 < text.length && text[colon + 1] !== ' ') bail();
      let start = colon + 1;
      while (text.charCodeAt(start) === 32) start++;
      const keyPath = this.sink ? [...path, key] : path;
      this.sink?.set(keyPath, no);
      if (start === text.length || text[start] === '#') {
        // The value is on the lines below: a deeper block, a sequence beside the key, or nothing.
        const next = this.lines[this.#i];
        if (next && next.indent > indent) map[key] = this.block(next.indent, keyPath);
        else if (next && next.indent === indent && isSeqItem(next.text)) map[key] = this.blockSeq(indent, keyPath);
        else map[key] = null;
      } else {
        map[key] = inline(text, start, no, keyPath, this.sink);
        this.noDeeperThan(indent);
      }
    }
    return map;
  }

  block(indent: number, path: Path): unknown {
    return isSeqItem(this.lines[this.#i]!.text) ? this.blockSeq(indent, path) : this.blockMap(indent, path);
  }

  blockSeq(indent: number, path: Path): unknown[] {
    const list: unknown[] = [];
    for (;;) {
      const line = this.lines[this.#i];
      if (!line || line.indent !== indent || !isSeqItem(line.text)) {
        if (line && line.indent > indent) bail();
        break;
      }
      this.#i++;
      let start = 1;
      while (line.text.charCodeAt(start) === 32) start++;
      const rest = line.text.slice(start);
      // An empty item, one that continues below, or a nested "- -": leave to yaml.
      if (rest === '' || rest[0] === '#' || isSeqItem(rest)) bail();
      const itemPath = this.sink ? [...path, list.length] : path;
      this.sink?.set(itemPath, line.no);
      if (PAIR.test(rest)) {
        list.push(this.blockMap(indent + start, itemPath, { text: rest, no: line.no }));
      } else {
        list.push(inline(rest, 0, line.no, itemPath, this.sink));
        this.noDeeperThan(indent);
      }
    }
    return list;
  }

  /** After a value that ended its line, a deeper line would continue it: not ours. */
  noDeeperThan(indent: number): void {
    const next = this.lines[this.#i];
    if (next && next.indent > indent) bail();
  }
}

/** A value that starts at `text[start]` and ends its line (a comment may follow). */
function inline(text: string, start: number, no: number, path: Path, sink: LineSink | undefined): unknown {
  const scanner = new Scanner(text, start, no, sink);
  const value = scanner.value(path, false);
  scanner.end();
  return value;
}

class Scanner {
  constructor(
    readonly text: string,
    public pos: number,
    readonly no: number,
    readonly sink: LineSink | undefined,
  ) {}

  spaces(): void {
    while (this.text.charCodeAt(this.pos) === 32) this.pos++;
  }

  /** Only a comment (after a space) may follow the value. */
  end(): void {
    const before = this.pos;
    this.spaces();
    if (this.pos < this.text.length && !(this.text[this.pos] === '#' && this.pos > before)) bail();
  }

  value(path: Path, flow: boolean): unknown {
    switch (this.text[this.pos]) {
      case '"':
        return this.doubleQuoted();
      case "'":
        return this.singleQuoted();
      case '[':
        return this.flowSeq(path);
      case '{':
        return this.flowMap(path);
      default:
        return this.plain(flow);
    }
  }

  // Quoted strings are cut out whole between escapes: building them a character at a time
  // made most of the garbage of loading a large spec.
  doubleQuoted(): string {
    const text = this.text;
    let out = '';
    let from = this.pos + 1;
    for (let j = from; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (c === 34 /* " */) {
        this.pos = j + 1;
        return out + text.slice(from, j);
      }
      if (c === 92 /* \ */) {
        const escaped = ESCAPES[text[j + 1] ?? ''];
        if (escaped === undefined) bail();
        out += text.slice(from, j) + escaped;
        j++;
        from = j + 1;
      }
    }
    return bail();
  }

  singleQuoted(): string {
    const text = this.text;
    let out = '';
    let from = this.pos + 1;
    for (let j = from; j < text.length; j++) {
      if (text.charCodeAt(j) !== 39 /* ' */) continue;
      if (text.charCodeAt(j + 1) === 39) {
        // A doubled quote stands for one: keep the first, skip the second.
        out += text.slice(from, j + 1);
        j++;
        from = j + 1;
        continue;
      }
      this.pos = j + 1;
      return out + text.slice(from, j);
    }
    return bail();
  }

  flowSeq(path: Path): unknown[] {
    const list: unknown[] = [];
    this.pos++;
    this.spaces();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return list;
    }
    for (;;) {
      // A flow sequence here ends on its parent's line, so a scalar item's line is its
      // parent's, which lineOf falls back to: only items that hold keys of their own are
      // recorded (recording every item of a plan listing thousands of unknown dependencies
      // was most of the time it took to report them).
      const c0 = this.text[this.pos];
      const nested = c0 === '[' || c0 === '{';
      const itemPath = this.sink && nested ? [...path, list.length] : path;
      if (nested) this.sink?.set(itemPath, this.no);
      list.push(this.value(itemPath, true));
      this.spaces();
      const c = this.text[this.pos];
      this.pos++;
      if (c === ']') return list;
      if (c !== ',') bail();
      this.spaces();
      if (this.text[this.pos] === ']') bail(); // a trailing comma: leave it to yaml
    }
  }

  flowMap(path: Path): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    this.pos++;
    this.spaces();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return map;
    }
    for (;;) {
      const colon = this.text.indexOf(': ', this.pos);
      if (colon === -1) bail();
      const key = this.text.slice(this.pos, colon);
      checkKey(key, map);
      const keyPath = this.sink ? [...path, key] : path;
      this.sink?.set(keyPath, this.no);
      this.pos = colon + 2;
      this.spaces();
      const v = this.text[this.pos];
      if (v === undefined || v === ',' || v === '}') bail(); // a key without a value
      map[key] = this.value(keyPath, true);
      this.spaces();
      const c = this.text[this.pos];
      this.pos++;
      if (c === '}') return map;
      if (c !== ',') bail();
      this.spaces();
      if (this.text[this.pos] === '}') bail();
    }
  }

  plain(flow: boolean): unknown {
    const text = this.text;
    const from = this.pos;
    const first = text[from];
    if (first === undefined || INDICATOR.has(first)) bail();
    let j = from;
    for (; j < text.length; j++) {
      const c = text[j]!;
      if (c === '#' && text[j - 1] === ' ') break;
      if (c === ':') {
        const after = text[j + 1];
        if (after === undefined || after === ' ' || (flow && (after === ',' || after === ']' || after === '}'))) bail();
      }
      if (flow) {
        if (c === ',' || c === ']' || c === '}') break;
        if (c === '[' || c === '{') bail();
      }
    }
    let end = j;
    while (end > from && text.charCodeAt(end - 1) === 32) end--;
    this.pos = end;
    const s = text.slice(from, end);
    if (NULL.test(s)) return null;
    if (TRUE.test(s)) return true;
    if (FALSE.test(s)) return false;
    if (INT.test(s)) return Number(s);
    if (DATE_TIME.test(s)) return s;
    if (NUMERIC_START.test(s)) bail();
    return s;
  }
}
