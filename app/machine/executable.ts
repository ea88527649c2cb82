import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** Can `path` be run: a file with the execute permission for this process. */
function runnable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'ENOTDIR') return false;
    throw e;
  }
}

/**
 * Where a program would be found when spawned by name (`claude`) or path (`./bin/agent`,
 * relative to `cwd`): the first runnable file of that name on PATH. Undefined when there is
 * none, which a spawn would answer with ENOENT after the work had been set up for it.
 */
export function findExecutable(program: string, pathEnv: string | undefined, cwd: string): string | undefined {
  if (program.includes('/')) {
    const path = isAbsolute(program) ? program : resolve(cwd, program);
    return runnable(path) ? path : undefined;
  }
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (dir === '') continue;
    const path = join(dir, program);
    if (runnable(path)) return path;
  }
  return undefined;
}
