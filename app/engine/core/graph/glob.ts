/**
 * Do two globs name a common path? Two plans conflict when some file could match both
 * of their `files_modified` globs. This builds a small automaton for each glob and
 * searches their product for a path both accept, so `src/**` and `src/a/*.ts`
 * overlap, `src/*.ts` and `src/*.css` do not, and `src/{a,b}.ts` and `src/b.ts` do.
 *
 * Semantics follow picomatch (with PICOMATCH_OPTIONS) for the common syntax: `*` and `?`
 * stay within a path segment, `**` as a whole segment spans any number of segments
 * (zero included), `[...]`/`[!...]` are classes, `{a,b}` alternatives. Extglobs are
 * treated as `*`, and where picomatch is irregular (a segment that starts with `**`,
 * empty segments a brace leaves) the wider reading is taken: never a missed conflict.
 * test/properties.test.ts checks this against picomatch.
 */

type CharSet =
  | { kind: 'lit'; ch: string }
  | { kind: 'any' } // any character but '/'
  | { kind: 'all' } // any character
  | { kind: 'class'; negated: boolean; ranges: [number, number][] };

interface State {
  eps: number[];
  edges: { set: CharSet; to: number }[];
}

interface Automaton {
  states: State[];
  start: number;
  accept: number;
  /** closures[s]: the states reachable from s by epsilon moves (s included), computed once. */
  closures: number[][];
}

const MAX_BRACE_EXPANSION = 256;

/**
 * The picomatch options that read a glob as globsOverlap does: `*` and `**` match dot
 * files, and `[!a]` means "not a" (with picomatch's defaults it means "! or a", so a
 * file globsOverlap counts as written by a plan could be flagged as outside it).
 * Match files against files_modified with these.
 */
export const PICOMATCH_OPTIONS = Object.freeze({ dot: true, posix: true });

export function hasMagic(glob: string): boolean {
  return /[*?[\]{}()!+@]/.test(glob);
}

/** The literal start of a glob, up to its first special character. */
export function literalPrefix(glob: string): string {
  const m = /[*?[\]{}()!+@\\]/.exec(glob);
  return m ? glob.slice(0, m.index) : glob;
}

/** Expand `{a,b}` and `{1..3}` alternatives (bounded). */
export function expandBraces(glob: string): string[] {
  const open = findBrace(glob);
  if (!open) return [glob];
  const { start, end, parts } = open;
  const out: string[] = [];
  for (const part of parts) {
    for (const rest of expandBraces(glob.slice(0, start) + part + glob.slice(end + 1))) {
      out.push(rest);
      if (out.length >= MAX_BRACE_EXPANSION) return out;
    }
  }
  return out;
}

function findBrace(glob: string): { start: number; end: number; parts: string[] } | undefined {
  for (let i = 0; i < glob.length; i++) {
    if (glob[i] === '\\') {
      i++;
      continue;
    }
    if (glob[i] !== '{') continue;
    let depth = 0;
    const commas: number[] = [];
    for (let j = i; j < glob.length; j++) {
      const c = glob[j];
      if (c === '\\') {
        j++;
        continue;
      }
      if (c === '{') depth++;
      else if (c === '}') {
        depth--;
        if (depth === 0) {
          const inner = glob.slice(i + 1, j);
          if (commas.length > 0) {
            const parts: string[] = [];
            let from = i + 1;
            for (const c2 of commas) {
              parts.push(glob.slice(from, c2));
              from = c2 + 1;
            }
            parts.push(glob.slice(from, j));
            return { start: i, end: j, parts };
          }
          const range = /^(-?\d+)\.\.(-?\d+)$/.exec(inner);
          if (range) {
            const a = Number(range[1]);
            const b = Number(range[2]);
            const step = a <= b ? 1 : -1;
            const parts: string[] = [];
            for (let k = a; parts.length < MAX_BRACE_EXPANSION; k += step) {
              parts.push(String(k));
              if (k === b) break;
            }
            return { start: i, end: j, parts };
          }
          break;
        }
      } else if (c === ',' && depth === 1) commas.push(j);
    }
  }
  return undefined;
}

