import { existsSync, readFileSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * Resolves once `path` exists: on the directory's change events (inotify on Linux), not by
 * polling on a timer, so a busy machine only makes it later, never wrong. `paths` all must exist.
 */
export function filesAppear(...paths: string[]): Promise<void> {
  return Promise.all(paths.map(fileAppears)).then(() => undefined);
}

/** Resolves once `path` exists, its missing parent folders first (each on change events, never a timer). */
export async function pathAppears(path: string): Promise<void> {
  if (existsSync(path)) return;
  if (!existsSync(dirname(path))) await pathAppears(dirname(path));
  await fileAppears(path);
}

/** Resolves once `path` exists: on its folder's change events. */
export function fileAppears(path: string): Promise<void> {
  return whenInFolder(path, () => existsSync(path));
}

/** Resolves once `path` no longer exists (a lock released, say): on the directory's change events, as fileAppears. */
export function fileGone(path: string): Promise<void> {
  return whenInFolder(path, () => !existsSync(path));
}

/** Resolves once `holds()`, looked at when `path`'s folder says `path` changed, and once at the start (it may hold already: nothing more will come). */
function whenInFolder(path: string, holds: () => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const watcher = watch(dirname(path), (_event, name) => {
      if ((name === null || name === basename(path)) && holds()) done();
    });
    const done = () => {
      watcher.close();
      resolve();
    };
    watcher.on('error', (e) => {
      watcher.close();
      reject(e);
    });
    if (holds()) done();
  });
}

/**
 * Resolves once `path` exists and its text satisfies `holds` (a record written in two steps, a
 * pid written after the file was made): on the directory's change events, as fileAppears.
 */
export function fileHolds(path: string, holds: (text: string) => boolean): Promise<string> {
  const read = () => {
    try {
      const text = readFileSync(path, 'utf8');
      return holds(text) ? text : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };
  return new Promise((resolve, reject) => {
    const watcher = watch(dirname(path), (_event, name) => {
      if (name !== null && name !== basename(path)) return;
      const text = read();
      if (text !== undefined) done(text);
    });
    const done = (text: string) => {
      watcher.close();
      resolve(text);
    };
    watcher.on('error', (e) => {
      watcher.close();
      reject(e);
    });
    // Written before the watch began: nothing more will come.
    const text = read();
    if (text !== undefined) done(text);
  });
}
