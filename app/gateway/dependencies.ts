import { GitHubError } from './github-error.js';
import { PAGE_SIZE } from './limits.js';
import { paginate } from './paginate.js';
import type { GatewayRequest, Repo } from './request.js';

/**
 * What became of a dependency write. GitHub's issue dependencies are not everywhere (older
 * GitHub Enterprise Server, an App installed without the permission, a plan or policy that
 * turns them off), so a refusal is an answer, not an error: the `needs:` labels stay the
 * scheduler's source of truth.
 * - `done`: the relation is as asked (for a removal, also when it was not there: 404).
 * - `unavailable`: 403 or 410, or 404 on an addition: the feature is not there for us; stop trying this sync.
 * - `refused`: 422, this one relation was not accepted (a limit, a rule); others may be.
 */
export type DependencyOutcome = 'done' | 'unavailable' | 'refused';

function outcomeOf(e: unknown, removing: boolean): DependencyOutcome {
  if (!(e instanceof GitHubError)) throw e;
  if (e.status === 404 && removing) return 'done';
  if (e.status === 403 || e.status === 404 || e.status === 410) return 'unavailable';
  if (e.status === 422) return 'refused';
  throw e;
}

/**
 * POST /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by {issue_id}: issue
 * `issueNumber` is blocked by the issue whose database id is `blockingIssueId`.
 */
export async function addBlockedBy(request: GatewayRequest, repo: Repo, issueNumber: number, blockingIssueId: number): Promise<DependencyOutcome> {
  try {
    await request('POST /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by', {
      ...repo,
      issue_number: issueNumber,
      issue_id: blockingIssueId,
    });
    return 'done';
  } catch (e) {
    return outcomeOf(e, false);
  }
}

/** DELETE /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by/{issue_id} */
export async function removeBlockedBy(request: GatewayRequest, repo: Repo, issueNumber: number, blockingIssueId: number): Promise<DependencyOutcome> {
  try {
    await request('DELETE /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by/{issue_id}', {
      ...repo,
      issue_number: issueNumber,
      issue_id: blockingIssueId,
    });
    return 'done';
  } catch (e) {
    return outcomeOf(e, true);
  }
}

/**
 * GET /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by?per_page=100, every
 * page: the database ids of the issues blocking `issueNumber`, as GitHub has them.
 * `unavailable` when GitHub answers that dependencies are not there for us (403, 404, 410).
 */
export async function listBlockedByIds(request: GatewayRequest, repo: Repo, issueNumber: number): Promise<number[] | 'unavailable'> {
  try {
    return (
      await paginate<{ id: number }>(request, 'GET /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by', {
        ...repo,
        issue_number: issueNumber,
        per_page: PAGE_SIZE,
      })
    ).map((i) => i.id);
  } catch (e) {
    if (e instanceof GitHubError && (e.status === 403 || e.status === 404 || e.status === 410)) return 'unavailable';
    throw e;
  }
}
