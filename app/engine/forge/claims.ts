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
  return `refs/harness/plans/${spec}/${plan}/answers/${questionId}`;
}

/**
 * The ref that claims the resuming of a plan paused at the model's usage limit until `at` (the
 * marker's `resume_at=`): of two rounds that find the pause over, the first to create it
 * resumes the plan, the other finds it taken. A later pause has another time, so another ref.
 */
export function resumeClaimRef(spec: string, plan: string, at: Date): string {
  return `refs/harness/plans/${spec}/${plan}/resume/${at.getTime()}`;
}

/**
 * The ref that keeps a plan branch's work when a retry starts the plan afresh: the branch is
 * deleted (it is the scheduler's claim), its commits stay reachable here.
 */
export function keptWorkRef(spec: string, plan: string, sha: string): string {
  return `refs/harness/kept/${spec}/${plan}/${sha.slice(0, 12)}`;
}

/**
 * The ref that settles who takes over one abandoned claim of a plan (`what`: `branch`, or
 * `answer-<question>`). It is named after the claim as it was found (`identity`: its tag
 * object, or for a branch the time it was created), so of two deliveries that both judge that
 * claim abandoned only the first to create this ref deletes and retakes it; the other finds it
 * taken and leaves the plan alone. (Deleting and creating again, without it, let both delete,
 * both create and both dispatch.) A delivery that reads the claim after it was retaken finds a
 * fresh claim, and one still holding the old reading finds this ref: so these refs stay until
 * the plan ends (planClaimsPrefix).
 */
export function takeoverRef(spec: string, plan: string, what: string, identity: string): string {
  return `refs/harness/plans/${spec}/${plan}/takeover/${what}-${identity.replace(/[^A-Za-z0-9._-]/g, '-')}`;
}

/** Every plan claim of a spec: planClaimsPrefix's parent. */
export function specClaimsPrefix(spec: string): string {
  return `harness/plans/${spec}/`;
}

/**
 * Where every claim of a plan's steps lives (without `refs/` and ending in `/`, as GET
 * /git/matching-refs takes a prefix): the answer claims of its checkpoints and the takeover
 * refs. All deleted, in one listing, when the plan ends; the work kept under refs/harness/kept/
 * is not a claim and stays until a person deletes it.
 */
export function planClaimsPrefix(spec: string, plan: string): string {
  return `harness/plans/${spec}/${plan}/`;
}

/**
 * The record that a phase's verification worker ran to its end (any conclusion), written when
 * its run completes. A phase's branch is its claim and outlives the run, so without this a
 * verified phase and a claim whose delivery died before dispatching look the same.
 */
export function phaseRanRef(spec: string, phase: string): string {
  return `refs/harness/phases/${spec}/${phase}/ran`;
}

/** The takeover ref of a phase's abandoned claim (takeoverRef, for the phase's branch). */
export function phaseTakeoverRef(spec: string, phase: string, identity: string): string {
  return `refs/harness/phases/${spec}/${phase}/takeover-${identity.replace(/[^A-Za-z0-9._-]/g, '-')}`;
}
