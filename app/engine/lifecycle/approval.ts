const APPROVALS = /^(y|yes|ok|okay|approve|approved|pass|passed|accept|accepted|lgtm|done)\b/i;

/** Does an answer to a verification checkpoint (or a human check) approve it? */
export function isApproval(answer: string): boolean {
  return APPROVALS.test(answer.trim());
}
