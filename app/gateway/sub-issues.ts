import { GitHubError } from './github-error.js';
import { PAGE_SIZE } from './limits.js';
import { paginate } from './paginate.js';
import type { DependencyOutcome } from './dependencies.js';
import type { GatewayRequest, Repo } from './request.js';

/**
 * What became of a sub-issue write, in the same terms as the issue dependencies: sub-issues
 * are not everywhere either (older GitHub Enterprise Server, an App without the permission),
 * and the plan issues' labels carry the spec either way.
 * - `done`: as asked (for a removal, also when it was not a sub-issue: 404).
 * - `unavailable`: 403 or 410, or 404 on an addition: no sub-issues for us here; stop trying this sync.
 * - `refused`: 422, this one was not accepted (it has another parent, the 100 sub-issues limit).
 */
export type SubIssueOutcome = DependencyOutcome;

function outcomeOf(e: unknown, removing: boolean): SubIssueOutcome {
  if (!(e instanceof GitHubError)) throw e;
  if (e.status === 404 && removing) return 'done';
  if (e.status === 403 || e.status === 404 || e.status === 410) return 'unavailable';
  if (e.status === 422 || (e.status === 400 && removing)) return 'refused';
  throw e;
}

/**
 * POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues {sub_issue_id, replace_parent}
 * (201): the issue whose database id is `subIssueId` (not its number) becomes a sub-issue of
 * `parent`. `replaceParent` moves it from the parent it has, which harness asks only when the
 * issue's record names a tracking issue of its own (a duplicate that a race left).
 */
export async function addSubIssue(request: GatewayRequest, repo: Repo, parent: number, subIssueId: number, replaceParent: boolean): Promise<SubIssueOutcome> {
  try {
    await request('POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues', {
      ...repo,
      issue_number: parent,
      sub_issue_id: subIssueId,
      ...(replaceParent ? { replace_parent: true } : {}),
    });
    return 'done';
  } catch (e) {
    return outcomeOf(e, false);
  }
}

/** DELETE /repos/{owner}/{repo}/issues/{issue_number}/sub_issue {sub_issue_id} (200; the path is singular). */
export async function removeSubIssue(request: GatewayRequest, repo: Repo, parent: number, subIssueId: number): Promise<SubIssueOutcome> {
  try {
    await request('DELETE /repos/{owner}/{repo}/issues/{issue_number}/sub_issue', { ...repo, issue_number: parent, sub_issue_id: subIssueId });
    return 'done';
  } catch (e) {
    return outcomeOf(e, true);
  }
}

/**
 * GET /repos/{owner}/{repo}/issues/{issue_number}/sub_issues?per_page=100, every page: the
 * database ids of `parent`'s sub-issues as GitHub has them (one page: a parent holds 100 at
 * most). `unavailable` when GitHub answers that sub-issues are not there for us (403, 404, 410).
 */
export async function listSubIssueIds(request: GatewayRequest, repo: Repo, parent: number): Promise<number[] | 'unavailable'> {
  try {
    return (
      await paginate<{ id: number }>(request, 'GET /repos/{owner}/{repo}/issues/{issue_number}/sub_issues', {
        ...repo,
        issue_number: parent,
        per_page: PAGE_SIZE,
      })
    ).map((i) => i.id);
  } catch (e) {
    if (e instanceof GitHubError && (e.status === 403 || e.status === 404 || e.status === 410)) return 'unavailable';
    throw e;
  }
}
