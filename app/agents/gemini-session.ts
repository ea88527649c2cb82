import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { stat } from 'node:fs/promises';
import { readTextIfExists } from '../machine/files.js';
import type { Checkpoint } from '../engine/core/protocol/messages.js';
import { filesUnder, sessionCarrier } from './session-carrier.js';
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

/** The session state of a plan's logDir (empty when there is none). */
export function readGeminiState(logDir: string): Promise<GeminiState> {
  return GEMINI_STATE.read(logDir);
}

/**
 * Where Gemini CLI keeps a session, as harness runs it. Read in @google/gemini-cli 0.61.0:
 * everything the CLI keeps is under `$GEMINI_CLI_HOME/.gemini` (GEMINI_CLI_HOME standing in for
 * the home directory): settings.json, and each session as
 * `tmp/<project slug>/chats/session-<YYYY-MM-DDTHH-mm>-<first 8 of the id>.jsonl`, a JSONL whose
 * first line holds `sessionId` (a resumed session may leave a second, near-empty file of the same
 * id). `--resume <id>` finds a session among the current project's; `--session-file <path>` imports
 * one from any file (a new session id, the whole conversation), which is how a session restored on
 * another runner is continued, whatever slug the CLI gives the checkout there.
 *
 * harness gives the CLI a home of its own per checkout, under the user's `~/.gemini/harness/`:
 * its settings.json names the harness MCP server and nothing of the user's settings (their MCP
 * servers, extensions, hooks) reaches the plan's agent. System settings would need a root-owned
 * file, and the project's `.gemini/settings.json` is the repository's own.
 */
export function geminiHome(cwd: string, env: Record<string, string | undefined>): string {
  const folder = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  const name = folder.length > 120 ? `${folder.slice(0, 100)}-${createHash('sha256').update(cwd).digest('hex').slice(0, 16)}` : folder;
  return join(env.HOME || homedir(), '.gemini', 'harness', name);
}

/** The session files of one session id under a home (relative to it), the one holding the conversation first. */
export async function geminiSessionFiles(home: string, sessionId: string): Promise<string[]> {
  const suffix = `-${sessionId.slice(0, 8)}.jsonl`;
  const tmp = join(home, '.gemini', 'tmp');
  const named = await filesUnder(tmp, (name) => name.startsWith('session-') && name.endsWith(suffix));
  const found: { path: string; size: number }[] = [];
  for (const file of named) {
    const path = join(tmp, file);
    const text = await readTextIfExists(path);
    if (text === undefined || firstSessionId(text) !== sessionId) continue;
    found.push({ path: join('.gemini', 'tmp', file), size: (await stat(path)).size });
  }
  return found.sort((a, b) => b.size - a.size || a.path.localeCompare(b.path)).map((f) => f.path);
}

function firstSessionId(text: string): string | undefined {
  const first = text.slice(0, text.indexOf('\n') === -1 ? undefined : text.indexOf('\n'));
  try {
    const value = JSON.parse(first) as { sessionId?: unknown };
    return typeof value.sessionId === 'string' ? value.sessionId : undefined;
  } catch {
    return undefined;
  }
}

/** Gemini CLI's sessions for the checkpoint store: the session's files under harness's home for the checkout. */
export const geminiSessions = sessionCarrier(
  GEMINI_STATE,
  { home: (cwd, env) => geminiHome(cwd, env), files: (home, sessionId) => geminiSessionFiles(home, sessionId) },
  // Restored on another runner: the next run imports the session file (--session-file) rather than --resume it.
  { restored: true },
);
