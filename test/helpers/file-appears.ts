import { existsSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * Resolves once `path` exists: on the directory's change events (inotify on Linux), not by
 * polling on a timer, so a busy machine only makes it later, never wrong. `paths` all must exist.
 */
export function filesAppear(...paths: string[]): Promise<void> {
  return Promise.all(paths.map(fileAppears)).then(() => undefined);
}

export function fileAppears(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const watcher = watch(dirname(path), (_event, name) => {
      if ((name === null || name === basename(path)) && existsSync(path)) done();
    });
    const done = () => {
      watcher.close();
      resolve();
    };
    watcher.on('error', (e) => {
      watcher.close();
      reject(e);
    });
    // Made before the watch began: nothing more will come.
    if (existsSync(path)) done();
  });
}
