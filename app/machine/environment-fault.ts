/**
 * Failures of the machine, not of harness and not of the spec: a full disk, a worktree whose
 * `.git` someone (or some agent) removed. They are not bugs, so they get no stack and no bug
 * report, but one line that names the cause and what to do, and their own exit code
 * (EXIT.environment, 74: EX_IOERR), so that a CI job can tell them from problems in a spec.
 */

const NO_SPACE = /\b(ENOSPC|EDQUOT)\b|No space left on device|Disk quota exceeded/;
const NOT_A_CHECKOUT = /fatal: (?:this operation must be run in a work tree|not a git repository)/;

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  stderr?: unknown;
  cwd?: unknown;
  path?: unknown;
}

/** One line for a failure of the machine, or undefined for any other error (which surfaces as it is). */
export function environmentFault(e: unknown, removedBy?: (where: string) => readonly string[] | undefined): string | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const err = e as ErrorLike;
  const text = [err.code, err.message, err.stderr].filter((t) => typeof t === 'string').join('\n');
  const where = typeof err.path === 'string' ? err.path : typeof err.cwd === 'string' ? err.cwd : undefined;
  if (NO_SPACE.test(text)) {
    return `the disk is full${where ? ` (writing in ${where})` : ''}: free some space and run the same command again; a run resumes where it stopped`;
  }
  if (NOT_A_CHECKOUT.test(text) && where) {
    const by = removedBy?.(where);
    const who = by === undefined || by.length === 0 ? ', by an agent or by hand' : ` by the agent of plan ${by.join(' or ')}`;
    return `${where} is no longer a git checkout (its .git was removed${who}): remove that directory, run git worktree prune, then run the same command again to resume`;
  }
  return undefined;
}
