import type { Spec } from '../../engine/core/spec/model.js';
import { graphCommentMarker, isPendingComment, undoneComment } from '../../engine/forge/graph-proposal.js';
import { parseMarker } from '../../engine/forge/plan-issue.js';
import type { Gateway } from '../../gateway/gateway.js';
import type { IssueRecord } from '../../gateway/issues.js';
import { upsertGraphComment } from './graph-comment.js';

/**
 * The fallback for changes to the issue graph the App saw no event for: the sync compares the
 * links GitHub has with the spec and takes away those between the spec's plan issues that the
 * spec does not have (DependencyMirror.undone). Without the event there is no sender, so nothing
 * is proposed; the dependent plan's issue says what happened and how to propose it, in the same
 * one comment per edge as for an event (graph-comment.ts), so a sync twice says it once; a
 * comment that says a writer's proposal of that link is pending is left as it is.
 */
export async function noteUndoneLinks(
  github: Gateway,
  input: { spec: Spec; specPath: string; pull: number },
  issues: ReadonlyMap<string, IssueRecord>,
  undone: ReadonlyMap<number, string[]>,
): Promise<void> {
  const byNumber = new Map([...issues.values()].map((i) => [i.number, i]));
  for (const [number, ons] of undone) {
    const plan = parseMarker(byNumber.get(number)?.body)?.plan;
    const file = plan === undefined ? undefined : input.spec.planById.get(plan)?.file;
    if (plan === undefined || file === undefined) continue;
    for (const on of ons) {
      const onNumber = issues.get(on)?.number;
      if (onNumber === undefined) continue;
      const edge = { spec: input.spec.id, plan, on };
      // A writer's proposal still pending says more than this: the link goes, the proposal stays.
      await upsertGraphComment(
        github,
        number,
        graphCommentMarker(edge),
        undoneComment(edge, { plan: number, on: onNumber }, input.pull, `${input.specPath}/${file}`),
        false,
        isPendingComment,
      );
    }
  }
}
