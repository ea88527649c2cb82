import type { Context } from 'probot';
import { phaseRanRef } from '../../engine/forge/claims.js';
import { planIssueView } from '../../engine/forge/plan-issue-view.js';
import { LABEL_PHASE_FAILED, WORKER_WORKFLOW } from '../../engine/forge/names.js';
import { parseMarker, withMarkerRecord } from '../../engine/forge/plan-issue.js';
import { workerOutcome } from '../../engine/forge/worker-outcome.js';
import { parseSpikeRunTitle, parseWorkerRunTitle, targetBranch, targetCheck, targetExternalId } from '../../engine/forge/worker-target.js';
import type { IssueRecord } from '../../gateway/issues.js';
import { appGateway } from '../app-gateway.js';
import { loadConfig } from '../config.js';
import { detailsUrl } from './dispatch.js';
import { extractAfterPhase, reflectAfterPhase } from './phase-reflection.js';
import { scheduleRound } from './round.js';
import { issueLike } from '../../gateway/issues.js';
import { settleCheck } from './settle-check.js';
import { onSpikeRunCompleted } from './spike-run.js';
import { onPlanningRunCompleted, parsePlanningRunTitle } from './planning-run.js';

/**
 * `workflow_run` completed for the worker workflow (docs/github-flow.md, 5): the run's title
 * (`run-name: harness <spec>/<plan>`) names its plan or phase; its conclusion, with where the
 * App's record says the plan is (a checkpoint the worker recorded), becomes the plan's recorded
 * status, its label and its check run's conclusion (workerOutcome); then a round starts what
 * that made possible. Records, labels and check runs are written only when they differ, so a
 * redelivered event writes nothing but what the round finds new. A plan's run that succeeded
 * and whose record the worker already set to verified has nothing left to record: only the
 * round runs (one read fewer a plan).
 */
export async function onWorkerRunCompleted(context: Context<'workflow_run.completed'>): Promise<void> {
  const run = context.payload.workflow_run;
  // Other workflows, and the worker started by hand (not by harness's dispatch), are not ours.
  if (!isWorkerRun(run) || run.event !== 'workflow_dispatch') return;
  const spike = parseSpikeRunTitle(run.display_title);
  if (spike) return onSpikeRunCompleted(context, spike.slug, run);
  const planning = parsePlanningRunTitle(run.display_title);
  if (planning) return onPlanningRunCompleted(context, planning);
  const target = parseWorkerRunTitle(run.display_title);
  if (!target) {
    context.log.warn(`worker run ${run.id} is titled "${run.display_title}", not "harness <spec>/<plan>": left alone`);
    return;
  }
  const github = appGateway(context);
  const { config } = await loadConfig(context);
  const { byPlan } = await github.planIssues(target.spec);
  let issues = [...byPlan.values()];
  const listed = target.kind === 'plan' ? byPlan.get(target.plan) : undefined;
  if (run.conclusion === 'success' && listed && planIssueView(issueLike(listed))?.state === 'verified') {
    // The worker ended well and wrote so itself (plan-worker.ts, endStatus), after concluding its check run: nothing is left
    // to record, and nothing to read about the branch. The round starts what the freed slot allows.
    await scheduleRound(context, target.spec, { config, issues, ...(run.head_branch ? { base: run.head_branch } : {}) });
    return;
  }
  // No branch: the plan was retried (its claim deleted) and this run is an old attempt. The check runs on the branch's head
  // say where it is and whether the worker concluded them, in one read; only a head without ours is asked for apart.
  const atBranch = await github.branchCheckRuns(targetBranch(target), targetCheck(target));
  const atHead = atBranch?.find((r) => r.externalId === targetExternalId(target));
  const head = atBranch === undefined ? undefined : (atHead?.headSha ?? (await github.branchSha(targetBranch(target))));

  const record = target.kind === 'plan' ? byPlan.get(target.plan) : undefined;
  if (target.kind === 'plan' && !record) context.log.warn(`${targetExternalId(target)}: no plan issue; the run's outcome is not recorded`);
  const view = record ? planIssueView(issueLike(record)) : undefined;
  const outcome = head === undefined || (target.kind === 'plan' && !view) ? undefined : workerOutcome(target, run.conclusion, view?.state, run.html_url);
  if (outcome && head !== undefined) {
    // The record and its label, each written only where it differs (gateway setStatus).
    if (record && outcome.status !== undefined) {
      const written = await github.setStatus(record, outcome.status);
      issues = issues.map((i) => (i === record ? { ...i, ...written } : i));
    }
    await settleCheck(context, target, outcome.check, { head, runSha: run.head_sha, detailsUrl: detailsUrl(context, target, record), atHead: atHead ?? null });
    if (target.kind === 'phase') {
      // The claim's branch stays; this says its worker ran, so no idle round takes it for a dead claim (stale-phase-claim.ts).
      await github.createClaimRef(phaseRanRef(target.spec, target.phase), head);
      issues = await markPhase(context, target.spec, target.phase, run.conclusion === 'success' ? undefined : String(run.id), issues);
    }
  } else {
    context.log.info(`${targetExternalId(target)}: run ${run.id} (${run.conclusion}) is not the current attempt; nothing recorded`);
  }
  await scheduleRound(context, target.spec, { config, issues, ...(run.head_branch ? { base: run.head_branch } : {}) });
  // After the round, so that lessons never hold up the next plans.
  if (outcome && target.kind === 'phase' && run.conclusion === 'success') {
    await reflectAfterPhase(context, target.phase, config, issues);
    // Skills help the work and never stop it: a failed extraction is logged, and /harness retrospective asks again.
    await extractAfterPhase(context, target.spec, target.phase, config, issues).catch((e: unknown) =>
      context.log.warn(`skills after phase ${target.phase} of ${target.spec}: ${(e as Error).message}`),
    );
  }
}

