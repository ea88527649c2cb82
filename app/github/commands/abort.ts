import { RETRY_ACTION } from '../../engine/forge/check-actions.js';
import type { Command } from '../../engine/forge/command.js';
import { planBranch, planCheck } from '../../engine/forge/names.js';
import { workerRunTitle } from '../../engine/forge/worker-target.js';
import { hasStatus } from '../../gateway/github-error.js';
import { interruptedSignal } from '../../engine/lifecycle/signals.js';
import { captureFromApp } from './signals.js';
import { resolveSpec, type Invocation } from './invocation.js';
import { findPlan, setStatus } from './plan-issues.js';

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
  // left, which also makes a second press of the button a no-op.
  if (!view.open || view.status === undefined || view.status === 'verified' || view.status === 'failed') {
    const now = !view.open ? 'closed' : (view.status ?? 'not queued');
    return `${spec} plan ${view.plan} (#${view.number}) is ${now}: there is nothing to abort.`;
  }

  const title = workerRunTitle({ kind: 'plan', spec, plan: view.plan });
  const runs = (await inv.github.unfinishedWorkerRuns()).filter((r) => r.displayTitle === title);
  const cancelled: number[] = [];
  for (const run of runs) if ((await inv.github.cancelRun(run.id)) === 'cancelling') cancelled.push(run.id);
  const before = view.status;
  await setStatus(inv, view, 'failed');

  const checkRuns = inv.place.kind === 'check' ? [inv.place.checkRunId] : await openPlanCheckRuns(inv, spec, view.plan);
  // Retry is what an aborted plan takes next: the same button a failed run gets, in place of whatever it offered.
  const summary = `Aborted by @${inv.actor}. Retry starts the plan again from scratch.`;
  for (const id of checkRuns) await inv.github.updateCheckRun(id, { status: 'completed', conclusion: 'cancelled', output: { title: 'Aborted', summary }, actions: [RETRY_ACTION] });

  const what = cancelled.length === 0 ? 'no worker run was in progress' : `cancelled worker run${cancelled.length === 1 ? '' : 's'} ${cancelled.join(', ')}`;
  // A person stopped the plan: that is a signal, on the spec's signals PR (never holding up the answer's truth).
  const by = `@${inv.actor} (${inv.place.kind === 'check' ? 'the Abort button' : '/harness abort'})`;
  await captureFromApp(inv, {
    spec,
    drafts: [interruptedSignal({ spec, plans: [{ id: view.plan, title: view.title, phase: view.phase, filesModified: [] }], by, context: `The plan was ${before}; ${what}.` })],
    what: `${view.plan} aborted`,
    origin: `abort:${cancelled.length > 0 ? cancelled.join(',') : inv.now().toISOString()}`,
  });
  return `Aborted ${spec} plan ${view.plan} (#${view.number}, was ${before}): ${what}; it is failed now, and retry starts it again.`;
}

/**
 * The plan's `harness / plan <id>` check runs that are still open (queued, in progress, or
 * waiting for a person at a checkpoint), on the plan branch. A plan that never got a branch
 * has none: GitHub answers 404 or 422 for the ref.
 */
async function openPlanCheckRuns(inv: Invocation, spec: string, plan: string): Promise<number[]> {
  try {
    const runs = await inv.github.checkRuns(planBranch(spec, plan), planCheck(plan));
    return runs.filter((r) => r.status !== 'completed' || r.conclusion === 'action_required').map((r) => r.id);
  } catch (e) {
    if (hasStatus(e, 404, 422)) return [];
    throw e;
  }
}
