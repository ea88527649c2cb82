import type { Checkpoint, OrchestratorMessage } from '../core/protocol/messages.js';
import type { HumanCheck } from '../core/spec/model.js';
import { humanCheckpoint } from '../core/verify/human-checkpoint.js';
import type { HumanAnswer } from '../core/verify/levels.js';

/**
 * A person's answers, whichever way they arrive (a file or the terminal on this machine, a
 * comment on the plan issue on a runner), and what the lifecycle makes of them.
 */

/** An answer to a checkpoint, with who gave it and when, where the runtime knows. */
export interface GivenAnswer {
  answer: string;
  by?: string;
  /** When it was given (ISO-8601): an approval given before the work it approves is of other work. */
  at?: string;
}

const APPROVALS = /^(y|yes|ok|okay|approve|approved|pass|passed|accept|accepted|lgtm|done)\b/i;

/** Does an answer to a verification checkpoint (or a human check) approve it? */
export function isApproval(answer: string): boolean {
  return APPROVALS.test(answer.trim());
}

/** The reply an answer makes to the agent waiting at a checkpoint. */
export function responseTo(checkpoint: Checkpoint, answer: string, session: string, at: string): OrchestratorMessage {
  const envelope = { session, at, checkpoint: checkpoint.id };
  if (checkpoint.kind === 'decision') return { ...envelope, type: 'decision_made', answer };
  if (checkpoint.kind === 'verification') return { ...envelope, type: 'verification_result', passed: isApproval(answer), details: answer };
  return { ...envelope, type: 'action_completed', note: answer };
}

/**
 * A human check of the level being verified: `key` is how the report and the answers name it,
 * the check id at plan level and `<plan>/<check>` for a plan's check at phase level.
 */
export interface HumanCheckRef {
  key: string;
  check: HumanCheck;
  plan?: string;
}

/** The checkpoint a human check becomes, on the plan issue and in `.orchestration` alike. */
export function humanCheckpointId(key: string): string {
  return `check-${key}`;
}

/** The question a human check asks: approve or reject, as the app's Approve button answers. */
export function humanCheckQuestion(ref: HumanCheckRef): Checkpoint {
  return { ...humanCheckpoint(ref.check), id: humanCheckpointId(ref.key), options: ['approve', 'reject'] };
}

/** A person's answer to a human check, as verification takes it. */
export function humanAnswer(given: GivenAnswer): HumanAnswer {
  return { passed: isApproval(given.answer), ...(given.by === undefined ? {} : { by: given.by }), note: given.answer };
}
