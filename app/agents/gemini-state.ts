import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Checkpoint } from '../engine/core/protocol/messages.js';
import { readTextIfExists } from '../machine/files.js';

/** What the worker remembers of its Gemini CLI session in logDir, to continue it after a restart or on another runner. */
export interface GeminiState {
  sessionId?: string;
  /** The checkpoint the session stopped at and nobody has answered yet. */
  checkpoint?: Checkpoint;
  default?: string;
  /** The session's files were put back from a checkpoint: the CLI imports them (--session-file) rather than resumes by id. */
  restored?: boolean;
}

const STATE_FILE = 'gemini.json';

export async function readGeminiState(logDir: string): Promise<GeminiState> {
  const text = await readTextIfExists(join(logDir, STATE_FILE));
  if (text === undefined) return {};
  try {
    return JSON.parse(text) as GeminiState;
  } catch (e) {
    if (e instanceof SyntaxError) return {};
    throw e;
  }
}

export async function writeGeminiState(logDir: string, state: GeminiState): Promise<void> {
  const path = join(logDir, STATE_FILE);
  await writeFile(`${path}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  await rename(`${path}.tmp`, path);
}

/** Seed a logDir with a session to continue: a runner restoring a checkpoint taken on another runner. */
export async function seedGeminiState(logDir: string, state: GeminiState): Promise<void> {
  await mkdir(logDir, { recursive: true });
  await writeGeminiState(logDir, state);
}
