import { mkdir } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { WorkerContext } from '../engine/core/agents/agent.js';
import type { Git } from '../machine/git.js';
import { killOrphan } from './process.js';

/** The agent process's group id while it runs (see ProcessOptions.pidFile). */
export const PID_FILE = 'agent.pid';

export type Prepared = { ok: true; discarded: string[] } | { ok: false; error: string };

/**
 * What to do with uncommitted changes: `discard` them (a resumed attempt), `refuse` to start (a
 * fresh one), or `keep` them (an agent resuming a session that paused at a checkpoint with its
 * work in place).
 */
export type Leftovers = 'discard' | 'refuse' | 'keep';

/**
 * Make the plan's checkout ready for an attempt. Whatever an interrupted attempt left behind is
 * ended first (its process group) and then, for a resumed attempt, thrown away (reset --hard,
 * clean -fd): half a step is worse than none, and the step runs again from its start. A fresh
 * attempt refuses a dirty checkout rather than destroy changes it cannot account for.
 */
export async function prepareWorktree(context: WorkerContext, git: Git, leftovers: Leftovers): Promise<Prepared> {
  const worktree = context.task.worktree;
  await mkdir(context.logDir, { recursive: true });
  const inside = relative(worktree, context.logDir);
  const within = inside === '' || (!inside.startsWith('..') && !isAbsolute(inside));
  // Under .git nothing is ever committed; anywhere else in the checkout it must be ignored.
  if (within && (inside === '' || (inside.split(sep)[0] !== '.git' && !(await git.isIgnored(inside))))) {
    return {
      ok: false,
      error: `the log directory ${context.logDir} is inside the worktree ${worktree} and not ignored: its logs and answers would be committed with the plan's work`,
    };
  }
  await killOrphan(join(context.logDir, PID_FILE));
  if (leftovers === 'keep') return { ok: true, discarded: [] };
  // A fresh attempt in a checkout the runner has just made: there is nothing in it to refuse.
  if (leftovers === 'refuse' && context.checkoutMade) return { ok: true, discarded: [] };
  const dirty = await git.status();
  if (dirty.length === 0) return { ok: true, discarded: [] };
  const paths = dirty.map((d) => d.path);
  if (leftovers === 'refuse') {
    const list = paths.slice(0, 10).join(', ') + (paths.length > 10 ? `, … (${paths.length} in all)` : '');
    return {
      ok: false,
      error: `the worktree ${worktree} has uncommitted changes (${list}); a fresh attempt starts from a clean checkout, and a resumed one (resume: true) discards them`,
    };
  }
  await git.resetHard();
  await git.clean();
  return { ok: true, discarded: paths };
}
