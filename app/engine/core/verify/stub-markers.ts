import { lineNumber, matchingBracket, stripComments, type Lang } from './source-text.js';

/**
 * Signs that a file is a placeholder rather than the work. A stub is a body that does
 * nothing where the plan requires behaviour, so the rules are narrow on purpose:
 * - a marker counts where it acts (`throw new Error("not implemented")`, `raise
 *   NotImplementedError`, `todo!()`) or where it is the whole of a short comment (`// TODO:
 *   implement`); a docstring or comment that mentions "not implemented" in a sentence (about
 *   a later phase, say) describes the code, it is not a placeholder;
 * - a body that only returns nothing is a stub only for a function the plan requires (the
 *   check's `exports`, else whatever the module exports), never for a convention whose empty
 *   body is the implementation (VS Code's `deactivate() {}`, `dispose() {}`), a Python
 *   `@abstractmethod` or `@overload`, a `Protocol`'s members, or a `.pyi` declaration.
 * Each finding names its line, so the agent fixing it knows where to look.
 */

export interface StubOptions {
  /** Names the plan requires to do something (an artifact check's `exports`). */
  required?: readonly string[];
  /** The file is a declaration file (`.pyi`, `.d.ts`): bodies are meant to be empty. */
  declarations?: boolean;
}

/** Empty by convention: the host calls them, and doing nothing is what they are for. */
const NO_OP_CONVENTIONS = new Set(['deactivate', 'dispose', 'noop', 'noOp']);

