import { matchPlanIssues, type TrackedIssue } from '../../engine/forge/match-issues.js';
import { statusMarker } from '../../engine/forge/names.js';
import { statusComment } from '../../engine/forge/status-comment.js';
import type { Spec } from '../../engine/core/spec/model.js';
import type { Gateway } from '../../gateway/gateway.js';
import { ownComment } from './own-comment.js';
import { ISSUE_BODY_LIMIT } from '../../gateway/limits.js';

/**
 * The sticky status comment on a spec PR (`<!-- harness:status <spec> -->` first), created
 * the first time and edited afterwards, and only when its text changes: the comments are
 * read (usually one page), and nothing is written when the rendering is the same.
 *
 * For a scheduling round too: pass the spec (e.g. rebuilt from the plan issues' bodies)
 * and the spec's plan issues as listed (labels harness:plan and spec:<id>, state all).
 */
export async function refreshStatusComment(
  github: Gateway,
  pull: number,
  spec: Spec,
  issues: readonly TrackedIssue[],
): Promise<'created' | 'updated' | 'unchanged'> {
  const marker = statusMarker(spec.id);
  const body = statusComment(spec, matchPlanIssues(spec.id, issues).byPlan, ISSUE_BODY_LIMIT);
  // Only the App's own comment counts: a person or another bot typing the marker must not have their comment rewritten, nor hide the status.
  const existing = await ownComment(github, pull, (c) => c.body.startsWith(marker));
  if (!existing) {
    await github.comment(pull, body);
    return 'created';
  }
  if (existing.body === body) return 'unchanged';
  await github.updateComment(existing.id, body);
  return 'updated';
}
