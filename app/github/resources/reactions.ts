import type { Context } from 'probot';

type Octokit = Context['octokit'];

/** The reactions GitHub offers (REST: create reaction for an issue comment, `content`). */
export type ReactionContent = '+1' | '-1' | 'laugh' | 'confused' | 'heart' | 'hooray' | 'rocket' | 'eyes';

export interface Reaction {
  id: number;
  /**
   * Whether this call added it. GitHub answers 201 when it creates the reaction and 200 when
   * this user (the App) had already added that reaction to the comment.
   */
  created: boolean;
}

/** POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions */
export async function reactToComment(octokit: Octokit, repo: { owner: string; repo: string }, commentId: number, content: ReactionContent): Promise<Reaction> {
  const res = await octokit.rest.reactions.createForIssueComment({ ...repo, comment_id: commentId, content });
  return { id: res.data.id, created: (res.status as number) === 201 };
}

/** DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions/{reaction_id} (204). */
export async function removeCommentReaction(octokit: Octokit, repo: { owner: string; repo: string }, commentId: number, reactionId: number): Promise<void> {
  await octokit.rest.reactions.deleteForIssueComment({ ...repo, comment_id: commentId, reaction_id: reactionId });
}
