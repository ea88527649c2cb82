import type { VerifyPorts } from './ports.js';

/**
 * Repository paths and module specifiers, as text: the engine has no node:path. Paths are
 * relative to the checkout root with forward slashes.
 */

/** Resolve `.` and `..`; undefined when the path climbs out of the root. */
export function normalizePath(path: string): string | undefined {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(part);
  }
  return out.join('/');
}

export function dirnameOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.vue', '.svelte', '.py', '.json'];
const EXTENSION = /\.(?:[cm]?[jt]sx?|vue|svelte|py|json)$/;

/** A path without its source extension: `src/a.ts` and `src/a.js` (NodeNext imports) are the same module. */
export function moduleKey(path: string): string {
  return path.replace(EXTENSION, '').replace(/\/(?:index|__init__)$/, '');
}

/** The files a relative module path may name, in the order resolvers try them. */
function candidates(base: string): string[] {
  const stem = base.replace(/\.(?:[cm]?js|jsx)$/, '');
  return [base, ...SOURCE_EXTENSIONS.map((e) => stem + e), ...SOURCE_EXTENSIONS.map((e) => `${base}/index${e}`), `${base}/__init__.py`];
}

/** The repository file a relative specifier in `fromFile` names, if it exists. */
export async function resolveModule(fromFile: string, specifier: string, ports: VerifyPorts): Promise<string | undefined> {
  if (!specifier.startsWith('.')) return undefined;
  const base = normalizePath(`${dirnameOf(fromFile)}/${specifier}`);
  if (base === undefined) return undefined;
  for (const c of candidates(base)) if ((await ports.exists(c)) === 'file') return c;
  return undefined;
}

/** The first of `path` and its module variants (extension added, index file) that exists. */
export async function existingModule(path: string, ports: VerifyPorts): Promise<string | undefined> {
  const base = normalizePath(path);
  if (base === undefined) return undefined;
  if ((await ports.exists(base)) !== undefined) return base;
  for (const c of candidates(base).slice(1)) if ((await ports.exists(c)) === 'file') return c;
  return undefined;
}

/** Module specifiers a file imports: ES import/export-from, dynamic import, require, Python imports. */
export function importSpecifiers(text: string): string[] {
  const out = new Set<string>();
  const res = [/\b(?:import|export)\s+(?:type\s+)?(?:[\w$*{}\s,]+?\s+from\s+)?(['"])([^'"\n]+)\1/g, /\b(?:import|require)\s*\(\s*(['"])([^'"\n]+)\1\s*\)/g];
  for (const re of res) for (const m of text.matchAll(re)) out.add(m[2]!);
  // Python: `from .models import User`, `from app.models import User`, `import app.models`.
  for (const m of text.matchAll(/^\s*from\s+(\.*[\w.]*)\s+import\b|^\s*import\s+([\w.]+)/gm)) {
    const spec = m[1] ?? m[2]!;
    const dots = /^\.*/.exec(spec)![0].length;
    const rest = spec.slice(dots).replace(/\./g, '/');
    out.add(dots === 0 ? rest : `${dots === 1 ? './' : '../'.repeat(dots - 1)}${rest}`);
  }
  return [...out];
}

/** Is this `to` of a key link a repository path (rather than a route, symbol or table)? */
export function looksLikeRepoPath(to: string): boolean {
  if (/\s|:\/\/|^\/|^[@~]/.test(to)) return false;
  if (isImageReference(to)) return false;
  return to.includes('/') || EXTENSION.test(to) || /\.(?:go|rs|rb|java|kt|swift|c|h|cpp|css|scss|html|md|sql|ya?ml|toml|sh)$/.test(to);
}

/**
 * A container image (`postgres:16-alpine`, `ghcr.io/acme/api:1.4`, `nginx@sha256:…`): a key
 * link to one names what a compose file or workflow runs, not a file in the repository.
 */
export function isImageReference(to: string): boolean {
  if (/@sha256:[0-9a-f]{12,}$/i.test(to)) return true;
  // A tag after the last slash: files do not have colons in their names.
  if (/^[\w.-]+(?::\d+)?(?:\/[\w.-]+)*:[\w][\w.-]{0,127}$/.test(to) && !/:\d+\//.test(to.replace(/^[^/]*\//, ''))) return true;
  // A registry host first: ghcr.io/…, docker.io/…, registry.example.com:5000/….
  return /^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?::\d+)?\/[\w.-]+(?:\/[\w.-]+)*$/.test(to) && !/\.[a-z0-9]+$/i.test(to.slice(to.lastIndexOf('/')));
}
