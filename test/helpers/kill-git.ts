import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * A `git` on PATH that runs the real one and then SIGKILLs the harness run that started it
 * (its parent process), right after a chosen git step: a commit whose message contains
 * HARNESS_KILL_AFTER_COMMIT, or any command whose arguments contain HARNESS_KILL_AFTER_ARGS;
 * or instead of a command whose arguments contain HARNESS_KILL_BEFORE_ARGS.
 * What a kill at exactly that moment leaves behind is what the tests then resume from.
 */
export interface KillPoint {
  /** After a commit whose message contains this. */
  commit?: string;
  /** After a git command whose arguments contain this. */
  args?: string;
  /** Instead of a git command whose arguments contain this. */
  before?: string;
  /** Instead of a commit whose message contains this: what was written and staged stays, uncommitted. */
  beforeCommit?: string;
}

export function killingGit(): { env: (at: KillPoint) => NodeJS.ProcessEnv } {
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const dir = mkdtempSync(join(tmpdir(), 'harness-kill-git-'));
  // Harness starts its git commands itself (app/machine/git.ts): the run is git's parent.
  const script = `#!/bin/sh
run=$PPID
is_commit=0
for a in "$@"; do [ "$a" = commit ] && is_commit=1; done
if [ $is_commit = 1 ] && [ -n "$HARNESS_KILL_BEFORE_COMMIT" ]; then
  msg=$(cat)
  case "$msg" in *"$HARNESS_KILL_BEFORE_COMMIT"*) kill -9 $run; exit 137 ;; esac
  printf '%s\\n' "$msg" | "${real}" "$@"
  exit $?
fi
if [ $is_commit = 1 ] && [ -n "$HARNESS_KILL_AFTER_COMMIT" ]; then
  msg=$(cat)
  printf '%s\\n' "$msg" | "${real}" "$@"
  rc=$?
  case "$msg" in *"$HARNESS_KILL_AFTER_COMMIT"*) [ $rc = 0 ] && kill -9 $run ;; esac
  exit $rc
fi
if [ -n "$HARNESS_KILL_BEFORE_ARGS" ]; then
  case "$*" in *"$HARNESS_KILL_BEFORE_ARGS"*) kill -9 $run; exit 137 ;; esac
fi
if [ -n "$HARNESS_KILL_AFTER_ARGS" ]; then
  case "$*" in *"$HARNESS_KILL_AFTER_ARGS"*) "${real}" "$@"; rc=$?; kill -9 $run; exit $rc ;; esac
fi
exec "${real}" "$@"
`;
  writeFileSync(join(dir, 'git'), script);
  chmodSync(join(dir, 'git'), 0o755);
  return {
    env: (at) => ({
      ...process.env,
      PATH: `${dir}${delimiter}${process.env.PATH ?? ''}`,
      ...(at.commit ? { HARNESS_KILL_AFTER_COMMIT: at.commit } : {}),
      ...(at.args ? { HARNESS_KILL_AFTER_ARGS: at.args } : {}),
      ...(at.before ? { HARNESS_KILL_BEFORE_ARGS: at.before } : {}),
      ...(at.beforeCommit ? { HARNESS_KILL_BEFORE_COMMIT: at.beforeCommit } : {}),
    }),
  };
}
