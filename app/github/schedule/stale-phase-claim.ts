import type { Context } from 'probot';
import { abandoned, phaseRanRef, phaseTakeoverRef } from '../../engine/forge/claims.js';
import { targetBranch, targetCheck, workerRunTitle, type WorkerTarget } from '../../engine/forge/worker-target.js';
import { appGateway } from '../app-gateway.js';

/**
 * Phases whose verification claim has no worker behind it, released so the round can claim
 * and dispatch them again. A phase's claim is its branch `harness/<spec>/phase-PP`, created
 * before its worker is dispatched; a delivery that died in between leaves the branch, and
 * every later round took the phase for claimed: its verification never ran, and the spec never
 * ended. The branch outlives the run, so a run that ended says so under
 * refs/harness/phases/<spec>/<phase>/ran (worker-run.ts); a claim without that record, without
 * a worker run under way, without the phase's check run (the App creates it right after the
 * dispatch) and older than the grace period is dead. The one delivery that creates its
 * takeover ref deletes the branch.
 *
 * Asked only in a round that leaves the spec idle (nothing running, nothing started): that is
 * when a dead claim stalls the spec, and it keeps the reads of every other round as they were.
 * Its reads: one listing of the phases' records, then for a phase without one the unfinished
 * worker runs (once), its check runs and its branch's creation.
 */
export async function recoverPhaseClaims(
  context: Context,
  spec: string,
  complete: readonly string[],
  claimed: ReadonlyMap<string, string>,
  now: Date,
): Promise<string[]> {
  const suspects = complete.filter((phase) => claimed.has(phase));
  if (suspects.length === 0) return [];
  const github = appGateway(context);
  const records = await github.claimRefsWithPrefix(`harness/phases/${spec}/`);
  const open = suspects.filter((phase) => !records.has(phaseRanRef(spec, phase)));
  if (open.length === 0) return [];
  const runs = await github.unfinishedWorkerRuns();
  const released: string[] = [];
  for (const phase of open) {
    const target: WorkerTarget = { kind: 'phase', spec, phase };
    if (runs.some((r) => r.displayTitle === workerRunTitle(target))) continue;
    const sha = claimed.get(phase)!;
    const checks = await github.checkRuns(sha, targetCheck(target));
    if (checks.length > 0) {
      // Dispatched: its end was not recorded (a phase verified before these records existed, or a lost delivery). Recorded once it is over.
      if (checks.every((c) => c.status === 'completed')) await github.createClaimRef(phaseRanRef(spec, phase), sha);
      continue;
    }
    const branch = targetBranch(target);
    const createdAt = await github.branchCreatedAt(branch);
    if (createdAt === undefined || !abandoned(createdAt, now)) continue;
    if (!(await github.takeOver(phaseTakeoverRef(spec, phase, String(createdAt.getTime())), sha))) continue;
    context.log.warn(
      `${spec}: the verification of phase ${phase} was claimed (${branch}) longer ago than the grace period and never dispatched; releasing the claim`,
    );
    await github.deleteBranch(branch);
    released.push(phase);
  }
  return released;
}
