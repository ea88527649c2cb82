import { homedir } from 'node:os';
import { join } from 'node:path';
import { readCopilotState, seedCopilotState } from './copilot.js';
import { filesUnder, type SessionCarrier } from './session-carrier.js';

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
export const copilotSessions: SessionCarrier = {
  current: async (logDir) => (await readCopilotState(logDir)).sessionId,
  home: (_cwd, env) => copilotSessionHome(env),
  files: async (home, sessionId) => (await filesUnder(join(home, sessionId), (name) => !name.endsWith('.lock'))).map((file) => join(sessionId, file)),
  seed: (logDir, state) => seedCopilotState(logDir, state),
};
