import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { commitBody, commitLine, formatTrailers, type CommitMessage } from '../engine/core/agents/commit-message.js';
import { GitError, whenGitFails } from '../machine/git.js';
import type { TimedGit } from './timed-git.js';

/**
 * Merge a plan's branch into the integration worktree (`git`'s checkout). Idempotent: a branch already
 * merged (a crash after the merge, before the run recorded it) returns the commit that
 * merged it. A conflict leaves the integration worktree as it was.
 */
export async function mergeBranch(
  git: TimedGit,
  branch: string,
  message: CommitMessage,
): Promise<{ ok: true; sha: string } | { ok: false; conflicts: string[] }> {
  // Merged straight away: a branch merged already ("Already up to date", even with
  // --no-ff) leaves HEAD where it was, and only then is the merge that took it looked up.
  const before = await git.head();
  try {
    await git.run(['merge', '--no-ff', '--no-edit', '--quiet', '-m', formatMessage(message), branch]);
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
    const conflicts = (await git.run(['diff', '--name-only', '--diff-filter=U'])).split('\n').filter(Boolean);
    // A merge that never started (nothing to merge) has nothing to abort.
    await git.run(['merge', '--abort']).catch(whenGitFails(undefined));
    return { ok: false, conflicts: conflicts.length > 0 ? conflicts : [e.stderr.trim()] };
  }
  const after = await git.head();
  if (after !== before) return { ok: true, sha: after };
  const merged = (await git.run(['log', '--merges', '--format=%H', '--ancestry-path', `${branch}..HEAD`])).trim().split('\n').filter(Boolean);
  return { ok: true, sha: merged[merged.length - 1] ?? after };
}

/**
 * A merge a killed run left unconcluded in `git`'s checkout (MERGE_HEAD there: git was killed inside
 * `git merge`, or between a conflict and its abort) is aborted, which puts the worktree back
 * where it was before that merge; the resumed run merges the plan again. Left, every later
 * merge fails with "You have not concluded your merge". True when there was one.
 */
export async function abortInterruptedMerge(git: TimedGit): Promise<boolean> {
  const gitDir = (await git.run(['rev-parse', '--absolute-git-dir'])).trim();
  if (!existsSync(join(gitDir, 'MERGE_HEAD'))) return false;
  await git.run(['merge', '--abort']).catch((e: unknown) => {
    if (!(e instanceof GitError)) throw e;
    return git.run(['reset', '--merge']);
  });
  return true;
}

function formatMessage(message: CommitMessage): string {
  // Subjects and trailers carry plan titles and ids an author wrote: one sanitised line each.
  const parts = [commitLine(message.subject)];
  if (message.body) parts.push(commitBody(message.body));
  if (message.trailers.length > 0) parts.push(formatTrailers(message.trailers));
  return parts.join('\n\n');
}
