import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SessionState } from './cli-session.js';
import { filesUnder, sessionCarrier } from './session-carrier.js';
import { SessionStateFile } from './session-state.js';

/** The session's usage as counted so far: its usage file's totals after the last run harness counted. */
export interface CopilotCounted {
  /** The session these are the totals of. */
  session: string;
  inputTokens?: number;
  outputTokens?: number;
  premiumRequests?: number;
}

/** What the worker remembers of its Copilot session, and what of its usage it counted already. */
export interface CopilotState extends SessionState {
  counted?: CopilotCounted;
}

/** What the worker remembers of its Copilot session in logDir, to continue it after a restart (or, seeded from a checkpoint, on another runner). */
export const COPILOT_STATE = new SessionStateFile<CopilotState>('copilot.json');

/**
 * Where Copilot CLI keeps a session: `<home>/session-state/<session id>/`, the home being
 * $COPILOT_HOME or ~/.copilot (read in @github/copilot 1.0.102: the session events path is
 * resolved from the config dir, COPILOT_HOME, then the OS home). The folder holds the session's
 * events.jsonl (what `--resume=<id>` replays), workspace.yaml (its id and cwd) and the folders
 * checkpoints/, files/ and research/; the CLI's lock files beside them are its own and stay.
 * Unlike Claude Code's, the folder does not depend on the working directory.
 */
export function copilotSessionHome(env: Record<string, string | undefined>): string {
  return join(env.COPILOT_HOME || join(env.HOME || homedir(), '.copilot'), 'session-state');
}

/** Copilot CLI's sessions for the checkpoint store: every file of the session's folder but locks. */
export const copilotSessions = sessionCarrier(COPILOT_STATE, {
  home: (_cwd, env) => copilotSessionHome(env),
  files: async (home, sessionId) => (await filesUnder(join(home, sessionId), (name) => !name.endsWith('.lock'))).map((file) => join(sessionId, file)),
});