function compile(glob: string): Automaton {
  const states: State[] = [];
  const add = (): number => states.push({ eps: [], edges: [] }) - 1;
  const start = add();
  let cur = start;
  const char = (set: CharSet) => {
    const next = add();
    states[cur]!.edges.push({ set, to: next });
    cur = next;
  };
  // cur --set--> cur: zero or more.
  const loop = (set: CharSet) => states[cur]!.edges.push({ set, to: cur });

  // "a//b" is "a/b" and a trailing "/" names the same path as without it ("src/" is
  // "src"), as for paths (normalizeRepoPath); so what a brace can leave, "a/**/" from
  // "a/**/{b,}" or "a//**" from "a/{,b}/**", is "a/**". A segment of three or more
  // stars is read as "**": picomatch lets it match nothing at all ("a/**/***" matches
  // "a"), which one star cannot; the wider reading never misses a conflict.
  const segments = glob
    .replace(/\/{2,}/g, '/')
    .replace(/\/+$/, '')
    .split('/')
    .map((seg) => (/^\*{3,}$/.test(seg) ? '**' : seg))
    .filter((seg, i, all) => !(seg === '**' && all[i - 1] === '**'));
  const trailing = segments.length > 1 && segments[segments.length - 1] === '**';
  if (trailing) segments.pop();
  segments.forEach((segment, s) => {
    const last = s === segments.length - 1;
    if (segment === '**') {
      if (segments.length === 1) {
        loop({ kind: 'all' });
        return;
      }
      // "**/" spans zero or more whole segments: (anything "/")?. The loop sits on a state
      // of its own: were it on `cur`, which also steps to `skip` without a "/", "**/a"
      // would match "aa".
      const skip = add();
      states[cur]!.eps.push(skip);
      const inner = add();
      states[cur]!.eps.push(inner);
      states[inner]!.edges.push({ set: { kind: 'all' }, to: inner });
      states[inner]!.edges.push({ set: { kind: 'lit', ch: '/' }, to: skip });
      cur = skip;
      return;
    }
    compileSegment(segment, char, loop);
    if (!last) char({ kind: 'lit', ch: '/' });
  });
  if (trailing) {
    // "a/**": a itself, or anything below it: ("/" anything)?
    const after = add();
    states[cur]!.eps.push(after);
    const below = add();
    states[cur]!.edges.push({ set: { kind: 'lit', ch: '/' }, to: below });
    states[below]!.edges.push({ set: { kind: 'all' }, to: below });
    states[below]!.eps.push(after);
    cur = after;
  }
  return { states, start, accept: cur, closures: states.map((_, s) => closure(states, s)) };
}

function compileSegment(segment: string, char: (s: CharSet) => void, loop: (s: CharSet) => void): void {
  let from = 0;
  if (segment.startsWith('**')) {
    // "**" that starts a segment but is not all of it: picomatch lets it span segments
    // in some spots ("**{a,b}" matches "x/a", "**.ts" at the start matches "a/b.ts") and
    // not in others ("**a"); reading it as spanning everywhere never misses a conflict.
    loop({ kind: 'all' });
    while (segment[from] === '*') from++;
  }
  for (let i = from; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === '\\' && i + 1 < segment.length) {
      char({ kind: 'lit', ch: segment[++i]! });
    } else if (c === '*') {
      while (segment[i + 1] === '*') i++;
      loop({ kind: 'any' });
    } else if (c === '?') {
      char({ kind: 'any' });
    } else if (c === '[') {
      const parsed = parseClass(segment, i);
      if (!parsed) {
        char({ kind: 'lit', ch: c });
        continue;
      }
      char(parsed.set);
      i = parsed.end;
    } else if ('!+@'.includes(c) && segment[i + 1] === '(') {
      const close = segment.indexOf(')', i);
      loop({ kind: 'any' });
      i = close === -1 ? segment.length : close;
    } else if (c === '(' || c === ')' || c === '|') {
      loop({ kind: 'any' });
    } else {
      char({ kind: 'lit', ch: c });
    }
  }
}

