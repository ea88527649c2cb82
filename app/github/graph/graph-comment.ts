import type { Gateway } from '../../gateway/gateway.js';
import { ownComments } from '../spec-pr/own-comment.js';

/**
 * The App's one comment about one edge on the dependent plan's issue (graphCommentMarker),
 * made to say `body`: edited in place when it says something else, written when there is none
 * (unless `onlyIfThere`), nothing when it says that already (or says what `keep` accepts), so that a delivery twice writes it
 * once. GitHub has no conditional create: when two deliveries (the blocked_by and the blocking
 * event of one change) both wrote one, the oldest stays and the others go.
 */
export async function upsertGraphComment(
  github: Gateway,
  issue: number,
  marker: string,
  body: string,
  onlyIfThere = false,
  keep: (existing: string) => boolean = () => false,
): Promise<'created' | 'updated' | 'unchanged' | 'absent'> {
  const mine = (c: { body: string }) => c.body.startsWith(`${marker}\n`);
  const found = await ownComments(github, issue, mine);
  if (found.length === 0) {
    if (onlyIfThere) return 'absent';
    await github.comment(issue, body);
    const written = await ownComments(github, issue, mine);
    for (const extra of written.slice(1)) await github.deleteComment(extra.id);
    return 'created';
  }
  for (const extra of found.slice(1)) await github.deleteComment(extra.id);
  if (found[0]!.body === body || keep(found[0]!.body)) return 'unchanged';
  await github.updateComment(found[0]!.id, body);
  return 'updated';
}
