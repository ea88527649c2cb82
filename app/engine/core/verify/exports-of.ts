import { matchingBracket, stripComments, type Lang } from './source-text.js';

/**
 * The names a source file really exports, read from its text with comments removed (so a
 * commented-out export does not count). `default` stands for a default export
 * (`export default`, `module.exports = …`). `export * from` cannot be read from the file
 * alone: its module specifiers are returned for the caller to follow.
 */
export interface Exports {
  names: Set<string>;
  starFrom: string[];
  /** false for a language whose exports harness does not read: the caller falls back to "declared". */
  known: boolean;
}

const ID = '[A-Za-z_$][\\w$]*';

function all(text: string, re: RegExp): RegExpExecArray[] {
  return [...text.matchAll(re)] as RegExpExecArray[];
}

/** `a, b as c, type d, default as e` → a, c, d, e. */
function listNames(list: string): string[] {
  return list
    .split(',')
    .map((part) => part.trim().replace(/^type\s+/, ''))
    .filter((part) => part !== '')
    .map((part) => {
      const as = /\bas\s+(\S+)$/.exec(part);
      return (as ? as[1]! : part.split(/\s/)[0]!).replace(/^['"]|['"]$/g, '');
    });
}

/** Names bound by `const { a, b: c, ...d } = …` or `const [a, b] = …`. */
function patternNames(pattern: string): string[] {
  return pattern
    .slice(1, -1)
    .split(',')
    .map((part) => part.trim().replace(/^\.\.\./, ''))
    .map((part) => (part.includes(':') ? part.slice(part.indexOf(':') + 1) : part).split('=')[0]!.trim())
    .filter((name) => new RegExp(`^${ID}$`).test(name));
}

/** Keys at the top level of an object literal: `{ a, b: 1, c() {}, async d() {}, 'e': 2 }`. */
function objectKeys(text: string, open: number): string[] {
  const close = matchingBracket(text, open);
  if (close < 0) return [];
  const body = text.slice(open + 1, close);
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if ('{[('.includes(c)) depth++;
    else if ('}])'.includes(c)) depth--;
    else if (c === ',' && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts.map((p) => /^\s*(?:async\s+|get\s+|set\s+|\*\s*)?['"]?([A-Za-z_$][\w$]*)['"]?/.exec(p)?.[1]).filter((k): k is string => k !== undefined);
}

function jsExports(text: string): Exports {
  const t = stripComments(text, 'js', { strings: true });
  // The same text with strings kept, at the same offsets: module specifiers are read from it,
  // but matches are found in `t`, so that code quoted inside a string never counts.
  const withStrings = stripComments(text, 'js');
  const quoted = (at: number) => /^(['"])([^'"\n]*)\1/.exec(withStrings.slice(at))?.[2];
  const names = new Set<string>();
  const add = (...n: string[]) => n.forEach((x) => names.add(x));
  for (const m of all(t, new RegExp(`\\bexport\\s+(?:declare\\s+)?(default\\s+)?(?:async\\s+)?function\\s*\\*?\\s*(${ID})?`, 'g'))) {
    if (m[1]) add('default');
    if (m[2]) add(m[2]);
  }
  for (const m of all(t, new RegExp(`\\bexport\\s+(?:declare\\s+)?(default\\s+)?(?:abstract\\s+)?class\\s+(${ID})?`, 'g'))) {
    if (m[1]) add('default');
    if (m[2]) add(m[2]);
  }
  for (const m of all(t, new RegExp(`\\bexport\\s+(?:declare\\s+)?(?:const\\s+)?(?:type|interface|enum|namespace|module)\\s+(${ID})`, 'g'))) add(m[1]!);
  for (const m of all(t, /\bexport\s+(?:declare\s+)?(?:const|let|var)\s+/g)) {
    const at = m.index + m[0].length;
    const open = t[at];
    if (open === '{' || open === '[') {
      const close = matchingBracket(t, at);
      if (close > at) add(...patternNames(t.slice(at, close + 1)));
    } else {
      // `export const a = 1, b = 2` exports b too; rare enough that only the first name is read.
      const id = new RegExp(`^${ID}`).exec(t.slice(at));
      if (id) add(id[0]);
    }
  }
  if (/\bexport\s+default\b/.test(t) || /\bexport\s*=/.test(t)) add('default');
  for (const m of all(t, /\bexport\s+(?:type\s+)?\{([^}]*)\}/g)) add(...listNames(m[1]!));
  for (const m of all(t, new RegExp(`\\bexport\\s+\\*\\s+as\\s+(${ID})`, 'g'))) add(m[1]!);
  const starFrom = all(t, /\bexport\s+\*\s+from\s+(?=['"])/g)
    .map((m) => quoted(m.index + m[0].length))
    .filter((spec): spec is string => spec !== undefined);

  // CommonJS.
  for (const m of all(t, /\bmodule\.exports\s*=\s*/g)) {
    add('default');
    const at = m.index + m[0].length;
    if (t[at] === '{') add(...objectKeys(t, at));
    const named = new RegExp(`^(?:async\\s+)?(?:function\\s*\\*?|class)\\s+(${ID})|^(${ID})\\s*[;\\n]`).exec(t.slice(at));
    if (named) add((named[1] ?? named[2])!);
  }
  for (const m of all(t, new RegExp(`\\b(?:module\\.)?exports\\.(${ID})\\s*=`, 'g'))) add(m[1]!);
  for (const m of all(t, /\bObject\.defineProperty\(\s*(?:module\.)?exports\s*,\s*(?=['"])/g)) {
    const name = quoted(m.index + m[0].length);
    if (name !== undefined) add(name);
  }
  return { names, starFrom, known: true };
}

/** Python has no export keyword: a top-level def, class, assignment or import is importable. */
function pyExports(text: string): Exports {
  // Strings blanked, so that lines inside a docstring never read as definitions.
  const t = stripComments(text, 'py', { strings: true });
  const names = new Set<string>();
  for (const m of all(t, /^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)/gm)) names.add(m[1]!);
  for (const m of all(t, /^([A-Za-z_]\w*)\s*(?::[^=\n]+)?=(?!=)/gm)) names.add(m[1]!);
  for (const m of all(t, /^from\s+\S+\s+import\s+(?:\(([^)]*)\)|([^\n]+))/gm)) {
    for (const name of listNames((m[1] ?? m[2]!).replace(/\\\n/g, ' '))) names.add(name);
  }
  const list = /^__all__\s*=\s*[[(]([^\])]*)[\])]/m.exec(stripComments(text, 'py'));
  if (list) for (const q of all(list[1]!, /['"]([A-Za-z_]\w*)['"]/g)) names.add(q[1]!);
  return { names, starFrom: [], known: true };
}

function goExports(text: string): Exports {
  const t = stripComments(text, 'go', { strings: true });
  const names = new Set<string>();
  for (const m of all(t, /^func\s+(?:\([^)]*\)\s*)?([A-Z]\w*)/gm)) names.add(m[1]!);
  for (const m of all(t, /^(?:type|var|const)\s+([A-Z]\w*)/gm)) names.add(m[1]!);
  // Grouped declarations: `const (\n\tA = 1\n)`.
  for (const m of all(t, /^(?:type|var|const)\s*\(/gm)) {
    const open = m.index + m[0].length - 1;
    const group = t.slice(open + 1, Math.max(open + 1, matchingBracket(t, open)));
    for (const d of all(group, /^\s*([A-Z]\w*)/gm)) names.add(d[1]!);
  }
  return { names, starFrom: [], known: true };
}

function rustExports(text: string): Exports {
  const t = stripComments(text, 'rust', { strings: true });
  const names = new Set<string>();
  const re = /\bpub(?:\([^)]*\))?\s+(?:async\s+)?(?:unsafe\s+)?(?:fn|struct|enum|trait|type|const|static|mod|union)\s+(\w+)/g;
  for (const m of all(t, re)) names.add(m[1]!);
  for (const m of all(t, /\bpub\s+use\s+[^;]*?(\w+)\s*;/g)) names.add(m[1]!);
  return { names, starFrom: [], known: true };
}

export function exportsOf(text: string, lang: Lang): Exports {
  if (lang === 'js') return jsExports(text);
  if (lang === 'py') return pyExports(text);
  if (lang === 'go') return goExports(text);
  if (lang === 'rust') return rustExports(text);
  return { names: new Set(), starFrom: [], known: false };
}

/** For a language whose exports are not read: is the name at least declared as a word outside comments? */
export function declares(text: string, lang: Lang, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w$])${escaped}($|[^\\w$])`).test(stripComments(text, lang));
}
