import { humanCheckpoint } from '../engine/core/verify/human-checkpoint.js';
import type { HumanAnswer } from '../engine/core/verify/levels.js';
import type { Checkpoint } from '../engine/core/protocol/messages.js';
import type { HumanCheck, Plan } from '../engine/core/spec/model.js';
import { isApproval } from '../engine/lifecycle/approval.js';
import type { GivenAnswer } from './answer-comments.js';

/** The checkpoint a human check becomes on the plan issue (the local runner names it the same). */
export function humanCheckpointId(check: string): string {
  return `check-${check}`;
}

/** The question for a human check: approve or reject, as the app's Approve button answers. */
export function humanCheckQuestion(check: HumanCheck): Checkpoint {
  return { ...humanCheckpoint(check), id: humanCheckpointId(check.id), options: ['approve', 'reject'] };
}

/**
 * The answers to a plan's human checks that stand. An approval is of the work as it was when
 * given: with `since` (when the branch's head was committed), an answer older than the work is
 * no answer, so work redone after a retry is looked at again.
 */
export function humanAnswers(plan: Plan, given: ReadonlyMap<string, GivenAnswer>, since?: Date): Record<string, HumanAnswer> {
  const answers: Record<string, HumanAnswer> = {};
  for (const check of plan.mustPass) {
    if (check.type !== 'human') continue;
    const answer = given.get(humanCheckpointId(check.id));
    if (!answer || (since !== undefined && Date.parse(answer.at) < since.getTime())) continue;
    answers[check.id] = { passed: isApproval(answer.answer), by: answer.by, note: answer.answer };
  }
  return answers;
}
