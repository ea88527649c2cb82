import type { Checkpoint } from '../engine/core/protocol/messages.js';
import { SessionStateFile } from './session-state.js';

/** What the worker remembers of its Gemini CLI session in logDir, to continue it after a restart or on another runner. */
export interface GeminiState {
  sessionId?: string;
  /** The checkpoint the session stopped at and nobody has answered yet. */
  checkpoint?: Checkpoint;
  default?: string;
  /** The session's files were put back from a checkpoint: the CLI imports them (--session-file) rather than resumes by id. */
  restored?: boolean;
}

export const GEMINI_STATE = new SessionStateFile<GeminiState>('gemini.json');

export function readGeminiState(logDir: string): Promise<GeminiState> {
  return GEMINI_STATE.read(logDir);
}

export function writeGeminiState(logDir: string, state: GeminiState): Promise<void> {
  return GEMINI_STATE.write(logDir, state);
}

/** Seed a logDir with a session to continue: a runner restoring a checkpoint taken on another runner. */
export function seedGeminiState(logDir: string, state: GeminiState): Promise<void> {
  return GEMINI_STATE.seed(logDir, state);
}
