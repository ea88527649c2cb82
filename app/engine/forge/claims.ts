/**
 * The claims harness takes in a repository so that a step happens once, and how a claim left
 * by a delivery that died is told from one whose delivery is still at work. The App keeps no
 * state of its own: the claims are refs in the repository, and their age is GitHub's record.
 */

/**
 * How long the steps after a claim may take before the claim counts as abandoned. Those steps
 * are a few requests (seconds); a delivery in an Actions job is stopped after ten minutes at
 * most, a webhook delivery long before. Two minutes leaves a slow API room without leaving a
 * plan stuck for long.
 */
export const CLAIM_GRACE_MS = 2 * 60_000;

/** Is a claim taken at `at` abandoned by `now`? A claim of unknown age is taken as fresh: waiting is safe, acting twice is not. */
export function abandoned(at: Date | undefined, now: Date): boolean {
  return at !== undefined && now.getTime() - at.getTime() >= CLAIM_GRACE_MS;
}

/**
 * The ref that claims the answer to one checkpoint question (the question's comment id, unique
 * on GitHub): the first delivery of `respond` or of the Approve button to create it answers and
 * dispatches; every other finds it taken.
 */
export function answerClaimRef(spec: string, plan: string, questionId: number): string {
  return `refs/harness/answers/${spec}/${plan}/${questionId}`;
}

/**
 * The ref that keeps a plan branch's work when a retry starts the plan afresh: the branch is
 * deleted (it is the scheduler's claim), its commits stay reachable here.
 */
export function keptWorkRef(spec: string, plan: string, sha: string): string {
  return `refs/harness/kept/${spec}/${plan}/${sha.slice(0, 12)}`;
}
