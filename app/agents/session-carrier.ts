import { readdir } from 'node:fs/promises';
import { isAbsolute, join, normalize, sep } from 'node:path';
import type { Checkpoint } from '../engine/core/protocol/messages.js';
import type { SessionState } from './cli-session.js';
import type { SessionStateFile } from './session-state.js';

/**
 * Where an agent CLI keeps a session, so that a checkpoint taken on one runner can be resumed on
 * another: the files that hold the session travel on the plan branch in the wip commit
 * (worker-action/checkpoint-store.ts) and are put back where the CLI looks for them. Each CLI
 * keeps its sessions its own way (Claude Code under its config dir by working directory, other
 * CLIs under a home of their own by date or id): an agent that can resume says how through one of
 * these, and the store knows no CLI.
 */
export interface SessionCarrier {
  /** The session the agent ran last for this plan (from what it recorded in logDir), if any. */
  current(logDir: string): Promise<string | undefined>;
  /** The directory the CLI keeps its sessions under, for a checkout at cwd with this environment. */
  home(cwd: string, env: Record<string, string | undefined>): string;
  /** The files of one session, relative to home (none when the CLI wrote none). */
  files(home: string, sessionId: string): Promise<string[]>;
  /** After the files are back: record in logDir the session to resume and the checkpoint it waits at. */
  seed(logDir: string, state: { sessionId: string; checkpoint: Checkpoint }): Promise<void>;
  /**
   * On the same machine: the session recorded in logDir, kept as it is (what the agent recorded
   * of it besides), waits at `checkpoint` (a local pause at the usage limit, runner/usage-pause.ts).
   * Returns the session, or undefined when none is recorded.
   */
  wait(logDir: string, checkpoint: Checkpoint): Promise<string | undefined>;
}

/**
 * The carrier of a CLI whose agent records its session in `state`: the session is the one
 * recorded there, and a seeded one is recorded there with `seeded` besides.
 */
export function sessionCarrier<S extends SessionState>(
  state: SessionStateFile<S>,
  where: Pick<SessionCarrier, 'home' | 'files'>,
  seeded: Partial<S> = {},
): SessionCarrier {
  return {
    current: async (logDir) => (await state.read(logDir)).sessionId,
    home: (cwd, env) => where.home(cwd, env),
    files: (home, sessionId) => where.files(home, sessionId),
    seed: (logDir, session) => state.seed(logDir, { ...session, ...seeded } as S),
    async wait(logDir, checkpoint) {
      const saved = await state.read(logDir);
      if (saved.sessionId === undefined) return undefined;
      await state.write(logDir, { ...saved, checkpoint });
      return saved.sessionId;
    },
  };
}

/**
 * A session file's path as the store writes it: relative, inside home, no `..`. A wip commit is
 * read from the plan branch, which anyone who can push to the branch can write, so a path that
 * would land outside the CLI's session home is refused, never followed.
 */
export function sessionFileInside(relative: string): string | undefined {
  if (!relative || isAbsolute(relative) || relative.includes('\0')) return undefined;
  const clean = normalize(relative);
  if (clean === '..' || clean.startsWith(`..${sep}`) || clean.split(sep).includes('..')) return undefined;
  return clean;
}

/** Every file under dir whose name satisfies match, relative to dir (missing dir: none). */
export async function filesUnder(dir: string, match: (name: string) => boolean): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.isFile() && match(entry.name))
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}
