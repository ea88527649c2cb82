import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { readTextIfExists } from '../machine/files.js';

/**
 * Lock files a git command killed with its run left in this spec's worktrees and branches
 * (`index.lock`, `<ref>.lock`): git refuses every later command on them ("Another git
 * process seems to be running"). Only runs of the spec touch these, one at a time under
 * its run lock, so whatever lock is there when a run starts is stale.
 */
export async function clearStaleLocks(commonDir: string, worktrees: string, spec: string): Promise<string[]> {
  const cleared: string[] = [];
  const ours = worktrees + sep;
  const admin = join(commonDir, 'worktrees');
  for (const name of await namesIn(admin)) {
    const gitdir = (await readTextIfExists(join(admin, name, 'gitdir')))?.trim();
    if (gitdir === undefined || !gitdir.startsWith(ours)) continue;
    for (const lock of ['index.lock', 'HEAD.lock', 'ORIG_HEAD.lock', 'MERGE_HEAD.lock']) {
      if (existsSync(join(admin, name, lock))) {
        await rm(join(admin, name, lock), { force: true });
        cleared.push(join(admin, name, lock));
      }
    }
  }
  const refs = join(commonDir, 'refs', 'heads', 'harness', spec);
  for (const entry of await namesIn(refs, true)) {
    if (!entry.endsWith('.lock')) continue;
    await rm(join(refs, entry), { force: true });
    cleared.push(join(refs, entry));
  }
  return cleared;
}

/** The names in a directory (with `recursive`, the paths below it); none when it does not exist. */
async function namesIn(dir: string, recursive = false): Promise<string[]> {
  try {
    return await readdir(dir, { recursive });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}
