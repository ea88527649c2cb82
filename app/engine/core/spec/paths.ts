/**
 * Paths and globs in a spec are relative to the repository root. These checks are
 * syntactic: a spec is validated before (and without) a checkout.
 */
import picomatch from 'picomatch';
import { expandBraces } from '../graph/glob.js';

export type PathVerdict = { ok: true } | { ok: false; reason: string };

/** A ".." segment: between "/" (or "\\" too, in a path) or the ends. */
const DOTDOT_PATH = /(?:^|[\\/])\.\.(?:[\\/]|$)/;
const DOTDOT_GLOB = /(?:^|\/)\.\.(?:\/|$)/;

export function checkRepoPath(value: string, kind: 'path' | 'glob'): PathVerdict {
  return plainInside(value) ? OK : checkRepoPathFully(value, kind);
}

/** checkRepoPath without the shortcut for plain values (tests compare the two). */
export function checkRepoPathFully(value: string, kind: 'path' | 'glob'): PathVerdict {
  if (value.includes('\0')) return { ok: false, reason: 'contains a NUL byte' };
  if (/^(\/|~|[A-Za-z]:[\\/]|\\\\)/.test(value)) {
    return { ok: false, reason: 'is absolute; write it relative to the repository root' };
  }
  if ((kind === 'path' ? DOTDOT_PATH : DOTDOT_GLOB).test(value)) {
    return { ok: false, reason: 'points outside the repository with ".."; write it relative to the repository root' };
  }
  if (kind === 'glob' && value.startsWith('!')) {
    return { ok: false, reason: 'is a negated glob; list what the plan touches instead' };
  }
  if (kind === 'glob') return checkGlobReach(normalizeRepoPath(value));
  if (
    normalizeRepoPath(value)
      .split(/[\\/]/)
      .some((segment) => segment.toLowerCase() === '.git')
  )
    return INSIDE_GIT;
  return OK;
}

const INSIDE_GIT: PathVerdict = { ok: false, reason: "is inside .git; plans never touch Git's own files" };
const OUTSIDE: PathVerdict = { ok: false, reason: 'points outside the repository with ".."; write it relative to the repository root' };

/**
 * Brace alternatives and extglobs can spell ".." or ".git" without a plain segment saying
 * so: "{..,x}/**", "@(..)/x", ".GIT/config" (a case-insensitive file system reads it as
 * .git), ".gi[t]/hooks/*". Any part between glob punctuation that is ".." or ".git", and
 * any segment of any expansion that matches either name, is refused; a bare "*" or "**"
 * matches them too, but says nothing about them, and the runner never follows one there.
 */
function checkGlobReach(glob: string): PathVerdict {
  for (const token of glob.split(/[\\/{},()|]/)) {
    if (token === '..') return OUTSIDE;
    if (token.toLowerCase() === '.git') return INSIDE_GIT;
  }
  for (const expanded of expandBraces(glob)) {
    for (const segment of expanded.split('/')) {
      if (segment === '*' || segment === '**' || !/[*?[\]()!+@\\]/.test(segment)) continue;
      const matches = segmentMatcher(segment);
      if (matches('..')) return OUTSIDE;
      if (matches('.git')) return INSIDE_GIT;
    }
  }
  return OK;
}

const matchers = new Map<string, (name: string) => boolean>();

function segmentMatcher(segment: string): (name: string) => boolean {
  let matcher = matchers.get(segment);
  if (!matcher) {
    if (matchers.size > 4096) matchers.clear();
    try {
      matcher = picomatch(segment, { dot: true, posix: true, nocase: true });
    } catch {
      // picomatch cannot read it; the glob engine treats it as written and matches nothing odd.
      matcher = () => false;
    }
    matchers.set(segment, matcher);
  }
  return matcher;
}

const OK: PathVerdict = { ok: true };

/**
 * The path or glob most plans list, settled without the checks above: letters, digits,
 * "_", "-", "." and "/" only, in segments that do not start with "." (so none is "..",
 * ".git" in any case, or empty but for a trailing "/"), and "*" or "**" as whole segments.
 * Every check above passes such a value: it is not absolute, has no "..", no "!", no brace
 * or extglob, and its only glob segments are the bare stars that checkGlobReach skips.
 */
function plainInside(value: string): boolean {
  let segmentStart = 0;
  let stars = 0;
  for (let i = 0; i <= value.length; i++) {
    const c = i < value.length ? value.charCodeAt(i) : 47; /* a "/" closes the last segment */
    if (c === 47 /* / */) {
      const length = i - segmentStart;
      // An empty segment ("a//b", a leading "/") goes the long way; "*" and "**" are whole.
      if (length === 0 && i < value.length) return false;
      if (stars > 0 && stars !== length) return false;
      segmentStart = i + 1;
      stars = 0;
      continue;
    }
    if (i === segmentStart && c === 46 /* . */) return false;
    if (c === 42 /* * */) {
      // A star after other characters, or a third one ("***" reads as "**" elsewhere, and picomatch may disagree).
      if (stars !== i - segmentStart || stars === 2) return false;
      stars++;
      continue;
    }
    if (stars > 0) return false; // other characters after a star
    if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 46)) return false;
  }
  return value.length > 0;
}

/** "./src/a.ts" and "src//a.ts" name "src/a.ts". */
export function normalizeRepoPath(value: string): string {
  // Most have neither: returned as they are, without two regex passes.
  if (!value.startsWith('./') && !value.includes('//')) return value;
  return value.replace(/^(\.\/)+/, '').replace(/\/{2,}/g, '/');
}
