/**
 * Paths and globs in a spec are relative to the repository root. These checks are
 * syntactic: a spec is validated before (and without) a checkout.
 */

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
  if (value.startsWith('.git/') || value === '.git') {
    return { ok: false, reason: 'is inside .git; plans never touch Git\'s own files' };
  }
  return OK;
}

const OK: PathVerdict = { ok: true };

/** "./src/a.ts" and "src//a.ts" name "src/a.ts". */
export function normalizeRepoPath(value: string): string {
  return value.replace(/^(\.\/)+/, '').replace(/\/{2,}/g, '/');
}
