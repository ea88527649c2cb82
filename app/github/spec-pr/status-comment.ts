import { matchPlanIssues, type TrackedIssue } from '../../engine/forge/match-issues.js';
import { describeWait, type LimitWait } from '../../gateway/limit-model.js';
import { statusMarker } from '../../engine/forge/names.js';
import { statusComment } from '../../engine/forge/status-comment.js';
import type { Spec } from '../../engine/core/spec/model.js';
import type { Gateway } from '../../gateway/gateway.js';
import { ownComment, ownComments } from './own-comment.js';
import { ISSUE_BODY_LIMIT } from '../../gateway/limits.js';
import { GitHubError } from '../../gateway/github-error.js';
import type { AppMemory } from '../app-memory.js';

/** While plans run, the comment is edited at most once in this long (RefreshOptions.coalesce)... */
export const STATUS_COMMENT_INTERVAL_MS = 60_000;
/** ...and, with many running, once in this long per plan running: every plan ending is a round, and the plans' own issues and check runs show each change as it comes. */
export const STATUS_COMMENT_MS_PER_RUNNING = 5_000;

/** How long a change to the status comment may wait while `running` plans run: a minute, 5 minutes 20 s for 64. */
export function statusCommentInterval(running: number): number {
  return Math.max(STATUS_COMMENT_INTERVAL_MS, running * STATUS_COMMENT_MS_PER_RUNNING);
}

export interface RefreshOptions {
  /** The wait on a GitHub limit the App's requests are in (app-memory.ts, limitWaitOf): said under the table while it lasts. */
  waiting?: LimitWait;
  /** Why no plan starts: a spend cap the round met (schedule/spend-hold.ts), said under the table while it holds. */
  held?: string;
  /**
   * A change may wait: when the App edited the comment less than statusCommentInterval ago
   * (`true`: one plan running; a number: that many), it is left for the next refresh
   * ('deferred'). For rounds while plans run, when the next round is never far; a round that
   * leaves nothing running does not coalesce, so the comment always ends showing the end.
   */
  coalesce?: boolean | number;
  /**
   * Read the comments whatever the App remembers, and delete the App's other status comments
   * of the spec but the oldest: two deliveries racing through a first sync each wrote one.
   */
  dedupe?: boolean;
}

/**
 * The sticky status comment on a spec PR (`<!-- harness:status <spec> -->` first), created
 * the first time and edited afterwards, and only when its text changes.
 *
 * Where it is and what it said are remembered from the App's own last read or write of it in
 * this process: a refresh that renders the same text writes and reads nothing, and one that
 * renders another edits the comment by its id without reading the PR's comments first. Not
 * remembered (a restart, another process), or gone (edited away: 404), the comments are read
 * (usually one page), as the first time.
 *
 * For a scheduling round too: pass the spec (e.g. rebuilt from the plan issues' bodies)
 * and the spec's plan issues as listed (labels harness:plan and spec:<id>, state all).
 */
export async function refreshStatusComment(
  github: Gateway,
  memory: Pick<AppMemory, 'statusComments' | 'clock'>,
  pull: number,
  spec: Spec,
  issues: readonly TrackedIssue[],
  options: RefreshOptions = {},
): Promise<'created' | 'updated' | 'unchanged' | 'deferred'> {
  const marker = statusMarker(spec.id);
  const table = statusComment(spec, matchPlanIssues(spec.id, issues).byPlan, ISSUE_BODY_LIMIT);
  const notes = [
    ...(options.held ? [`> ⏸️ Spend cap: ${options.held}`] : []),
    ...(options.waiting ? [`> ⏳ ${describeWait(options.waiting)}: the App's next requests wait for it, and plans start then.`] : []),
  ];
  const body = notes.length > 0 ? `${table}\n\n${notes.join('\n>\n')}\n` : table;
  const key = `${github.repo.owner}/${github.repo.repo}#${pull} ${spec.id}`;
  // Where the App last left each status comment, what it said and when: `owner/repo#pull spec` → the comment.
  const written = memory.statusComments;
  const remember = (comment: { id: number; body: string }) => void written.set(key, { ...comment, at: memory.clock.now() });
  const known = options.dedupe ? undefined : written.get(key);
  if (known) {
    if (known.body === body) return 'unchanged';
    const running = options.coalesce === true ? 1 : options.coalesce || 0;
    if (running > 0 && memory.clock.now() - known.at < statusCommentInterval(running)) return 'deferred';
    try {
      await github.updateComment(known.id, body);
      remember({ id: known.id, body });
      return 'updated';
    } catch (e) {
      // Deleted meanwhile: found (or made) again below.
      if (!(e instanceof GitHubError) || e.status !== 404) throw e;
      written.delete(key);
    }
  }
  // Only the App's own comment counts: a person or another bot typing the marker must not have their comment rewritten, nor hide the status.
  const mine = (c: { body: string }) => c.body.startsWith(marker);
  let existing: Awaited<ReturnType<typeof ownComment>>;
  if (options.dedupe) {
    const all = await ownComments(github, pull, mine);
    existing = all[0];
    for (const extra of all.slice(1)) await github.deleteComment(extra.id);
  } else existing = await ownComment(github, pull, mine);
  if (!existing) {
    const created = await github.comment(pull, body);
    // GitHub has no conditional create: another delivery may have written one meanwhile. The oldest stays, the others go.
    const all = await ownComments(github, pull, mine);
    const oldest = all[0] ?? created;
    for (const extra of all.slice(1)) await github.deleteComment(extra.id);
    remember({ id: oldest.id, body });
    if (oldest.id === created.id) return 'created';
    if (oldest.body !== body) await github.updateComment(oldest.id, body);
    return 'updated';
  }
  remember({ id: existing.id, body });
  if (existing.body === body) return 'unchanged';
  await github.updateComment(existing.id, body);
  return 'updated';
}
