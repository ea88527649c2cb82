import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, statSync, type Dirent } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { MAX_DOCUMENT_BYTES, MAX_PLAN_BYTES } from '../engine/core/spec/limits.js';
import { PLANS_DIR } from '../engine/core/spec/load.js';
import type { SpecFile } from '../engine/core/spec/text.js';
import { HarnessError } from '../engine/core/error.js';

export class SpecDirError extends HarnessError {}

/**
 * Read the files of a spec directory that the engine looks at: SPEC.md, ROADMAP.md and
 * every *PLAN.md under planning/plans/. Each read stops one byte past its limit, so an
 * oversized file costs no more than that.
 *
 * The reads are synchronous on purpose: a spec is thousands of small files, and one
 * syscall each beats scheduling thousands of promises through the thread pool (5,000
 * plans: about 50 ms against 300–500 ms measured with concurrent async reads).
 */
export async function readSpecFiles(dir: string): Promise<SpecFile[]> {
  const info = statOrUndefined(dir);
  if (!info) throw new SpecDirError(`${dir}: no such directory`);
  if (!info.isDirectory()) throw new SpecDirError(`${dir}: not a directory`);

  // Links are never followed, only reported (SpecFile.link): a fork's spec could link a
  // plan to ~/.ssh/id_rsa or planning/plans to /, and a silent skip hides a plan.
  const paths: string[] = [];
  const links: SpecFile[] = [];
  const linkAt = (path: string): boolean => {
    if (!lstatOrUndefined(join(dir, path))?.isSymbolicLink()) return false;
    links.push({ path, bytes: new Uint8Array(), link: readLinkText(join(dir, path)) });
    return true;
  };
  for (const name of ['SPEC.md', 'ROADMAP.md']) {
    if (!linkAt(name) && statOrUndefined(join(dir, name))?.isFile()) paths.push(name);
  }
  let entries: Dirent[] = [];
  if (!linkAt('planning') && !linkAt(PLANS_DIR.replace(/\/$/, ''))) {
    try {
      // Recursive readdir lists a linked folder as a link and does not descend into it.
      entries = readdirSync(join(dir, PLANS_DIR), { recursive: true, withFileTypes: true });
    } catch {
      // No plans directory: loadSpec says so.
    }
  }
  // Each entry's path from its folder's by string, as recursive readdir gives folders under
  // the one it was asked for (path.relative resolved both paths, for every file).
  const plansDir = join(dir, PLANS_DIR);
  const base = plansDir.endsWith(sep) ? plansDir : plansDir + sep;
  const under = (parent: string, name: string): { path: string; full: string } => {
    const folder = parent.endsWith(sep) ? parent : parent + sep;
    if (!folder.startsWith(base) || folder.startsWith(sep, base.length)) {
      const full = join(parent, name);
      return { path: relative(dir, full).split(sep).join('/'), full };
    }
    const inside = folder.slice(base.length) + name;
    return { path: PLANS_DIR + (sep === '/' ? inside : inside.split(sep).join('/')), full: folder + name };
  };
  const plans: { path: string; full: string }[] = [];
  for (const entry of entries) {
    const at = under(entry.parentPath, entry.name);
    if (entry.isSymbolicLink()) {
      links.push({ path: at.path, bytes: new Uint8Array(), link: readLinkText(at.full) });
      continue;
    }
    if (!entry.isFile() || !entry.name.endsWith('PLAN.md')) continue;
    plans.push(at);
  }
  return [
    ...links,
    ...paths.map((path) => readCapped(join(dir, path), path, path.startsWith(PLANS_DIR) ? MAX_PLAN_BYTES : MAX_DOCUMENT_BYTES, true)),
    ...plans.map(({ path, full }) => readCapped(full, path, path.startsWith(PLANS_DIR) ? MAX_PLAN_BYTES : MAX_DOCUMENT_BYTES, true)),
  ];
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function readLinkText(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '(unreadable)';
  }
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** Where files are read before their bytes are copied out: grown as a limit needs, kept between reads. */
let scratch = new Uint8Array(64 * 1024);

/** Read at most `max + 1` bytes of a file, keeping its true size. */
export function readCapped(full: string, path: string, max: number, noFollow = false): SpecFile {
  // O_NOFOLLOW: a file swapped for a link between the listing and the read is refused, not followed.
  const fd = openSync(full, noFollow && constants.O_NOFOLLOW !== undefined ? constants.O_RDONLY | constants.O_NOFOLLOW : 'r');
  try {
    // Read to the end or one byte past the limit, into the scratch buffer; the size is asked
    // of the file system only when the limit is passed (a stat per file, with its dates, was
    // a tenth of reading a large spec).
    const want = max + 1;
    let offset = 0;
    for (;;) {
      if (offset === scratch.length) {
        if (scratch.length >= want) break;
        const larger = new Uint8Array(Math.min(want, 2 * scratch.length));
        larger.set(scratch);
        scratch = larger;
      }
      const read = readSync(fd, scratch, offset, Math.min(scratch.length, want) - offset, offset);
      if (read === 0) break;
      offset += read;
      if (offset === want) break;
    }
    const size = offset === want ? Math.max(fstatSync(fd).size, want) : offset;
    return { path, bytes: scratch.slice(0, offset), size };
  } finally {
    closeSync(fd);
  }
}
