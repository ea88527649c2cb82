import type { Context } from 'probot';
import { SETTLED_BY_APP, type CheckState } from '../../engine/forge/worker-outcome.js';
import { targetCheck, targetExternalId, type WorkerTarget } from '../../engine/forge/worker-target.js';
import type { CheckRun } from '../../gateway/check-runs.js';
import { appGateway } from '../app-gateway.js';

export interface CheckPlaces {
  /** The head of the plan (or phase) branch now: where its pull request shows checks. */
  head: string;
  /** The commit the finished run was dispatched at, where the round created the check run. */
  runSha?: string;
  detailsUrl: string;
  /** The target's check run at `head` when the caller has read it (null: there is none); read here otherwise. */
  atHead?: CheckRun | null;
}

/**
 * Bring a target's check run to `state` when a worker run finished, unless the worker wrote
 * its final state already (it owns the check run while it runs): the App never writes its
 * fixed texts over the worker's. The round created it,
 * queued, on the claimed commit, which is the branch head until the worker pushes; once the
 * worker has pushed, the plan PR shows the checks of the new head, so the check is created
 * there too, and the one on the claimed commit (found through the run's head_sha, the base
 * head it was dispatched at) is concluded rather than left queued. A check run already in
 * the wanted state is not written: a redelivered event changes nothing.
 */
export async function settleCheck(context: Context, target: WorkerTarget, state: CheckState, places: CheckPlaces): Promise<void> {
  const github = appGateway(context);
  const name = targetCheck(target);
  const conclusion = state.conclusion ?? 'success';
  const output = { title: state.title, summary: state.summary, text: SETTLED_BY_APP };
  const externalId = targetExternalId(target);
  // Plan ids repeat across specs and their branches may start at one commit: the external id tells them apart.
  const find = async (sha: string) => (await github.checkRuns(sha, name)).find((r) => r.externalId === externalId);
  // A completed check run has its final word: the worker's (its summary, checks, cost), an abort's, or an earlier settling.
  // Only one the worker could not finish (the job was cancelled, or never started) is settled here.
  const settle = async (run: { id: number; status: string }) => {
    if (run.status !== 'completed') await github.updateCheckRun(run.id, { status: 'completed', conclusion, output, actions: state.actions });
  };
  const atHead = places.atHead === undefined ? await find(places.head) : (places.atHead ?? undefined);
  // The claimed commit's check run is concluded before the head's, by a worker holding the App's token (live-check.ts,
  // finish) and here alike: the head's complete and written by an App other than Actions, both are, and the claimed
  // commit's need not be read. A job with only GITHUB_TOKEN (app `github-actions`) could not touch the App's.
  if (atHead?.status === 'completed' && atHead.app !== undefined && atHead.app !== 'github-actions') return;
  const runSha = places.runSha ?? places.head;
  if (runSha !== places.head) {
    const claimed = await find(runSha);
    if (claimed) await settle(claimed);
  }
  if (atHead) await settle(atHead);
  else {
    await github.createCheckRun({
      name,
      head_sha: places.head,
      status: 'completed',
      conclusion,
      external_id: externalId,
      details_url: places.detailsUrl,
      output,
      actions: state.actions,
    });
  }
}
