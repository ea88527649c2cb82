import type { Context } from 'probot';
import { WORKER_WORKFLOW } from '../../engine/forge/names.js';

type Octokit = Context['octokit'];

/** The worker workflow's `workflow_dispatch` inputs (docs/design.md, Names on GitHub). */
export interface WorkerInputs {
  spec: string;
  /** A plan id, or `phase-PP` for phase-level verification. */
  plan: string;
  /** True to continue the work on the existing plan branch (verify, respond) rather than start it. */
  resume: boolean;
}

/**
 * POST /repos/{owner}/{repo}/actions/workflows/harness-worker.yml/dispatches (204). `ref` is
 * the branch whose copy of the workflow runs. Inputs are strings: a `workflow_dispatch`
 * input of type boolean still arrives as text, so "true"/"false" is what the worker reads.
 */
export async function dispatchWorker(octokit: Octokit, repo: { owner: string; repo: string }, ref: string, inputs: WorkerInputs): Promise<void> {
  await octokit.rest.actions.createWorkflowDispatch({
    ...repo,
    workflow_id: WORKER_WORKFLOW,
    ref,
    inputs: { spec: inputs.spec, plan: inputs.plan, resume: inputs.resume ? 'true' : 'false' },
  });
}

export interface WorkerRun {
  id: number;
  displayTitle: string;
  status: string;
}

/** Statuses of a run that has not finished and can still be cancelled. */
const UNFINISHED = ['queued', 'in_progress'] as const;

/**
 * The worker's runs that have not finished: GET .../actions/workflows/harness-worker.yml/runs
 * with `status=queued` and `status=in_progress` (the filter takes one status at a time). A run
 * dispatched a moment ago is still queued, and an abort must catch it too.
 */
export async function unfinishedWorkerRuns(octokit: Octokit, repo: { owner: string; repo: string }): Promise<WorkerRun[]> {
  const runs: WorkerRun[] = [];
  for (const status of UNFINISHED) {
    const found = await octokit.paginate(octokit.rest.actions.listWorkflowRuns, { ...repo, workflow_id: WORKER_WORKFLOW, status, per_page: 100 });
    for (const run of found) runs.push({ id: run.id, displayTitle: run.display_title, status: run.status ?? status });
  }
  return runs;
}

/** POST /actions/runs/{run_id}/cancel (202). A run that finished meanwhile answers 409: nothing left to cancel. */
export async function cancelRun(octokit: Octokit, repo: { owner: string; repo: string }, runId: number): Promise<'cancelling' | 'finished'> {
  try {
    await octokit.rest.actions.cancelWorkflowRun({ ...repo, run_id: runId });
    return 'cancelling';
  } catch (e) {
    if ((e as { status?: number }).status === 409) return 'finished';
    throw e;
  }
}
