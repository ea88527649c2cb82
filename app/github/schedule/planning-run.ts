import type { Context } from 'probot';
import { parsePlanningInput, parseResearchInput, PLANNING_CHECK, planningBranch, planningExternalId } from '../../engine/planning/planning-target.js';
import { appGateway } from '../app-gateway.js';

/** A planning job's or research-ahead run's title (`harness <spec>/planning/<pr>/<comment>`, `harness <spec>/research-PP`), read back. */
export function parsePlanningRunTitle(title: string | null | undefined): { spec: string; plan: string } | undefined {
  const m = /^harness ([A-Z][A-Z0-9]*-\d+)\/(\S+)$/.exec(title ?? '');
  if (!m || !(parsePlanningInput(m[2]!) || parseResearchInput(m[2]!))) return undefined;
  return { spec: m[1]!, plan: m[2]! };
}

/**
 * `workflow_run` completed for a planning job (docs/github-flow.md, 10). The worker answers in
 * the PR's conversation and deletes its claim itself; a run that ended without doing so (it
 * failed before it could, was cancelled or timed out) leaves the claim, and that is how it is
 * found: the check run is completed with the run's conclusion, the thread is told, and the
 * claim deleted, so that a redelivered event finds nothing left to do and the command may be
 * written again. Research ahead keeps its branch on purpose (the phase is not researched
 * twice): its runs need nothing here.
 */
export async function onPlanningRunCompleted(context: Context<'workflow_run.completed'>, found: { spec: string; plan: string }): Promise<void> {
  const target = parsePlanningInput(found.plan);
  if (!target) return;
  const run = context.payload.workflow_run;
  const github = appGateway(context);
  const claim = planningBranch(found.spec, target);
  const head = await github.branchSha(claim);
  if (head === undefined) return;
  const conclusion = run.conclusion === 'cancelled' || run.conclusion === 'timed_out' ? run.conclusion : 'failure';
  const external = planningExternalId(found.spec, target);
  const check = (await github.checkRuns(head, PLANNING_CHECK)).find((c) => c.externalId === external && c.status !== 'completed');
  const summary = `The planning job ended (${run.conclusion ?? 'unknown'}) before it could answer: nothing was committed. Its log: ${run.html_url}`;
  if (check) await github.updateCheckRun(check.id, { status: 'completed', conclusion, output: { title: 'planning: ended without an answer', summary } });
  await github.comment(target.pull, `${summary}\n\nWrite the command again to run it once more.`);
  await github.deleteBranch(claim);
}
