import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readTextIfExists } from '../machine/files.js';

/**
 * What a CLI agent remembers of its session in the plan's logDir (`claude.json`, `codex.json`,
 * …), to continue it after a restart or on another runner. Written whole through a rename, so a
 * kill leaves the old state or the new one; a file that is not JSON reads as no state (a new
 * session starts).
 */
export class SessionStateFile<S extends object> {
  constructor(readonly name: string) {}

  async read(logDir: string): Promise<S> {
    const text = await readTextIfExists(join(logDir, this.name));
    if (text === undefined) return {} as S;
    try {
      return JSON.parse(text) as S;
    } catch (e) {
      if (e instanceof SyntaxError) return {} as S;
      throw e;
    }
  }

  async write(logDir: string, state: S): Promise<void> {
    const path = join(logDir, this.name);
    await writeFile(`${path}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
    await rename(`${path}.tmp`, path);
  }

  /** Seed a logDir with a session to continue: a runner restoring a checkpoint taken on another runner. */
  async seed(logDir: string, state: S): Promise<void> {
    await mkdir(logDir, { recursive: true });
    await this.write(logDir, state);
  }
}
