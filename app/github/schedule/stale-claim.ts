import type { Context } from 'probot';
import { abandoned, keptWorkRef, takeoverRef } from '../../engine/forge/claims.js';
import type { RoundIssue } from '../../engine/forge/round-plan.js';
import { targetBranch, workerRunTitle, type WorkerTarget } from '../../engine/forge/worker-target.js';
import { appGateway } from '../app-gateway.js';

/** The base branch and the commit of it a round read once and starts every branch from. */
export interface BaseHead {
  branch: string;
  sha: string;
}

export type ClaimState =
  /** A worker runs for the plan: the claim's delivery dispatched it and died before the record, which now says running. */
  | 'running'
  /** Taken within the grace period (or of unknown age): its delivery may be at work, so it is left alone. */
  | 'fresh'
  /** No worker behind it past the grace period: deleted, so the plan can be claimed again. */
  | 'released'
  /** Abandoned, and another delivery is taking it over (it created the takeover ref first). */
  | 'contended';

/**
 * A plan's branch exists, yet the round read the plan as waiting to start: another delivery's
 * claim. Either that delivery is at work (a race, the usual case), or it died between the
 * claim and the dispatch (or between the dispatch and the record), and the claim would hold
 * the plan forever. A worker run of the plan not finished (its title `harness <spec>/<plan>`)
 * means the dispatch went through: the record (and its label) follows. No run and a branch created longer
 * ago than the grace period (GitHub's activity record) means nobody will dispatch it: the
 * branch is released, its commits kept under refs/harness/kept/ when it holds any beyond the
 * base, since a claim is a bare branch and anything more is someone's work.
 */
export async function recoverClaim(
  context: Context,
  target: Extract<WorkerTarget, { kind: 'plan' }>,
  issue: RoundIssue,
  base: BaseHead,
  now: Date,
): Promise<ClaimState> {
  const github = appGateway(context);
  const title = workerRunTitle(target);
  const run = (await github.unfinishedWorkerRuns()).find((r) => r.displayTitle === title);
  if (run) {
    await github.setStatus(issue, 'running');
    return 'running';
  }
  const branch = targetBranch(target);
  const createdAt = await github.branchCreatedAt(branch);
  if (createdAt === undefined || !abandoned(createdAt, now)) return 'fresh';
  // Two rounds may find the same claim abandoned: only the one that takes it over releases it.
  if (!(await github.takeOver(takeoverRef(target.spec, target.plan, 'branch', String(createdAt.getTime())), base.sha))) return 'contended';
  const head = await github.branchSha(branch);
  if (head !== undefined && head !== base.sha) await github.createClaimRef(keptWorkRef(target.spec, target.plan, head), head);
  context.log.warn(`${target.spec}/${target.plan}: ${branch} was claimed longer ago than the grace period and no worker runs for it; releasing the claim`);
  await github.deleteBranch(branch);
  return 'released';
}
