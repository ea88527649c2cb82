import { hasMagic } from '../../core/graph/glob.js';

/**
 * The keys that bring a plan's files and the files knowledge names together, so that a plan is
 * compared exactly with the few entries that could name one of its files rather than with
 * every entry that names any file. A file a piece of knowledge names is filed under its most
 * telling key; a plan's glob is looked up under every key a file it could match may be filed
 * under:
 *
 * - a literal file (`src/db/pool.ts`, `package.json`) under its name, which only a glob
 *   ending in that same name can match; and, for a plan glob whose last part is a pattern
 *   (`src/db/*.ts`), under its extension and its top directory;
 * - a glob (`src/db/**`, `*.sql`) under its extension when its last part has one, else under
 *   its top directory; a glob with neither (`**`) names no file in particular and is filed
 *   under nothing;
 * - a path without an extension may be a directory (`src/db`): it is a glob over what is
 *   under it too.
 */

interface Parts {
  name: string | undefined;
  ext: string | undefined;
  top: string | undefined;
}

function parts(path: string): Parts {
  const segments = path.split('/');
  const last = segments.at(-1)!;
  const ext = /\.([A-Za-z0-9]+)$/.exec(last)?.[1]?.toLowerCase();
  const first = segments[0]!;
  return {
    name: last !== '' && !hasMagic(last) ? last : undefined,
    ext: ext !== undefined && !hasMagic(ext) ? ext : undefined,
    top: segments.length > 1 && first !== '' && !hasMagic(first) ? first : undefined,
  };
}

/** The keys a file named by a piece of knowledge is filed under. */
export function namedFileKeys(path: string): string[] {
  const { name, ext, top } = parts(path);
  const keys: string[] = [];
  if (name !== undefined) {
    keys.push(`name:${name}`);
    if (ext !== undefined) keys.push(`file-ext:${ext}`);
    if (top !== undefined) keys.push(`file-top:${top}`);
    if (ext === undefined && top !== undefined) keys.push(`glob-top:${top}`);
  } else if (ext !== undefined) keys.push(`glob-ext:${ext}`);
  else if (top !== undefined) keys.push(`glob-top:${top}`);
  return keys;
}

/** The keys to look a plan's glob up under: where any file it could match may be filed. */
export function planGlobKeys(glob: string): string[] {
  const { name, ext, top } = parts(glob);
  const keys: string[] = [];
  if (name !== undefined) keys.push(`name:${name}`);
  else {
    if (ext !== undefined) keys.push(`file-ext:${ext}`);
    if (top !== undefined) keys.push(`file-top:${top}`);
  }
  if (ext !== undefined) keys.push(`glob-ext:${ext}`);
  if (top !== undefined) keys.push(`glob-top:${top}`);
  return keys;
}
