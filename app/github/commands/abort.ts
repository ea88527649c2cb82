import { RETRY_ACTION } from '../../engine/forge/check-actions.js';
import type { Command } from '../../engine/forge/command.js';
import { planBranch, planCheck } from '../../engine/forge/names.js';
import { workerRunTitle } from '../../engine/forge/worker-target.js';
import { interruptedSignal } from '../../engine/lifecycle/signals.js';
import { captureFromApp } from './signals.js';
import { resolveSpec, type Invocation } from './invocation.js';
import { findPlan, setStatus } from './plan-issues.js';
import { isSatisfied } from '../../engine/forge/plan-issue-view.js';

/**
 * `/harness abort <PP-NN>` and the Abort button (docs/github-flow.md, 8): the plan's worker
 * runs that have not finished are cancelled (they are the ones titled `harness <spec>/<plan>`),
 * the plan becomes `status:failed` so that nothing starts it again until someone retries it,
 * and its check run is concluded `cancelled`. A verified plan is done and is left alone.
 */
export async function abort(inv: Invocation, command: Extract<Command, { name: 'abort' }>): Promise<string> {
  const choice = await resolveSpec(inv, command.spec, (spec) => `/harness abort ${spec}/${command.plan}`);
  if (!choice.ok) return `I could not run that: ${choice.message}.`;
  const { spec } = choice;
  const found = await findPlan(inv, spec, command.plan);
  if (typeof found === 'string') return `I could not run that: ${found}.`;
  const { view } = found;
  // Only a queued, running or waiting plan has something to stop. A failed one has no worker
  // left, which also makes a second press of the button a no-op. Where it is, the App's record says.
  if (isSatisfied(view) || view.state === undefined || view.state === 'verified' || view.state === 'failed') {
    const now = isSatisfied(view) ? 'done' : (view.state ?? 'not queued');
    return `${spec} plan ${view.plan} (#${view.number}) is ${now}: there is nothing to abort.`;
  }

  const checkRuns: { id: number; detailsUrl?: string }[] =
    inv.place.kind === 'check'
      ? [{ id: inv.place.checkRunId, ...(inv.place.detailsUrl ? { detailsUrl: inv.place.detailsUrl } : {}) }]
      : await openPlanCheckRuns(inv, spec, view.plan);
  const cancelled: number[] = [];
  for (const id of await runsToCancel(inv, spec, view.plan, checkRuns)) if ((await inv.github.cancelRun(id)) === 'cancelling') cancelled.push(id);
  const before = view.state;
  await setStatus(inv, view, 'failed');

  // Retry is what an aborted plan takes next: the same button a failed run gets, in place of whatever it offered.
  const summary = `Aborted by @${inv.actor}. Retry starts the plan again from scratch.`;
  for (const { id } of checkRuns)
    await inv.github.updateCheckRun(id, { status: 'completed', conclusion: 'cancelled', output: { title: 'Aborted', summary }, actions: [RETRY_ACTION] });

  const what = cancelled.length === 0 ? 'no worker run was in progress' : `cancelled worker run${cancelled.length === 1 ? '' : 's'} ${cancelled.join(', ')}`;
  // A person stopped the plan: that is a signal, on the spec's signals PR (never holding up the answer's truth).
  const by = `@${inv.actor} (${inv.place.kind === 'check' ? 'the Abort button' : '/harness abort'})`;
  await captureFromApp(inv, {
    spec,
    drafts: [
      interruptedSignal({
        spec,
        plans: [{ id: view.plan, title: view.title, phase: view.phase, filesModified: [] }],
        by,
        context: `The plan was ${before}; ${what}.`,
      }),
    ],
    what: `${view.plan} aborted`,
    origin: `abort:${cancelled.length > 0 ? cancelled.join(',') : inv.now().toISOString()}`,
  });
  return `Aborted ${spec} plan ${view.plan} (#${view.number}, was ${before}): ${what}; it is failed now, and retry starts it again.`;
}

/**
 * The plan's `harness / plan <id>` check runs that are still open (queued, in progress, or
 * waiting for a person at a checkpoint), on the plan branch, named as GitHub's docs name a
 * branch for {ref} (`heads/<branch>`, branchCheckRuns). A plan that never got a branch has none.
 */
async function openPlanCheckRuns(inv: Invocation, spec: string, plan: string): Promise<{ id: number; detailsUrl?: string }[]> {
  const runs = (await inv.github.branchCheckRuns(planBranch(spec, plan), planCheck(plan))) ?? [];
  return runs
    .filter((r) => r.status !== 'completed' || r.conclusion === 'action_required')
    .map((r) => ({ id: r.id, ...(r.detailsUrl ? { detailsUrl: r.detailsUrl } : {}) }));
}

/**
 * The worker runs to cancel: the ones the plan's open check runs record (the dispatch set
 * each one's "Details" link to its run, as `return_run_details` named it), with no search.
 * A check run from before that, or a resumed run the App did not record, names none: then
 * the worker's unfinished runs are searched for the plan's run title, as before.
 */
async function runsToCancel(inv: Invocation, spec: string, plan: string, checkRuns: readonly { detailsUrl?: string }[]): Promise<number[]> {
  const recorded = [...new Set(checkRuns.map((r) => runIdOf(r.detailsUrl, inv.github.repo)).filter((id): id is number => id !== undefined))];
  if (recorded.length > 0) return recorded;
  const title = workerRunTitle({ kind: 'plan', spec, plan });
  return (await inv.github.unfinishedWorkerRuns()).filter((r) => r.displayTitle === title).map((r) => r.id);
}

/** The run id in a run's (or one of its jobs') page in this repository: `…/<owner>/<repo>/actions/runs/<id>`. */
export function runIdOf(url: string | undefined, repo: { owner: string; repo: string }): number | undefined {
  const m = /^https:\/\/[^/]+\/([^/]+)\/([^/]+)\/actions\/runs\/(\d+)(?:[/?#]|$)/.exec(url ?? '');
  if (!m || m[1]!.toLowerCase() !== repo.owner.toLowerCase() || m[2]!.toLowerCase() !== repo.repo.toLowerCase()) return undefined;
  return Number(m[3]);
}
