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
  if (normalizeRepoPath(value).split(/[\\/]/).some((segment) => segment.toLowerCase() === '.git')) return INSIDE_GIT;
  return OK;
}

const INSIDE_GIT: PathVerdict = { ok: false, reason: 'is inside .git; plans never touch Git\'s own files' };
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

/** "./src/a.ts" and "src//a.ts" name "src/a.ts". */
export function normalizeRepoPath(value: string): string {
  return value.replace(/^(\.\/)+/, '').replace(/\/{2,}/g, '/');
}
