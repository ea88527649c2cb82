import { WORKER_WORKFLOW } from '../engine/forge/names.js';
import { createOnce, NO_RETRY } from './create-once.js';
import { GitHubError, hasStatus } from './github-error.js';
import { PAGE_SIZE } from './limits.js';
import { paginate } from './paginate.js';
import type { GatewayRequest, Repo } from './request.js';

/** The worker workflow's `workflow_dispatch` inputs (docs/design.md, Names on GitHub). */
export interface WorkerInputs {
  spec: string;
  /** A plan id, or `phase-PP` for phase-level verification. */
  plan: string;
  /** True to continue the work on the existing plan branch (verify, respond) rather than start it. */
  resume: boolean;
  /**
   * How many plans may run at once under the same token (input `running`): the worker thins its
   * live progress writes to share GitHub's limits with them (limit-model.ts, progressIntervalMs).
   */
  running?: number;
}

/** The run a dispatch started, as GitHub names it when asked to (`return_run_details`). */
export interface DispatchedRun {
  id: number;
  /** The run in the REST API. */
  url: string;
  /** The run's page. */
  htmlUrl: string;
}

/**
 * POST /repos/{owner}/{repo}/actions/workflows/harness-worker.yml/dispatches with
 * `return_run_details: true`: GitHub answers 200 with `workflow_run_id`, `run_url` and
 * `html_url`, so the run is known at once, never searched for. A GitHub that predates the
 * parameter answers 204 without them: undefined then. `ref` is the branch whose copy of the
 * workflow runs. Inputs are strings: a `workflow_dispatch` input of type boolean still arrives
 * as text, so "true"/"false" is what the worker reads.
 */
export async function dispatchWorker(request: GatewayRequest, repo: Repo, ref: string, inputs: WorkerInputs): Promise<DispatchedRun | undefined> {
  const params = {
    ...repo,
    workflow_id: WORKER_WORKFLOW,
    ref,
    inputs: {
      spec: inputs.spec,
      plan: inputs.plan,
      resume: inputs.resume ? 'true' : 'false',
      ...(inputs.running === undefined ? {} : { running: String(inputs.running) }),
    },
    return_run_details: true,
  };
  // Octokit's route types predate return_run_details (February 2026). Never retried blind: a
  // dispatch whose answer was lost may have started a worker, and a second would run the plan twice.
  const post = (body: object) =>
    request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', { ...body, ...NO_RETRY } as never) as Promise<{
      status: number;
      data: unknown;
    }>;
  const dispatch = (body: object) =>
    createOnce(
      () => post(body),
      () => findDispatchedRun(request, repo, inputs),
      1,
    );
  let response: { status: number; data: unknown };
  try {
    response = await dispatch(params);
  } catch (e) {
    // A workflow written before the input (harness-worker.yml without `running`) refuses it: "Unexpected inputs provided: [\"running\"]". Asked again without it, the worker writes at its own pace.
    if (e instanceof GitHubError && e.status === 422 && /unexpected inputs/i.test(e.reason) && /running/.test(e.reason) && 'running' in params.inputs) {
      const { running: _running, ...older } = params.inputs;
      return dispatchWorker(request, repo, ref, { spec: older.spec, plan: older.plan, resume: inputs.resume });
    }
    // A GitHub Enterprise Server older than the parameter refuses the whole request (400 or 422 naming it): dispatched again without it, the run is found by its title as before.
    if (!(e instanceof GitHubError) || (e.status !== 400 && e.status !== 422) || !/return_run_details|not a permitted key/i.test(e.reason)) throw e;
    const { return_run_details: _dropped, ...plain } = params;
    response = await dispatch(plain);
  }
  const data = response.data as { workflow_run_id?: unknown; run_url?: unknown; html_url?: unknown } | undefined;
  if (response.status !== 200 || typeof data?.workflow_run_id !== 'number') return undefined;
  return { id: data.workflow_run_id, url: String(data.run_url ?? ''), htmlUrl: String(data.html_url ?? '') };
}

/**
 * The run a dispatch whose answer was lost started, if GitHub started it: an unfinished run of
 * the worker titled `harness <spec>/<plan>` (the workflow's run-name), the newest. Not found,
 * the dispatch's error stands and nothing is sent again: the plan's claim then has no run behind
 * it, and a later round takes it over once its grace period is past (stale-claim recovery).
 */
async function findDispatchedRun(request: GatewayRequest, repo: Repo, inputs: WorkerInputs): Promise<{ status: number; data: unknown } | undefined> {
  const title = `harness ${inputs.spec}/${inputs.plan}`;
  const [run] = (await unfinishedWorkerRuns(request, repo)).filter((r) => r.displayTitle === title).sort((a, b) => b.id - a.id);
  return run ? { status: 200, data: { workflow_run_id: run.id, run_url: run.url ?? '', html_url: run.htmlUrl ?? '' } } : undefined;
}

export interface WorkerRun {
  id: number;
  displayTitle: string;
  status: string;
  /** The run in the REST API and its page, where GitHub said. */
  url?: string;
  htmlUrl?: string;
}

/** Statuses of a run that has not finished and can still be cancelled. */
const UNFINISHED = ['queued', 'in_progress'] as const;

interface RawRun {
  id: number;
  display_title: string;
  status: string | null;
  url?: string;
  html_url?: string;
}

/**
 * The worker's runs that have not finished: GET .../actions/workflows/harness-worker.yml/runs
 * with `status=queued` and `status=in_progress` (the filter takes one status at a time). A run
 * dispatched a moment ago is still queued, and an abort must catch it too.
 */
export async function unfinishedWorkerRuns(request: GatewayRequest, repo: Repo): Promise<WorkerRun[]> {
  const runs: WorkerRun[] = [];
  for (const status of UNFINISHED) {
    const found = await paginate<RawRun>(
      request,
      'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs',
      { ...repo, workflow_id: WORKER_WORKFLOW, status, per_page: PAGE_SIZE },
      (data) => (data as { workflow_runs: RawRun[] }).workflow_runs,
    );
    for (const run of found)
      runs.push({
        id: run.id,
        displayTitle: run.display_title,
        status: run.status ?? status,
        ...(run.url ? { url: run.url } : {}),
        ...(run.html_url ? { htmlUrl: run.html_url } : {}),
      });
  }
  return runs;
}

/** POST /actions/runs/{run_id}/cancel (202). A run that finished meanwhile answers 409: nothing left to cancel. */
export async function cancelRun(request: GatewayRequest, repo: Repo, runId: number): Promise<'cancelling' | 'finished'> {
  try {
    await request('POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel', { ...repo, run_id: runId });
    return 'cancelling';
  } catch (e) {
    if (hasStatus(e, 409)) return 'finished';
    throw e;
  }
}
