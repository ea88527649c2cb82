import type { RunRecord } from './store.js';
import { RepoStateError, type RunRepo } from './repo.js';

/**
 * A resumed run and the branch it started from. The integration branch stands on the base's
 * commit of the run's first start; a person who fixed something on the base since then and
 * retries means to retry with the fix. With --retry (and not --keep-base) the base's new
 * commits are merged into the integration branch, so every plan started after that, and every
 * phase verified, has them; otherwise the run goes on from where it stood, and says so.
 */
export async function followBase(
  repo: RunRepo,
  record: RunRecord,
  worktree: string,
  how: { retry: boolean; keepBase: boolean; say: (text: string) => void },
): Promise<RunRecord> {
  if (!(await repo.branchExists(record.baseBranch))) return record;
  const now = await repo.revParse(record.baseBranch);
  if (now === record.baseSha) return record;
  const moved = `${record.baseBranch} moved since this run started (${record.baseSha.slice(0, 7)} → ${now.slice(0, 7)})`;
  if (!how.retry) {
    how.say(`${moved}; the run goes on from ${record.baseSha.slice(0, 7)}: harness run --retry takes the new commits in`);
    return record;
  }
  if (how.keepBase) {
    how.say(`${moved}; --keep-base: plans are retried on ${record.baseSha.slice(0, 7)}, without its new commits`);
    return record;
  }
  const merged = await repo.merge(worktree, now, {
    subject: `harness: take ${record.baseBranch} (${now.slice(0, 7)}) into ${record.integrationBranch} for a retry`,
    trailers: [],
  });
  if (!merged.ok) {
    throw new RepoStateError(
      `${moved}, and its new commits conflict with ${record.integrationBranch} in ${merged.conflicts.join(', ')}; resolve them by merging ${record.baseBranch} into ${record.integrationBranch} yourself, or retry on the old base with --retry --keep-base`,
    );
  }
  how.say(`${moved}: merged its new commits into ${record.integrationBranch}, so the retried plans run today's code`);
  return { ...record, baseSha: now };
}
