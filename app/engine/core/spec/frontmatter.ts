import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { formatBytes, MAX_FRONTMATTER_BYTES } from './limits.js';
import { problem, type Problem } from './problem.js';
import { parseSimpleYaml, type KeyPath } from './yaml-fast.js';
import { MAX_YAML_DEPTH, yamlTooDeep } from './yaml-depth.js';

export type { KeyPath } from './yaml-fast.js';

/** Where each key and list item of a frontmatter block starts, so messages can name the line. */
export class LineMap {
  // Lines are looked up only to report a problem, which most plans never have: they are
  // kept as given and indexed on the first lookup. (Joining every key path into a map
  // key up front was a tenth of the time of loading a large spec.)
  #lines: Map<string, number> | undefined;
  #pending: [KeyPath, number][] | undefined;
  #fill: ((sink: LineMap) => void) | undefined;

  constructor(readonly firstLine: number) {}

  /**
   * A map whose lines are recorded only when first asked for, by `fill` (which calls
   * `set`): a spec of thousands of plans asks for the lines of almost none, and recording
   * every key path of every plan up front was most of the garbage loading one made.
   */
  static deferred(firstLine: number, fill: (sink: LineMap) => void): LineMap {
    const map = new LineMap(firstLine);
    map.#fill = fill;
    return map;
  }

