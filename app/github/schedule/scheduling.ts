import type { Context, Probot } from 'probot';
import { planClaimsPrefix, specClaimsPrefix } from '../../engine/forge/claims.js';
import { concludedByWorker, settledByApp } from '../../engine/forge/worker-outcome.js';
import { parseTargetBranch, parseTargetId } from '../../engine/forge/worker-target.js';
import { appGateway } from '../app-gateway.js';
import { noteClosedUnmerged } from '../knowledge/review-signals.js';
import { scheduleRound } from './round.js';
import { onWorkerRunCompleted } from './worker-run.js';
import { withMergeRecord } from './verified-record.js';
import { parseMarker } from '../../engine/forge/plan-issue.js';

/**
 * The scheduler's events (docs/github-flow.md, 3, 5 and 6): a worker run finishing, a
 * harness check run completing and a plan PR merging each record what happened and run a
 * scheduling round. `/harness execute` and `/harness retry` run rounds too, from the
 * commands (scheduleRound in round.ts).
 */
export function scheduling(app: Pick<Probot, 'on'>): void {
  app.on('workflow_run.completed', onWorkerRunCompleted);
  app.on('check_run.completed', onHarnessCheckCompleted);
  app.on('pull_request.closed', onPlanMerged);
}

/**
 * `check_run` completed for a `harness / plan …` or `harness / phase …` check run
 * (docs/github-flow.md, 6): a round. The spec comes from the check's `external_id`
 * (`<spec>/<plan>`), which harness sets on every check run it creates; a check of that name
 * without one is someone else's.
 */
async function onHarnessCheckCompleted(context: Context<'check_run.completed'>): Promise<void> {
  const check = context.payload.check_run;
  if (!/^harness \/ (plan|phase) /.test(check.name)) return;
  // Concluded by the App itself, which ran the round as it did: another would find nothing new (worker-outcome.ts).
  if (settledByApp(check.output?.text)) return;
  // Concluded by a worker: its workflow_run.completed records the outcome and runs the round (worker-outcome.ts).
  if (concludedByWorker(check.output?.text)) return;
  const target = parseTargetId(check.external_id);
  if (!target) return;
  await scheduleRound(context, target.spec);
}

/**
 * A plan PR merged (`pull_request` closed, merged, head `harness/<spec>/<plan>`;
 * docs/github-flow.md, 6): its plan issue is closed as completed when GitHub did not do it
 * (`Closes #n` closes issues only for pull requests into the default branch), with the merge on
 * record on its marker line (`verified=<PR>`), which is what makes the plan satisfy its
 * dependants (verified-record.ts); then a round starts them.
 */
async function onPlanMerged(context: Context<'pull_request.closed'>): Promise<void> {
  const pr = context.payload.pull_request;
  const target = parseTargetBranch(pr.head.ref);
  if (target?.kind !== 'plan') return;
  // A branch of that name in a fork is not harness's claim: forks never drive the app.
  if (pr.head.repo?.full_name !== context.payload.repository.full_name) return;
  const github = appGateway(context);
  if (!pr.merged) {
    await noteClosedUnmerged(context, target);
    await releasePlanClaims(context, target.spec, target.plan);
    return;
  }
  const { byPlan } = await github.planIssues(target.spec);
  let issues = [...byPlan.values()];
  const record = byPlan.get(target.plan);
  if (!record) context.log.warn(`${target.spec}/${target.plan}: merged, but no plan issue to close`);
  else if (record.state === 'open' || parseMarker(record.body)?.verified === undefined) {
    // The merge is the evidence that the plan is done, recorded where only the App and writers write (verified-record.ts).
    const closed = await github.updateIssue(record.number, { state: 'closed', state_reason: 'completed', body: withMergeRecord(record.body, pr.number) });
    issues = issues.map((i) => (i === record ? { ...closed, labels: i.labels } : i));
  }
  await scheduleRound(context, target.spec, { issues, base: pr.base.ref });
  // After the round, so that the plans waiting on this one start first.
  await releasePlanClaims(context, target.spec, target.plan);
}

/**
 * A plan's PR merged or closed: its claims (answer claims, takeover refs, under
 * refs/harness/plans/<spec>/<plan>/) have nothing more to settle and go. They are found in one
 * listing of the whole spec's claims, which changes only when a claim is made or released, so
 * that its conditional read (app-gateway.ts) is a 304 for most plans, which never had any. Work
 * kept under refs/harness/kept/ stays: it is someone's, and only a person deletes it.
 */
async function releasePlanClaims(context: Context, spec: string, plan: string): Promise<void> {
  const github = appGateway(context);
  const mine = planClaimsPrefix(spec, plan);
  let deleted = 0;
  for (const ref of (await github.claimRefsWithPrefix(specClaimsPrefix(spec))).keys()) {
    if (ref.startsWith(`refs/${mine}`) && (await github.deleteClaimRef(ref)) === 'deleted') deleted++;
  }
  if (deleted > 0) context.log.info(`${spec}/${plan}: ${deleted} claim ref(s) released with the plan's PR`);
}
