import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SessionState } from './cli-session.js';
import { filesUnder, sessionCarrier } from './session-carrier.js';
import { SessionStateFile } from './session-state.js';

/** What the worker remembers of its Codex thread in logDir, to continue it after a restart (or, seeded from a checkpoint, on another runner). */
export const CODEX_STATE = new SessionStateFile<SessionState>('codex.json');

/**
 * Where the Codex CLI keeps a session (@openai/codex 0.171.0, the version the worker workflow
 * pins): one rollout file a thread, `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local
 * time>-<thread id>.jsonl`, CODEX_HOME being ~/.codex unless set. `codex exec resume <thread
 * id>` finds the thread from that file alone (its SQLite files beside it are not needed), in
 * any working directory: a session restored on another runner goes back under that runner's
 * CODEX_HOME at the same path below sessions/.
 */
export function codexHome(env: Record<string, string | undefined>): string {
  return env.CODEX_HOME || join(env.HOME || homedir(), '.codex');
}

/** The rollout files of a thread, relative to the sessions folder. */
export function codexRolloutFiles(sessions: string, threadId: string): Promise<string[]> {
  return filesUnder(sessions, (name) => name.startsWith('rollout-') && name.endsWith(`-${threadId}.jsonl`));
}

/** Codex's sessions for the checkpoint store: the thread's rollout file under $CODEX_HOME/sessions. */
export const codexSessions = sessionCarrier(CODEX_STATE, {
  home: (_cwd, env) => join(codexHome(env), 'sessions'),
  files: (home, sessionId) => codexRolloutFiles(home, sessionId),
});
