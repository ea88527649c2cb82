import { abandoned } from '../../engine/forge/claims.js';
import { refuses, repliesTo } from '../../engine/forge/reply-markers.js';
import type { CommentRecord } from '../../gateway/comments.js';
import type { Reaction } from '../../gateway/reactions.js';
import type { Invocation } from './invocation.js';

/**
 * What the thread says about a command already: answered to the end, or its author refused.
 * Only the App's own comments say so (a marker is only text); the App's login is asked of
 * GitHub only when some bot's comment carries the marker.
 */

async function byApp(inv: Invocation, comments: readonly CommentRecord[]): Promise<CommentRecord[]> {
  if (comments.length === 0) return [];
  const self = await inv.github.selfLogin();
  return comments.filter((c) => c.author === self);
}

/**
 * A reaction found there (GitHub answered 200): finished, or still at work, unless the
 * reaction is older than the claim grace period and no answer of the App's carries the
 * comment's reply marker. A reaction of unknown age is at work.
 */
export async function finishedBefore(inv: Invocation, ack: Reaction, command: { id: number; issue: number }): Promise<boolean> {
  if (!abandoned(ack.createdAt === undefined ? undefined : new Date(ack.createdAt), inv.now())) return true;
  const answers = (await inv.github.comments(command.issue)).filter((c) => c.authorType === 'Bot' && repliesTo(c.body, command.id));
  return (await byApp(inv, answers)).length > 0;
}

/** Was `login` refused in this thread already, by the App? */
export async function refusedBefore(inv: Invocation, issue: number, login: string): Promise<boolean> {
  const refusals = (await inv.github.comments(issue)).filter((c) => c.authorType === 'Bot' && refuses(c.body, login));
  return (await byApp(inv, refusals)).length > 0;
}
