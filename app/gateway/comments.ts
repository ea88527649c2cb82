import { GitHubError } from './github-error.js';
import { NO_RETRY } from './create-once.js';
import { PAGE_SIZE } from './limits.js';
import { pages } from './paginate.js';
import type { GatewayRequest, Repo } from './request.js';

/** A comment on an issue or pull request, as harness reads it. */
export interface CommentRecord {
  id: number;
  body: string;
  /** The author's login; `ghost` for a deleted account. */
  author: string;
  /** GitHub's user type: `User`, `Bot` (an App's, or Actions'), `Organization`. */
  authorType: string;
  /** OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, … */
  association: string;
  createdAt: string;
  url: string;
}

interface RawComment {
  id: number | bigint;
  body?: string | null;
  user?: { login?: string; type?: string } | null;
  author_association?: string;
  created_at?: string;
  html_url?: string;
}

function toComment(c: RawComment): CommentRecord {
  return {
    // The schema allows a bigint id; comment ids fit a double comfortably.
    id: Number(c.id),
    body: c.body ?? '',
    author: c.user?.login ?? 'ghost',
    authorType: c.user?.type ?? 'User',
    association: c.author_association ?? 'NONE',
    createdAt: c.created_at ?? '',
    url: c.html_url ?? '',
  };
}

const LIST = 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments';

/** Every comment of an issue or pull request, oldest first: GET …/issues/{n}/comments?per_page=100, every page. */
export async function listComments(request: GatewayRequest, repo: Repo, issueNumber: number): Promise<CommentRecord[]> {
  const all: CommentRecord[] = [];
  for await (const page of pages<RawComment>(request, LIST, { ...repo, issue_number: issueNumber, per_page: PAGE_SIZE })) all.push(...page.map(toComment));
  return all;
}

/**
 * The first comment that `match` accepts, reading page after page and stopping at the page
 * that has it (a sticky comment is written early, so usually the first).
 */
export async function findComment(
  request: GatewayRequest,
  repo: Repo,
  issueNumber: number,
  match: (comment: CommentRecord) => boolean,
): Promise<CommentRecord | undefined> {
  for await (const page of pages<RawComment>(request, LIST, { ...repo, issue_number: issueNumber, per_page: PAGE_SIZE })) {
    const found = page.map(toComment).find(match);
    if (found) return found;
  }
  return undefined;
}

/** POST /repos/{owner}/{repo}/issues/{issue_number}/comments (201), with the client's retries off (create-once.ts). */
export async function createComment(request: GatewayRequest, repo: Repo, issueNumber: number, body: string): Promise<CommentRecord> {
  const { data } = await request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...repo, issue_number: issueNumber, body, ...NO_RETRY });
  return toComment({ ...data, body: data.body ?? body });
}

/** PATCH /repos/{owner}/{repo}/issues/comments/{comment_id} */
export async function updateComment(request: GatewayRequest, repo: Repo, commentId: number, body: string): Promise<void> {
  await request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', { ...repo, comment_id: commentId, body });
}

/** DELETE /repos/{owner}/{repo}/issues/comments/{comment_id} (204); a comment already gone (404) is as asked. */
export async function deleteComment(request: GatewayRequest, repo: Repo, commentId: number): Promise<'deleted' | 'absent'> {
  try {
    await request('DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}', { ...repo, comment_id: commentId });
    return 'deleted';
  } catch (e) {
    if (e instanceof GitHubError && e.status === 404) return 'absent';
    throw e;
  }
}
