import type { Context } from 'probot';
import { PAGE_SIZE } from '../limits.js';

type Octokit = Context['octokit'];

export interface CommentRecord {
  id: number;
  body: string;
  /** `Bot` for an App's (or Actions') comments. */
  authorType: string | undefined;
}

/**
 * The first comment on an issue or pull request that `match` accepts: GET
 * /repos/{owner}/{repo}/issues/{issue_number}/comments?per_page=100, page after page, stopping
 * at the page that has it (a sticky comment is written early, so usually the first).
 */
export async function findComment(
  octokit: Octokit,
  repo: { owner: string; repo: string },
  issueNumber: number,
  match: (comment: CommentRecord) => boolean,
): Promise<CommentRecord | undefined> {
  const pages = octokit.paginate.iterator('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...repo, issue_number: issueNumber, per_page: PAGE_SIZE });
  for await (const page of pages) {
    for (const c of page.data) {
      const comment: CommentRecord = { id: c.id, body: c.body ?? '', authorType: c.user?.type };
      if (match(comment)) return comment;
    }
  }
  return undefined;
}

/** POST /repos/{owner}/{repo}/issues/{issue_number}/comments */
export async function createComment(octokit: Octokit, repo: { owner: string; repo: string }, issueNumber: number, body: string): Promise<CommentRecord> {
  const { data } = await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...repo, issue_number: issueNumber, body });
  // The schema allows a bigint id; comment ids fit a double comfortably.
  return { id: Number(data.id), body: data.body ?? body, authorType: data.user?.type };
}

/** PATCH /repos/{owner}/{repo}/issues/comments/{comment_id} */
export async function updateComment(octokit: Octokit, repo: { owner: string; repo: string }, commentId: number, body: string): Promise<void> {
  await octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', { ...repo, comment_id: commentId, body });
}
