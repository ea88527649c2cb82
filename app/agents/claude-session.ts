import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { existsSync } from 'node:fs';
import type { SessionState } from './cli-session.js';
import { sessionCarrier } from './session-carrier.js';
import { SessionStateFile } from './session-state.js';

/** What the worker remembers of its Claude session in logDir, to continue it after a restart (or, seeded from a checkpoint, on another runner). */
export const CLAUDE_STATE = new SessionStateFile<SessionState>('claude.json');

/**
 * Where Claude Code keeps a session's transcript: `<config dir>/projects/<cwd>/<session>.jsonl`,
 * the config dir being $CLAUDE_CONFIG_DIR or ~/.claude, and the working directory written with
 * every character that is not a letter or a digit as "-". `claude --resume <id>` looks there, in
 * the directory of the cwd it runs in: a session restored on another runner goes under that
 * runner's checkout. (Read in @anthropic-ai/claude-code 2.1.332, the version the worker workflow
 * pins: the config dir is `CLAUDE_CONFIG_DIR ?? ~/.claude`, the folder
 * `cwd.replace(/[^a-zA-Z0-9]/g, "-")`; a folder name over 200 characters is cut there and given a
 * hash of the path, which runners' checkouts, `/home/runner/work/<repo>/<repo>`, never reach.)
 */
export function claudeTranscriptPath(cwd: string, sessionId: string, env: Record<string, string | undefined>): string {
  const config = env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
  return join(config, 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'), `${sessionId}.jsonl`);
}

/** Claude Code's sessions for the checkpoint store: one transcript by session id, under the cwd's folder. */
export const claudeSessions = sessionCarrier(CLAUDE_STATE, {
  home: (cwd, env) => dirname(claudeTranscriptPath(cwd, 'session', env)),
  files: async (home, sessionId) => (existsSync(join(home, `${sessionId}.jsonl`)) ? [`${sessionId}.jsonl`] : []),
});
