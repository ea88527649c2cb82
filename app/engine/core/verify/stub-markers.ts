import { lineNumber, matchingBracket, stripComments, type Lang } from './source-text.js';

/**
 * Signs that a file is a placeholder rather than the work: the markers agents and people
 * leave in unfinished code, and functions whose whole body returns nothing. Each finding
 * names its line so that the agent fixing it knows where to look.
 */

/** Read in the original text: "TODO: implement" usually sits in a comment. */
const MARKERS: [RegExp, string][] = [
  [/\bnot (?:yet )?implemented\b/i, 'not implemented'],
  [/\b(?:TODO|FIXME|XXX)\b[\s:,-]*implement/i, 'TODO: implement'],
  [/\bimplement me\b/i, 'implement me'],
  [/\bNotImplementedError\b/, 'NotImplementedError'],
  [/\b(?:unimplemented|todo)!\s*\(/, 'unimplemented!()'],
];

/** What a stub body returns: nothing, null, or an empty value. */
const EMPTY_VALUE = String.raw`(?:null|undefined|None|nil|\{\s*\}|\[\s*\]|''|""|\x60\x60|<>\s*<\/>|<\s*\/?\s*>)`;
const EMPTY_RETURN = new RegExp(String.raw`^return(?:\s*\(?\s*${EMPTY_VALUE}\s*\)?)?\s*;?$`);
const EMPTY_EXPRESSION = new RegExp(String.raw`^\(?\s*${EMPTY_VALUE}\s*\)?\s*(?:[;,)]|$)`);

const NOT_FUNCTIONS = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'function', 'return', 'else', 'do', 'try']);

function markerFindings(text: string): string[] {
  const out: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const [re, label] of MARKERS) {
      if (re.test(line)) {
        out.push(`line ${i + 1} says ${label}: ${line.trim().slice(0, 80)}`);
        break;
      }
    }
  });
  return out;
}

/** Functions in JavaScript/TypeScript (and braces languages alike) whose body only returns an empty value. */
function emptyBodies(text: string, lang: Lang): string[] {
  const t = stripComments(text, lang, { strings: true });
  const out: string[] = [];
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
      if (kind === 2 && t[end] !== '{') {
        // An arrow with an expression body: `=> null`.
        if (EMPTY_EXPRESSION.test(t.slice(end, end + 40))) out.push(`line ${line}: ${name} only returns ${t.slice(end, end + 20).split(/[;,\n]/)[0]!.trim()}`);
        continue;
      }
      const open = kind === 2 ? end : end - 1;
      const close = matchingBracket(t, open);
      if (close < 0) continue;
      const body = t.slice(open + 1, close).trim();
      // An empty body is fine for a callback or constructor, but not for something the module offers.
      if (body === '' && exported) out.push(`line ${line}: ${name} has an empty body`);
      else if (body !== '' && EMPTY_RETURN.test(body)) out.push(`line ${line}: ${name} only does ${body.replace(/\s+/g, ' ')}`);
    }
  });
  return out;
}

/** Python functions whose body (after a docstring) is only pass, ..., or return None. */
function emptyPythonBodies(text: string): string[] {
  const lines = stripComments(text, 'py').split('\n');
  const out: string[] = [];
  lines.forEach((line, i) => {
    const m = /^([ \t]*)(?:async\s+)?def\s+(\w+)\s*\(.*\)[^:]*:\s*(.*)$/.exec(line);
    if (!m) return;
    const indent = m[1]!.length;
    const body: string[] = m[3]!.trim() !== '' ? [m[3]!.trim()] : [];
    if (body.length === 0) {
      for (let j = i + 1; j < lines.length; j++) {
        const l = lines[j]!;
        if (l.trim() === '') continue;
        if (l.length - l.trimStart().length <= indent) break;
        body.push(l.trim());
      }
    }
    const joined = body.join('\n').replace(/^[rRuUbB]*("""|''')[\s\S]*?\1\s*/, '').replace(/^[rRuUbB]*(["'])[^\n]*?\1\s*(\n|$)/, '');
    const statements = joined.split('\n').map((s) => s.trim()).filter((s) => s !== '');
    if (statements.length > 0 && statements.every((s) => /^(pass|\.\.\.|return(\s+None)?)$/.test(s))) {
      out.push(`line ${i + 1}: ${m[2]} only does ${statements.join('; ')}`);
    }
  });
  return out;
}

export function stubMarkers(text: string, lang: Lang): string[] {
  const found = markerFindings(text);
  if (lang === 'py') found.push(...emptyPythonBodies(text));
  else if (lang === 'js' || lang === 'c') found.push(...emptyBodies(text, lang));
  return found;
}
