import type { CommentRecord } from '../../gateway/comments.js';
import type { Gateway } from '../../gateway/gateway.js';

/**
 * The first comment on an issue or pull request that the App itself wrote and `match` accepts.
 * A marker is only text, so a comment by anyone else (a person, another bot) carrying it is
 * passed over. The App's login is asked of GitHub only when some bot's comment matches.
 */
export async function ownComment(github: Gateway, issue: number, match: (comment: CommentRecord) => boolean): Promise<CommentRecord | undefined> {
  const candidates = (await github.comments(issue)).filter((c) => c.authorType === 'Bot' && match(c));
  if (candidates.length === 0) return undefined;
  const self = await github.selfLogin();
  return candidates.find((c) => c.author === self);
}

/**
 * Every comment on an issue or pull request that the App itself wrote and `match` accepts,
 * oldest first (ownComment's rule, all of them: two deliveries racing can each have written one).
 */
export async function ownComments(github: Gateway, issue: number, match: (comment: CommentRecord) => boolean): Promise<CommentRecord[]> {
  const candidates = (await github.comments(issue)).filter((c) => c.authorType === 'Bot' && match(c));
  if (candidates.length === 0) return [];
  const self = await github.selfLogin();
  return candidates.filter((c) => c.author === self);
}