/** Markers that say "this is where the work goes". */
const PHRASES: [RegExp, string][] = [
  [/\bnot (?:yet )?implemented\b/i, 'not implemented'],
  [/\bimplement me\b/i, 'implement me'],
  [/\b(?:TODO|FIXME|XXX)\b[\s:,-]*implement\b/i, 'TODO: implement'],
];
/** Markers that are code: they stop the program where the work should be. */
const ACTING: [RegExp, string][] = [
  [/\bNotImplementedError\b/, 'NotImplementedError'],
  [/\b(?:unimplemented|todo)!\s*\(/, 'unimplemented!()'],
];
/** A comment this short is only the marker, not a sentence about the code. */
const SHORT_COMMENT_WORDS = 6;

interface Finding {
  line: number;
  text: string;
}

/** Where each offset is: in code, a comment, or a string (docstrings are strings). */
function regions(text: string, lang: Lang): (offset: number) => 'code' | 'comment' | 'string' {
  const noComments = stripComments(text, lang);
  const noStrings = stripComments(text, lang, { strings: true });
  return (offset) => {
    if (noComments[offset] !== text[offset]) return 'comment';
    if (noStrings[offset] !== text[offset]) return 'string';
    return 'code';
  };
}

function markerFindings(text: string, lang: Lang, exempt: (line: number) => boolean): Finding[] {
  const where = regions(text, lang);
  const out: Finding[] = [];
  let offset = 0;
  text.split('\n').forEach((line, i) => {
    const start = offset;
    offset += line.length + 1;
    if (exempt(i + 1)) return;
    const label = markerIn(line, start, where);
    if (label !== undefined) out.push({ line: i + 1, text: `line ${i + 1} says ${label}: ${line.trim().slice(0, 80)}` });
  });
  return out;
}

function markerIn(line: string, start: number, where: (offset: number) => 'code' | 'comment' | 'string'): string | undefined {
  for (const [re, label] of ACTING) {
    const m = re.exec(line);
    if (m && where(start + m.index) === 'code') return label;
  }
  for (const [re, label] of PHRASES) {
    const m = re.exec(line);
    if (!m) continue;
    const region = where(start + m.index);
    if (region === 'code') return label;
    if (region === 'string' && /\b(?:throw|raise)\b|Error\s*\(/.test(line)) return label;
    if (region === 'comment' && (label === 'TODO: implement' || isShortComment(line))) return label;
  }
  return undefined;
}

function isShortComment(line: string): boolean {
  const words = line
    .replace(/^\s*(?:\/\/+|#+|\/\*+|\*+|<!--|--)\s*/, '')
    .replace(/\s*(?:\*\/|-->)\s*$/, '')
    .split(/\s+/)
    .filter((w) => /\w/.test(w));
  return words.length <= SHORT_COMMENT_WORDS;
}

/** What a stub body returns: nothing, null, or an empty value. */
const EMPTY_VALUE = String.raw`(?:null|undefined|None|nil|\{\s*\}|\[\s*\]|''|""|\x60\x60|<>\s*<\/>|<\s*\/?\s*>)`;
const EMPTY_RETURN = new RegExp(String.raw`^return(?:\s*\(?\s*${EMPTY_VALUE}\s*\)?)?\s*;?$`);
const EMPTY_EXPRESSION = new RegExp(String.raw`^\(?\s*${EMPTY_VALUE}\s*\)?\s*(?:[;,)]|$)`);

const NOT_FUNCTIONS = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'function', 'return', 'else', 'do', 'try']);

/** Functions in JavaScript/TypeScript (and braces languages alike) whose body only returns an empty value. */
function emptyBodies(text: string, lang: Lang, requires: (name: string, exported: boolean) => boolean): Finding[] {
  const t = stripComments(text, lang, { strings: true });
  const out: Finding[] = [];
  const heads = [
    /(^|[^\w$.])(export\s+(?:default\s+)?)?(?:async\s+)?function\s*\*?\s*([\w$]*)\s*\([^)]*\)\s*(?::\s*[^{;]+)?\{/g,
    /^[ \t]*(?:(?:public|private|protected|static|async|override|readonly)\s+)*()([\w$]+)\s*\([^)]*\)\s*(?::\s*[^{;=]+)?\{/gm,
    /^[ \t]*(export\s+)?(?:const|let|var)\s+([\w$]+)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:\([^)]*\)|[\w$]+)\s*(?::\s*[^=]+)?=>\s*/gm,
  ];
  const seen = new Set<number>();
  heads.forEach((re, kind) => {
    for (const m of t.matchAll(re)) {
      const exported = kind === 0 ? Boolean(m[2]) : kind === 2 ? Boolean(m[1]) : false;
      const name = (kind === 0 ? m[3] : m[2]) || 'anonymous';
      if (NOT_FUNCTIONS.has(name)) continue;
      const end = (m.index ?? 0) + m[0].length;
      const line = lineNumber(t, m.index ?? 0) + (m[0].startsWith('\n') ? 1 : 0);
      if (seen.has(end)) continue;
      seen.add(end);
      if (NO_OP_CONVENTIONS.has(name)) continue;
      if (kind === 2 && t[end] !== '{') {
        // An arrow with an expression body: `=> null`.
        if (EMPTY_EXPRESSION.test(t.slice(end, end + 40)) && requires(name, exported)) {
          out.push({
            line,
            text: `line ${line}: ${name} only returns ${t
              .slice(end, end + 20)
              .split(/[;,\n]/)[0]!
              .trim()}`,
          });
        }
        continue;
      }
      const open = kind === 2 ? end : end - 1;
      const close = matchingBracket(t, open);
      if (close < 0) continue;
      const body = t.slice(open + 1, close).trim();
      if (!requires(name, exported)) continue;
      if (body === '') out.push({ line, text: `line ${line}: ${name} has an empty body` });
      else if (EMPTY_RETURN.test(body)) out.push({ line, text: `line ${line}: ${name} only does ${body.replace(/\s+/g, ' ')}` });
    }
  });
  return out;
}

interface PythonDef {
  name: string;
  line: number;
  /** Lines of the body, 1-based, inclusive. */
  from: number;
  to: number;
  statements: string[];
  /** Declared, not implemented: @abstractmethod, @overload, or a Protocol's member. */
  declared: boolean;
  /** The classes it is defined in, outermost first. */
  owner: string[];
}

/** Python functions with their bodies (after the docstring) and whether they only declare. */
function pythonDefs(text: string): PythonDef[] {
  const lines = stripComments(text, 'py').split('\n');
  const defs: PythonDef[] = [];
  const classes: { indent: number; name: string; protocol: boolean }[] = [];
  lines.forEach((line, i) => {
    const indentOf = (l: string) => l.length - l.trimStart().length;
    if (line.trim() !== '') while (classes.length > 0 && indentOf(line) <= classes[classes.length - 1]!.indent) classes.pop();
    const cls = /^([ \t]*)class\s+(\w+)\s*(?:\(([^)]*)\))?\s*:/.exec(line);
    if (cls) classes.push({ indent: cls[1]!.length, name: cls[2]!, protocol: /\bProtocol\b/.test(cls[3] ?? '') });
    const m = /^([ \t]*)(?:async\s+)?def\s+(\w+)\s*\(.*\)[^:]*:\s*(.*)$/.exec(line);
    if (!m) return;
    const indent = m[1]!.length;
    let decorators = '';
    for (let k = i - 1; k >= 0 && /^\s*@/.test(lines[k]!); k--) decorators += lines[k];
    const body: string[] = m[3]!.trim() !== '' ? [m[3]!.trim()] : [];
    let to = i + 1;
    if (body.length === 0) {
      for (let j = i + 1; j < lines.length; j++) {
        const l = lines[j]!;
        if (l.trim() === '') continue;
        if (indentOf(l) <= indent) break;
        body.push(l.trim());
        to = j + 1;
      }
    }
    const joined = body
      .join('\n')
      .replace(/^[rRuUbB]*("""|''')[\s\S]*?\1\s*/, '')
      .replace(/^[rRuUbB]*(["'])[^\n]*?\1\s*(\n|$)/, '');
    defs.push({
      name: m[2]!,
      line: i + 1,
      from: i + 1,
      to,
      statements: joined
        .split('\n')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
      declared:
        /@(?:\w+\.)*(?:abstractmethod|abstractproperty|abstractclassmethod|abstractstaticmethod|overload)\b/.test(decorators) ||
        classes.some((c) => c.protocol),
      owner: classes.map((c) => c.name),
    });
  });
  return defs;
}

export function stubMarkers(text: string, lang: Lang, options: StubOptions = {}): string[] {
  const required = options.required && options.required.length > 0 ? new Set(options.required) : undefined;
  const requires = (name: string, exported: boolean) => (required ? required.has(name) : exported);
  const found: Finding[] = [];
  if (lang === 'py') {
    const defs = pythonDefs(text);
    // What an abstract method raises or holds is its declaration, not a placeholder.
    const declaredLines = new Set<number>();
    for (const d of defs) if (d.declared) for (let l = d.from; l <= d.to; l++) declaredLines.add(l);
    found.push(...markerFindings(text, lang, (line) => declaredLines.has(line)));
    if (!options.declarations) {
      for (const d of defs) {
        if (d.declared || d.statements.length === 0) continue;
        const wanted = required ? [d.name, ...d.owner].some((n) => required.has(n)) : !d.name.startsWith('_');
        if (!wanted) continue;
        if (d.statements.every((s) => /^(pass|\.\.\.|return(\s+None)?)$/.test(s)))
          found.push({ line: d.line, text: `line ${d.line}: ${d.name} only does ${d.statements.join('; ')}` });
      }
    }
  } else {
    found.push(...markerFindings(text, lang, () => false));
    if ((lang === 'js' || lang === 'c') && !options.declarations) found.push(...emptyBodies(text, lang, requires));
  }
  return found.sort((a, b) => a.line - b.line).map((f) => f.text);
}
