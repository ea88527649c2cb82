import type { GatewayRequest, Repo } from './request.js';

/** The reactions GitHub offers (REST: create reaction for an issue comment, `content`). */
export type ReactionContent = '+1' | '-1' | 'laugh' | 'confused' | 'heart' | 'hooray' | 'rocket' | 'eyes';

export interface Reaction {
  id: number;
  /**
   * Whether this call added it. GitHub answers 201 when it creates the reaction and 200 when
   * this user (the App) had already added that reaction to the comment.
   */
  created: boolean;
  /** When it was first added (ISO-8601): a reaction that is a claim says how old the claim is. */
  createdAt?: string;
}

/** POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions */
export async function reactToComment(request: GatewayRequest, repo: Repo, commentId: number, content: ReactionContent): Promise<Reaction> {
  const res = await request('POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', { ...repo, comment_id: commentId, content });
  const createdAt = (res.data as { created_at?: string }).created_at;
  return { id: res.data.id, created: (res.status as number) === 201, ...(createdAt ? { createdAt } : {}) };
}

/** DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions/{reaction_id} (204). */
export async function removeCommentReaction(request: GatewayRequest, repo: Repo, commentId: number, reactionId: number): Promise<void> {
  await request('DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions/{reaction_id}', {
    ...repo,
    comment_id: commentId,
    reaction_id: reactionId,
  });
}
