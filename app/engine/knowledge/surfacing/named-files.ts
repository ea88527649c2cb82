/**
 * The project files a piece of knowledge talks about, as paths or globs relative to the
 * project: what surfacing holds against a plan's files_modified and files_read. Knowledge
 * written by people and by reflection names files in prose, so they are picked out of it:
 * anything in backticks that looks like a path or a file name, and bare words with a
 * directory in them (`src/db/pool.ts`). URLs, versions ("20.x") and abbreviations ("e.g.")
 * are not files.
 */

const CODE_SPAN = /`([^`\n]+)`/g;
/** A bare path: at least one directory separator between name characters. */
const BARE_PATH = /(?:^|[\s(["'])((?:\.{0,2}\/)?[A-Za-z0-9_@.*{}\-[\]]+(?:\/[A-Za-z0-9_@.*{}\-[\],]+)+\/?)/g;
/** Prose says "and/or" and "read/write": a bare path counts only with an extension, a glob or a closing slash. */
const BARE_FILE = /(\.[A-Za-z][A-Za-z0-9]{0,7}|[*{[]|\/)$/;
/** A file name: a name with a lettered extension (`vitest.config.ts`, `package.json`, `*.sql`). */
const FILE_NAME = /^[A-Za-z0-9_@*{}\-[\],.]*[A-Za-z0-9_*}\]]\.[A-Za-z][A-Za-z0-9]{0,7}$/;
const PATH_CHARS = /^[A-Za-z0-9_@.*{}\-[\],/]+$/;

/** `${PROJECT_ROOT}/src/x.ts` and `./src/x.ts` are `src/x.ts`; anything else that is no project path is undefined. */
export function projectPath(candidate: string): string | undefined {
  let path = candidate.trim().replace(/[.,;:)]+$/, '');
  if (path.startsWith('${PROJECT_ROOT}/')) path = path.slice('${PROJECT_ROOT}/'.length);
  path = path.replace(/^(?:\.\/)+/, '');
  if (path === '' || path.startsWith('/') || path.startsWith('../') || path.includes('://') || path.includes('//')) return undefined;
  if (!PATH_CHARS.test(path) || !/[A-Za-z]/.test(path)) return undefined;
  const last = path.slice(path.lastIndexOf('/') + 1);
  if (path.includes('/')) return last === '' ? `${path}**` : path;
  if (!FILE_NAME.test(last)) return undefined;
  // "e.g", "i.e", "20.x", "v1.2": one short or numeric part before the dot is no file name.
  const base = last.slice(0, last.lastIndexOf('.'));
  if (base.length < 2 && base !== '*') return undefined;
  if (/^[\d.]+$/.test(base) || /^v\d/.test(base)) return undefined;
  return path;
}

/** The project paths and globs a text names, each once, in order of appearance. */
export function namedFiles(text: string): string[] {
  const found = new Set<string>();
  const add = (candidate: string) => {
    const path = projectPath(candidate);
    if (path !== undefined) found.add(path);
  };
  // Content safety writes this machine's paths as ${PROJECT_ROOT}/…: the rest is the project path.
  const prose = text.replace(/<!--[\s\S]*?-->/g, ' ').replace(/\$\{PROJECT_ROOT\}\//g, '');
  for (const m of prose.matchAll(CODE_SPAN)) for (const part of m[1]!.split(/\s+/)) add(part);
  const outside = prose.replace(CODE_SPAN, ' ').replace(/https?:\/\/\S+/g, ' ');
  for (const m of outside.matchAll(BARE_PATH)) if (BARE_FILE.test(m[1]!.replace(/[.,;:)]+$/, ''))) add(m[1]!);
  return [...found];
}
