/**
 * Just enough lexing to judge substance: which parts of a source file are comments (they do
 * not count as lines of work, and `// export function x` exports nothing) and which are
 * string contents (braces inside strings must not confuse brace matching). Not a parser:
 * regular-expression literals and template nesting are read approximately.
 */

export type Lang = 'js' | 'py' | 'go' | 'rust' | 'c' | 'hash' | 'markup' | 'sql' | 'text';

const BY_EXTENSION: Record<string, Lang> = {
  ts: 'js',
  tsx: 'js',
  mts: 'js',
  cts: 'js',
  js: 'js',
  jsx: 'js',
  mjs: 'js',
  cjs: 'js',
  vue: 'js',
  svelte: 'js',
  py: 'py',
  pyi: 'py',
  go: 'go',
  rs: 'rust',
  c: 'c',
  h: 'c',
  cc: 'c',
  cpp: 'c',
  hpp: 'c',
  java: 'c',
  kt: 'c',
  kts: 'c',
  swift: 'c',
  cs: 'c',
  scala: 'c',
  dart: 'c',
  css: 'c',
  scss: 'c',
  less: 'c',
  php: 'c',
  sh: 'hash',
  bash: 'hash',
  zsh: 'hash',
  rb: 'hash',
  yml: 'hash',
  yaml: 'hash',
  toml: 'hash',
  r: 'hash',
  pl: 'hash',
  dockerfile: 'hash',
  mk: 'hash',
  html: 'markup',
  htm: 'markup',
  xml: 'markup',
  svg: 'markup',
  md: 'markup',
  mdx: 'markup',
  sql: 'sql',
  lua: 'sql',
};

export function languageOf(path: string): Lang {
  const base = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  if (base === 'dockerfile' || base === 'makefile') return 'hash';
  const dot = base.lastIndexOf('.');
  return dot < 0 ? 'text' : (BY_EXTENSION[base.slice(dot + 1)] ?? 'text');
}

interface Syntax {
  line: string[];
  block: [string, string][];
  quotes: string[];
  triple: boolean;
}

const SYNTAX: Record<Lang, Syntax> = {
  js: {
    line: ['//'],
    block: [
      ['/*', '*/'],
      ['<!--', '-->'],
    ],
    quotes: ["'", '"', '`'],
    triple: false,
  },
  go: { line: ['//'], block: [['/*', '*/']], quotes: ["'", '"', '`'], triple: false },
  // Rust lifetimes ('a) would read as open char literals, so only " quotes a string there.
  rust: { line: ['//'], block: [['/*', '*/']], quotes: ['"'], triple: false },
  c: { line: ['//'], block: [['/*', '*/']], quotes: ["'", '"'], triple: false },
  py: { line: ['#'], block: [], quotes: ["'", '"'], triple: true },
  hash: { line: ['#'], block: [], quotes: ["'", '"'], triple: false },
  markup: { line: [], block: [['<!--', '-->']], quotes: [], triple: false },
  sql: { line: ['--'], block: [['/*', '*/']], quotes: ["'", '"'], triple: false },
  text: { line: [], block: [], quotes: [], triple: false },
};

/** Keep newlines so that offsets and line numbers still point into the original. */
function blank(s: string): string {
  return s.replace(/[^\n]/g, ' ');
}

/**
 * The text with comments blanked out (same length, same lines). With `strings`, string
 * contents are blanked too, keeping the quotes, so `return ''` still reads as an empty string.
 */
export function stripComments(text: string, lang: Lang, options: { strings?: boolean } = {}): string {
  const syntax = SYNTAX[lang];
  let out = '';
  let i = 0;
  const at = (token: string) => text.startsWith(token, i);
  while (i < text.length) {
    const line = syntax.line.find(at);
    if (line !== undefined) {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      out += blank(text.slice(i, stop));
      i = stop;
      continue;
    }
    const block = syntax.block.find(([open]) => at(open));
    if (block !== undefined) {
      const end = text.indexOf(block[1], i + block[0].length);
      const stop = end < 0 ? text.length : end + block[1].length;
      out += blank(text.slice(i, stop));
      i = stop;
      continue;
    }
    if (lang === 'js' && text[i] === '/' && startsRegex(out)) {
      const end = regexEnd(text, i);
      if (end > i) {
        out += text.slice(i, end);
        i = end;
        continue;
      }
    }
    const quote = syntax.quotes.find(at);
    if (quote !== undefined) {
      const delim = syntax.triple && text.startsWith(quote.repeat(3), i) ? quote.repeat(3) : quote;
      let j = i + delim.length;
      while (j < text.length && !text.startsWith(delim, j)) {
        // A single-quoted string ends at the line's end even when unterminated.
        if (delim.length === 1 && delim !== '`' && text[j] === '\n') break;
        j += text[j] === '\\' ? 2 : 1;
      }
      const close = text.startsWith(delim, j) ? delim : '';
      const body = text.slice(i + delim.length, j);
      out += delim + (options.strings ? blank(body) : body) + close;
      i = j + close.length;
      continue;
    }
    out += text[i];
    i++;
  }
  return out;
}

/**
 * Is a `/` here the start of a regular expression rather than a division? It is when what
 * comes before cannot end an operand: an operator, an opening bracket, or a keyword.
 */
function startsRegex(before: string): boolean {
  let end = before.length;
  while (end > 0 && /\s/.test(before[end - 1]!)) end--;
  if (end === 0) return true;
  const last = before[end - 1]!;
  if ('(,=:[!&|?{};+-*%<>~^'.includes(last)) return true;
  let start = end;
  while (start > 0 && end - start < 12 && /[\w$]/.test(before[start - 1]!)) start--;
  return /^(?:return|typeof|case|do|else|in|of|void|yield|await)$/.test(before.slice(start, end));
}

/** The end of a regex literal starting at `start` (after its flags), or -1 when the line ends first. */
function regexEnd(text: string, start: number): number {
  let inClass = false;
  for (let j = start + 1; j < text.length; j++) {
    const c = text[j];
    if (c === '\n') return -1;
    if (c === '\\') j++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) {
      let k = j + 1;
      while (k < text.length && /[a-z]/i.test(text[k]!)) k++;
      return k;
    }
  }
  return -1;
}

/** Lines that hold something other than whitespace and comments. */
export function substantiveLines(text: string, lang: Lang): number {
  return stripComments(text, lang)
    .split('\n')
    .filter((l) => l.trim() !== '').length;
}

/** The index of the bracket closing the one at `open`, or -1. The text should have strings blanked. */
export function matchingBracket(text: string, open: number): number {
  const pairs: Record<string, string> = { '{': '}', '(': ')', '[': ']' };
  const closeOf = pairs[text[open]!];
  if (closeOf === undefined) return -1;
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === text[open]) depth++;
    else if (text[i] === closeOf && --depth === 0) return i;
  }
  return -1;
}

export function lineNumber(text: string, offset: number): number {
  let n = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}
