import { RETRY_ACTION } from '../../engine/forge/check-actions.js';
import { planBranch, planCheck } from '../../engine/forge/names.js';
import { listCheckRuns, updateCheckRun } from '../resources/check-runs.js';
import type { Invocation } from './invocation.js';

/**
 * The plan's `harness / plan <id>` check runs that are still open (queued, in progress, or
 * waiting for a person at a checkpoint), on the plan branch. A plan that never got a branch
 * has none: GitHub answers 404 or 422 for the ref.
 */
export async function openPlanCheckRuns(inv: Invocation, spec: string, plan: string): Promise<number[]> {
  try {
    const runs = await listCheckRuns(inv.octokit, inv.repo, planBranch(spec, plan), planCheck(plan));
    return runs.filter((r) => r.status !== 'completed' || r.conclusion === 'action_required').map((r) => r.id);
  } catch (e) {
    const status = (e as { status?: number }).status;
    if (status === 404 || status === 422) return [];
    throw e;
  }
}

/**
 * The check run concluded `cancelled`, with a Retry button in place of whatever it offered,
 * since retry is what an aborted plan takes next (the same button a failed run gets).
 */
export async function cancelCheckRun(inv: Invocation, checkRunId: number, summary: string): Promise<void> {
  await updateCheckRun(inv.octokit, inv.repo, checkRunId, {
    status: 'completed',
    conclusion: 'cancelled',
    output: { title: 'Aborted', summary },
    actions: [RETRY_ACTION],
  });
}