function parseClass(segment: string, open: number): { set: CharSet; end: number } | undefined {
  let i = open + 1;
  let negated = false;
  if (segment[i] === '!' || segment[i] === '^') {
    negated = true;
    i++;
  }
  const ranges: [number, number][] = [];
  let first = true;
  for (; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === ']' && !first) return { set: { kind: 'class', negated, ranges }, end: i };
    first = false;
    if (c === '[' && segment[i + 1] === ':') {
      const close = segment.indexOf(':]', i);
      if (close !== -1) {
        ranges.push(...posixClass(segment.slice(i + 2, close)));
        i = close + 1;
        continue;
      }
    }
    let lo = c.codePointAt(0)!;
    if (c === '\\' && i + 1 < segment.length) lo = segment[++i]!.codePointAt(0)!;
    if (segment[i + 1] === '-' && segment[i + 2] !== undefined && segment[i + 2] !== ']') {
      const hi = segment[i + 2]!.codePointAt(0)!;
      ranges.push([Math.min(lo, hi), Math.max(lo, hi)]);
      i += 2;
    } else ranges.push([lo, lo]);
  }
  return undefined;
}

function posixClass(name: string): [number, number][] {
  const r = (a: string, b: string): [number, number] => [a.codePointAt(0)!, b.codePointAt(0)!];
  switch (name) {
    case 'alpha':
      return [r('a', 'z'), r('A', 'Z')];
    case 'digit':
      return [r('0', '9')];
    case 'alnum':
      return [r('a', 'z'), r('A', 'Z'), r('0', '9')];
    case 'upper':
      return [r('A', 'Z')];
    case 'lower':
      return [r('a', 'z')];
    default:
      return [[0x20, 0x7e]];
  }
}

const SLASH = '/'.codePointAt(0)!;

function contains(set: CharSet, cp: number): boolean {
  switch (set.kind) {
    case 'lit':
      return set.ch.codePointAt(0) === cp;
    case 'any':
      return cp !== SLASH;
    case 'all':
      return true;
    case 'class': {
      if (cp === SLASH) return false;
      const inside = set.ranges.some(([lo, hi]) => cp >= lo && cp <= hi);
      return set.negated ? !inside : inside;
    }
  }
}

function intersects(a: CharSet, b: CharSet): boolean {
  if (a.kind === 'lit') return contains(b, a.ch.codePointAt(0)!);
  if (b.kind === 'lit') return contains(a, b.ch.codePointAt(0)!);
  if (a.kind !== 'class' && b.kind !== 'class') return true;
  if (a.kind === 'class' && b.kind === 'class') {
    if (a.negated && b.negated) return true;
    const [pos, other] = a.negated ? [b, a] : [a, b];
    for (const [lo, hi] of pos.ranges) {
      for (let cp = lo; cp <= hi; cp++) if (contains(pos, cp) && contains(other, cp)) return true;
      if (hi - lo > 4096) return true;
    }
    return false;
  }
  const cls = (a.kind === 'class' ? a : b) as Extract<CharSet, { kind: 'class' }>;
  if (cls.negated) return true;
  return cls.ranges.some(([lo, hi]) => lo !== SLASH || hi !== SLASH);
}

function closure(states: State[], seed: number): number[] {
  const seen = new Set([seed]);
  const stack = [seed];
  while (stack.length) {
    const s = stack.pop()!;
    for (const t of states[s]!.eps) {
      if (!seen.has(t)) {
        seen.add(t);
        stack.push(t);
      }
    }
  }
  return [...seen];
}

function automatonOf(glob: string): Automaton[] {
  // Leading "./"s are dropped before braces are expanded, as picomatch does: "././*" is "*",
  // but "{.,}/*" is not (and every path a glob names starts with its literal prefix).
  return expandBraces(normalizeGlob(glob)).map(compile);
}

const cache = new Map<string, Automaton[]>();
function cached(glob: string): Automaton[] {
  let a = cache.get(glob);
  if (!a) {
    if (cache.size > 10_000) cache.clear();
    a = automatonOf(glob);
    cache.set(glob, a);
  }
  return a;
}

/** True when some path matches both globs. */
export function globsOverlap(a: string, b: string): boolean {
  return globInfosOverlap(globInfo(a), globInfo(b));
}

/** What globsOverlap reads of a glob before comparing it: read once for a glob compared many times. */
export interface GlobInfo {
  glob: string;
  /** Has glob syntax (hasMagic). */
  magic: boolean;
  /** The path it names when it has none: normalized, without a trailing "/". */
  path: string;
}