  set(path: KeyPath, line: number): void {
    if (this.#fill) this.#index();
    if (this.#lines) this.#lines.set(path.join('\u0000'), line);
    else (this.#pending ??= []).push([path, line]);
  }

  #index(): Map<string, number> {
    if (!this.#lines) {
      this.#lines = new Map();
      for (const [path, line] of this.#pending ?? []) this.#lines.set(path.join('\u0000'), line);
      this.#pending = undefined;
    }
    if (this.#fill) {
      // The map exists first, so that what fill records goes straight into it (a pending
      // entry per list item was most of the garbage of a plan with thousands of them).
      const fill = this.#fill;
      this.#fill = undefined;
      fill(this);
    }
    return this.#lines;
  }

  /** The line of the key at `path`, or of its nearest ancestor that exists. */
  lineOf(path: KeyPath): number {
    const lines = this.#index();
    for (let n = path.length; n > 0; n--) {
      const line = lines.get(path.slice(0, n).join('\u0000'));
      if (line !== undefined) return line;
    }
    return this.firstLine;
  }

  /** Copy the lines recorded under `from` in `source` to `to` in this map. */
  copy(source: LineMap, from: KeyPath, to: KeyPath): void {
    const prefix = from.join('\u0000');
    const target = to.join('\u0000');
    const lines = this.#index();
    for (const [key, line] of source.#index()) {
      if (key === prefix) lines.set(target, line);
      else if (key.startsWith(`${prefix}\u0000`)) lines.set(target + key.slice(prefix.length), line);
    }
  }

  has(path: KeyPath): boolean {
    return this.#index().has(path.join('\u0000'));
  }
}

export interface Frontmatter {
  data: Record<string, unknown>;
  lines: LineMap;
  body: string;
  /** The file line the body starts on. */
  bodyLine: number;
}

export type FrontmatterResult = { ok: true; frontmatter: Frontmatter } | { ok: false; problems: Problem[] };

const OPENING = /^---[ \t]*$/;
/** "---js", "---toml" and the like: a fence that names another language. */
const OPENING_WITH_LANGUAGE = /^---([^-\s][^\s]{0,40})?[ \t]*$/;

/**
 * The closing fence after `from`: the first "\n---" or "\n..." followed by spaces or tabs
 * to the end of its line or of the text (as /\n(---|\.\.\.)[ \t]*(\n|$)/ finds it, without
 * cutting the text from `from` on). `index` is from `from`; `length` runs to the body.
 */
export function findClosing(text: string, from: number): { index: number; length: number } | undefined {
  for (let at = text.indexOf('\n', from); at !== -1; at = text.indexOf('\n', at + 1)) {
    const c = text.charCodeAt(at + 1);
    if ((c !== 45 /* - */ && c !== 46) /* . */ || text.charCodeAt(at + 2) !== c || text.charCodeAt(at + 3) !== c) continue;
    let k = at + 4;
    while (k < text.length && (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9)) k++;
    if (k === text.length) return { index: at - from, length: k - at };
    if (text.charCodeAt(k) === 10) return { index: at - from, length: k + 1 - at };
  }
  return undefined;
}

/**
 * Split a Markdown file into YAML frontmatter and body, keeping the line of every key.
 * `required: false` lets a document without frontmatter through with empty data;
 * `fast: false` skips the fast path and always parses with yaml (tests compare the two).
 */
export function parseFrontmatter(file: string, text: string, required = true, { fast = true } = {}): FrontmatterResult {
  const firstLineEnd = text.indexOf('\n');
  const firstLine = firstLineEnd === -1 ? text : text.slice(0, firstLineEnd);
  if (!OPENING.test(firstLine)) return withoutOpening(file, text, firstLine, required);
  const closing = findClosing(text, firstLineEnd === -1 ? text.length : firstLineEnd);
  if (!closing) {
    return {
      ok: false,
      problems: [problem(file, 1, 'frontmatter-unclosed', 'frontmatter opened on line 1 is never closed: add a line "---" after the last key')],
    };
  }

  // The frontmatter is exactly the text between the opening line and the closing one found
  // above. (gray-matter was used here once: it picks a parser from the opening line, so
  // "---js" ran the frontmatter through eval and "---toml" threw; and it closed at any
  // line merely starting with "---".) `raw` starts with the newline that ends the opening
  // line, so line N of it is line N of the file.
  const start = firstLineEnd;
  const raw = text.slice(start, start + closing.index);
  const content = text.slice(start + closing.index + closing.length);

  const refused = tooLargeOrDeep(file, raw);
  if (refused) return { ok: false, problems: [refused] };
  return parseWithinStack(file, raw, content, fast);
}

/** A file whose first line is not "---": a fence naming another language, or no frontmatter (refused only when `required`). */
function withoutOpening(file: string, text: string, firstLine: string, required: boolean): FrontmatterResult {
  const language = OPENING_WITH_LANGUAGE.exec(firstLine)?.[1];
  if (language !== undefined) {
    // Tools built on gray-matter pick a parser from this word, and for "js" or "coffee" that
    // parser is eval: a file that reads one way here must not run code in another tool.
    return {
      ok: false,
      problems: [
        problem(
          file,
          1,
          'frontmatter-language',
          `the frontmatter fence names a language ("---${language.slice(0, 20)}"); harness reads YAML only: make the first line exactly "---"`,
        ),
      ],
    };
  }
  if (!required) return { ok: true, frontmatter: { data: {}, lines: new LineMap(1), body: text, bodyLine: 1 } };
  return {
    ok: false,
    problems: [
      problem(file, 1, 'frontmatter-missing', 'no YAML frontmatter: start the file with a line "---", the keys, and a closing "---" (see templates/)'),
    ],
  };
}

/** The problem with frontmatter too large or nested too deep to parse, if it is. */
function tooLargeOrDeep(file: string, raw: string): Problem | undefined {
  if (Buffer.byteLength(raw, 'utf8') > MAX_FRONTMATTER_BYTES) {
    return problem(
      file,
      1,
      'file-too-large',
      `frontmatter is ${formatBytes(Buffer.byteLength(raw, 'utf8'))}, over the ${formatBytes(MAX_FRONTMATTER_BYTES)} limit; move prose into the body`,
    );
  }
  const deep = yamlTooDeep(raw);
  if (deep) {
    return problem(
      file,
      deep.line,
      'too-deep',
      `YAML nesting deeper than ${MAX_YAML_DEPTH} levels; frontmatter is a few flat keys and short lists, so flatten this value`,
    );
  }
  return undefined;
}

/** The frontmatter parsed, a stack exhausted on the way reported as this file's problem. */
function parseWithinStack(file: string, raw: string, content: string, fast: boolean): FrontmatterResult {
  const bodyLine = countLines(raw) + 2;
  try {
    return parseYaml(file, raw, content, bodyLine, fast);
  } catch (e) {
    // The depth check keeps both parsers well inside the stack; should some shape
    // still exhaust it, that is a problem in this file to report, not a crash of harness.
    if (e instanceof RangeError) {
      return { ok: false, problems: [problem(file, 1, 'too-deep', `YAML too deeply nested to read (${e.message}); flatten the frontmatter`)] };
    }
    throw e;
  }
}

function parseYaml(file: string, raw: string, content: string, bodyLine: number, fast: boolean): FrontmatterResult {
  // Plain frontmatter takes the fast path; anything it does not know goes to yaml. The fast
  // path reads the same text again, recording lines, only if a line is ever asked for.
  if (fast) {
    const data = parseSimpleYaml(raw);
    if (data) return { ok: true, frontmatter: { data, lines: LineMap.deferred(1, (sink) => parseSimpleYaml(raw, sink)), body: content, bodyLine } };
  }
  const lines = new LineMap(1);
  const counter = new LineCounter();
  const doc = parseDocument(raw, { lineCounter: counter, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.map((e) => problem(file, counter.linePos(e.pos[0]).line, 'yaml', `malformed YAML: ${cleanYamlMessage(e.message)}`)),
    };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return { ok: false, problems: [problem(file, 1, 'yaml', `malformed YAML: ${cleanYamlMessage(String((e as Error).message))}`)] };
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    return {
      ok: false,
      problems: [problem(file, 2, 'field-type', 'frontmatter must be a mapping of keys to values, like "title: Login endpoint"')],
    };
  }
  if (doc.contents) record(doc.contents as Node, [], lines, counter);
  return { ok: true, frontmatter: { data: data as Record<string, unknown>, lines, body: content, bodyLine } };
}

function countLines(text: string): number {
  let n = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

function record(node: Node, path: (string | number)[], lines: LineMap, counter: LineCounter): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const at = isScalar(pair.key) && pair.key.range ? pair.key.range[0] : (node.range?.[0] ?? 0);
      const child = [...path, key];
      lines.set(child, counter.linePos(at).line);
      if (pair.value && typeof pair.value === 'object') record(pair.value as Node, child, lines, counter);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, index) => {
      const child = [...path, index];
      const at = (item as Node | null)?.range?.[0] ?? node.range?.[0] ?? 0;
      lines.set(child, counter.linePos(at).line);
      if (item && typeof item === 'object') record(item as Node, child, lines, counter);
    });
  }
}

function cleanYamlMessage(message: string): string {
  const first = message.split('\n')[0] ?? message;
  return first.replace(/ at line \d+, column \d+:?$/, '').replace(/:$/, '');
}
