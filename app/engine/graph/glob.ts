/**
 * Do two globs name a common path? Two plans conflict when some file could match both
 * of their `files_modified` globs. This builds a small automaton for each glob and
 * searches their product for a path both accept, so `src/**` and `src/a/*.ts`
 * overlap, `src/*.ts` and `src/*.css` do not, and `src/{a,b}.ts` and `src/b.ts` do.
 *
 * Semantics follow picomatch for the common syntax: `*` and `?` stay within a path
 * segment, `**` as a whole segment spans any number of segments (zero included),
 * `[...]`/`[!...]` are classes, `{a,b}` alternatives. Extglobs are treated as `*`
 * (wider, so never a missed conflict).
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
}

const MAX_BRACE_EXPANSION = 256;

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

  const segments = glob
    .replace(/^\.\//, '')
    .split('/')
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
      // "**/" spans zero or more whole segments: (anything "/")?
      const skip = add();
      states[cur]!.eps.push(skip);
      loop({ kind: 'all' });
      const slash = add();
      states[cur]!.edges.push({ set: { kind: 'lit', ch: '/' }, to: slash });
      states[slash]!.eps.push(skip);
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
  return { states, start, accept: cur };
}

function compileSegment(segment: string, char: (s: CharSet) => void, loop: (s: CharSet) => void): void {
  for (let i = 0; i < segment.length; i++) {
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

function closure(a: Automaton, seeds: number[]): number[] {
  const seen = new Set(seeds);
  const stack = [...seeds];
  while (stack.length) {
    const s = stack.pop()!;
    for (const t of a.states[s]!.eps) {
      if (!seen.has(t)) {
        seen.add(t);
        stack.push(t);
      }
    }
  }
  return [...seen];
}

function automatonOf(glob: string): Automaton[] {
  return expandBraces(glob).map(compile);
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
  if (!hasMagic(a) && !hasMagic(b)) return normalize(a) === normalize(b);
  for (const x of cached(a)) for (const y of cached(b)) if (productNonEmpty(x, y)) return true;
  return false;
}

function normalize(path: string): string {
  return path.replace(/^\.\//, '').replace(/\/+$/, '');
}

function productNonEmpty(x: Automaton, y: Automaton): boolean {
  const width = y.states.length;
  const seen = new Set<number>();
  const queue: [number, number][] = [];
  const visit = (xs: number[], ys: number[]) => {
    for (const i of closure(x, xs)) {
      for (const j of closure(y, ys)) {
        const key = i * width + j;
        if (!seen.has(key)) {
          seen.add(key);
          queue.push([i, j]);
        }
      }
    }
  };
  visit([x.start], [y.start]);
  for (let head = 0; head < queue.length; head++) {
    const [i, j] = queue[head]!;
    if (i === x.accept && j === y.accept) return true;
    for (const e of x.states[i]!.edges) {
      for (const f of y.states[j]!.edges) {
        if (intersects(e.set, f.set)) {
          const key = e.to * width + f.to;
          if (!seen.has(key)) visit([e.to], [f.to]);
        }
      }
    }
  }
  return false;
}