/**
 * A phase's verification outcome, where the next round reads it: the App's record on the marker
 * line of each plan issue of a phase that failed (`phase_failed=<run>`: its dependants are held),
 * cleared when it passes (`failedIn` undefined), each in one PATCH of the body, then
 * `harness:phase-failed`, the record's view, added or taken off on its own (never the whole
 * list). An issue is written only where the record changes; a label that disagrees with its
 * record is put back by the round.
 */
async function markPhase(context: Context, spec: string, phase: string, failedIn: string | undefined, issues: IssueRecord[]): Promise<IssueRecord[]> {
  const github = appGateway(context);
  const out: IssueRecord[] = [];
  for (const issue of issues) {
    const marker = parseMarker(issue.body);
    const inPhase = marker?.spec === spec && marker.plan.startsWith(`${phase}-`);
    if (!inPhase || (marker.phaseFailed === undefined) === (failedIn === undefined)) {
      out.push(issue);
      continue;
    }
    const updated = await github.updateIssue(issue.number, { body: withMarkerRecord(issue.body ?? '', 'phase_failed', failedIn) });
    const has = issue.labels.includes(LABEL_PHASE_FAILED);
    if (failedIn === undefined && has) await github.removeLabel(issue.number, LABEL_PHASE_FAILED);
    if (failedIn !== undefined && !has) await github.addLabels(issue.number, [LABEL_PHASE_FAILED]);
    out.push({
      ...issue,
      body: updated.body,
      labels: failedIn === undefined ? issue.labels.filter((l) => l !== LABEL_PHASE_FAILED) : has ? issue.labels : [...issue.labels, LABEL_PHASE_FAILED],
    });
  }
  return out;
}

/** The worker workflow's `name:` (templates/workflows/harness-worker.yml). */
export const WORKER_WORKFLOW_NAME = 'harness worker';

/**
 * Is this run the worker workflow's? By its file when the payload names it; older
 * `workflow_run` payloads have no `path`, and then by the workflow's name.
 */
export function isWorkerRun(run: { path?: string | null; name?: string | null }): boolean {
  if (typeof run.path === 'string' && run.path !== '') return run.path.endsWith(`/${WORKER_WORKFLOW}`);
  return run.name === WORKER_WORKFLOW_NAME;
}
