import type { Context } from 'probot';
import { phaseLabel, specLabel } from '../../engine/forge/names.js';
import type { RoundIssue } from '../../engine/forge/round-plan.js';
import { dispatchedCheck } from '../../engine/forge/worker-outcome.js';
import { targetBranch, targetCheck, targetExternalId, targetInput, type WorkerTarget } from '../../engine/forge/worker-target.js';
import type { StatusMove } from '../../gateway/plan-issues.js';
import type { DispatchedRun } from '../../gateway/workflows.js';
import { appGateway, bookWorkerContent } from '../app-gateway.js';
import { repositoryUrl } from './repository.js';
import { recoverClaim, type BaseHead } from './stale-claim.js';

export type { BaseHead } from './stale-claim.js';

export type DispatchOutcome = 'dispatched' | 'lost';

/** Where a check run's "Details" link goes: the plan issue, or for a phase the search for its plan issues. */
export function detailsUrl(context: Context, target: WorkerTarget, issue?: { number: number }): string {
  const base = repositoryUrl(context);
  if (issue) return `${base}/issues/${issue.number}`;
  const phase = target.kind === 'phase' ? target.phase : target.plan.split('-')[0]!;
  return `${base}/issues?q=${encodeURIComponent(`is:issue label:"${specLabel(target.spec)}" label:"${phaseLabel(phase)}"`)}`;
}

/**
 * Start one worker (docs/github-flow.md, 3), in this order: create the branch at the base
 * head, which is the claim; dispatch the worker workflow on the base branch; create the
 * App-owned check run on the claimed commit; record the plan running (`status=running` on its
 * issue's marker line, then the label `status:running` added and the queued one removed), or,
 * given `statuses`, leave that write to the caller, which makes a round's status writes
 * together (round.ts).
 *
 * Creating a ref is atomic on GitHub: of two deliveries racing for one plan, one gets 201
 * and the other 422 "Reference already exists". The loser does nothing more, so the plan
 * gets one worker, one check run and one status write however many rounds raced for it;
 * unless the claim has no worker behind it past the grace period (stale-claim.ts): then its
 * delivery died, the claim is released and taken again, atomically as ever.
 */
export async function dispatchTarget(
  context: Context,
  target: WorkerTarget,
  base: BaseHead,
  issue?: RoundIssue,
  now: Date = new Date(),
  running?: number,
  statuses?: StatusMove[],
): Promise<DispatchOutcome> {
  const github = appGateway(context);
  const branch = targetBranch(target);
  if ((await github.createBranch(branch, base.sha)) === 'exists') {
    // A claim whose delivery died would hold the plan forever: recovered, or left to the delivery at work.
    const state = target.kind === 'plan' && issue ? await recoverClaim(context, target, issue, base, now) : 'fresh';
    if (state !== 'released' || (await github.createBranch(branch, base.sha)) === 'exists') {
      context.log.info(`${targetExternalId(target)}: ${branch} exists, another delivery claimed it (${state})`);
      return 'lost';
    }
  }
  let run: DispatchedRun | undefined;
  try {
    run = await github.dispatchWorker(base.branch, {
      spec: target.spec,
      plan: targetInput(target),
      resume: false,
      ...(running === undefined ? {} : { running }),
    });
  } catch (e) {
    // A claim without a worker would hold the plan forever (every later claim loses): give it back.
    await github
      .deleteBranch(branch)
      .catch((undo: unknown) => context.log.error(`${branch}: could not delete the claim after a failed dispatch: ${String(undo)}`));
    throw e;
  }
  const check = dispatchedCheck(target, branch, issue);
  let checkFailed: unknown;
  try {
    await github.createCheckRun({
      name: targetCheck(target),
      head_sha: base.sha,
      status: 'queued',
      external_id: targetExternalId(target),
      // The run itself when GitHub named it: its log is where a person looks while the plan runs.
      details_url: run?.htmlUrl || detailsUrl(context, target, issue),
      output: { title: check.title, summary: run ? `${check.summary} Worker run: ${run.htmlUrl}` : check.summary },
      actions: check.actions,
    });
  } catch (e) {
    checkFailed = e;
  }
  // A plan's worker opens its PR under the installation's token: counted now against the content limits (a phase's opens none).
  if (target.kind === 'plan') bookWorkerContent(context);
  // The worker runs whether or not its check run could be made: the record must say so (now, or with the round's other status writes).
  if (issue) {
    if (statuses) statuses.push({ issue, status: 'running' });
    else await github.setStatus(issue, 'running');
  }
  if (checkFailed !== undefined) throw checkFailed;
  context.log.info(`${targetExternalId(target)}: worker dispatched on ${base.branch} from ${base.sha}${run ? ` as run ${run.id}` : ''}`);
  return 'dispatched';
}