export function globInfo(glob: string): GlobInfo {
  const magic = hasMagic(glob);
  return { glob, magic, path: magic ? '' : normalize(glob) };
}

/** globsOverlap(a.glob, b.glob). */
export function globInfosOverlap(a: GlobInfo, b: GlobInfo): boolean {
  if (!a.magic && !b.magic) return a.path === b.path;
  // A plain path against a glob: run the glob's automata on the path (the same answer as
  // the product below, without building an automaton for every path in the spec).
  if (!a.magic && !a.glob.includes('\\')) return cached(b.glob).some((y) => accepts(y, a.path));
  if (!b.magic && !b.glob.includes('\\')) return cached(a.glob).some((x) => accepts(x, b.path));
  for (const x of cached(a.glob)) for (const y of cached(b.glob)) if (productNonEmpty(x, y)) return true;
  return false;
}

// Scratch state sets for accepts(), kept between calls: a spec compares a glob with
// thousands of paths, and two arrays per character of each was most of that time.
let current = new Int32Array(64);
let following = new Int32Array(64);
let marks = new Int32Array(64);
let generation = 0;

/** Does the automaton accept this path? (By UTF-16 unit, as compile() reads the glob.) */
function accepts(a: Automaton, path: string): boolean {
  const n = a.states.length;
  if (marks.length < n) {
    current = new Int32Array(2 * n);
    following = new Int32Array(2 * n);
    marks = new Int32Array(2 * n);
    generation = 0;
  }
  let cur = current;
  let next = following;
  const start = a.closures[a.start]!;
  let size = start.length;
  for (let i = 0; i < size; i++) cur[i] = start[i]!;
  for (let k = 0; k < path.length; k++) {
    // A fresh mark for each step: the states already added to the next set.
    if (++generation === 0x3fffffff) {
      marks.fill(0);
      generation = 1;
    }
    const cp = path.charCodeAt(k);
    let nextSize = 0;
    for (let i = 0; i < size; i++) {
      for (const e of a.states[cur[i]!]!.edges) {
        if (!contains(e.set, cp)) continue;
        for (const t of a.closures[e.to]!) {
          if (marks[t] !== generation) {
            marks[t] = generation;
            next[nextSize++] = t;
          }
        }
      }
    }
    if (nextSize === 0) return false;
    const swap = cur;
    cur = next;
    next = swap;
    size = nextSize;
  }
  for (let i = 0; i < size; i++) if (cur[i] === a.accept) return true;
  return false;
}

function normalize(path: string): string {
  const normal = normalizeGlob(path);
  return normal.endsWith('/') ? normal.replace(/\/+$/, '') : normal;
}

/**
 * A glob as globsOverlap reads it: without leading "./"s and with "//" as "/", as
 * normalizeRepoPath writes paths. Every path the glob names starts with its literalPrefix.
 */
export function normalizeGlob(glob: string): string {
  // Most globs have neither: they are returned as they are, without two regex passes.
  if (!glob.startsWith('./') && !glob.includes('//')) return glob;
  return glob.replace(/^(\.\/)+/, '').replace(/\/{2,}/g, '/');
}

function productNonEmpty(x: Automaton, y: Automaton): boolean {
  // Breadth-first over pairs of states (i, j), as i * width + j; epsilon closures are precomputed.
  const width = y.states.length;
  const seen = new Uint8Array(x.states.length * width);
  const queue: number[] = [];
  const visit = (i0: number, j0: number) => {
    for (const i of x.closures[i0]!) {
      for (const j of y.closures[j0]!) {
        const key = i * width + j;
        if (!seen[key]) {
          seen[key] = 1;
          queue.push(key);
        }
      }
    }
  };
  visit(x.start, y.start);
  for (let head = 0; head < queue.length; head++) {
    const key = queue[head]!;
    const i = Math.floor(key / width);
    const j = key - i * width;
    if (i === x.accept && j === y.accept) return true;
    for (const e of x.states[i]!.edges) {
      for (const f of y.states[j]!.edges) {
        if (!seen[e.to * width + f.to] && intersects(e.set, f.set)) visit(e.to, f.to);
      }
    }
  }
  return false;
}
