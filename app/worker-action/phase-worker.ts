import type { HumanAnswer } from '../engine/core/verify/levels.js';
import { verifyPhase } from '../engine/core/verify/levels.js';
import { localVerifyPorts } from '../machine/verify-ports.js';
import { systemClock } from '../machine/clock.js';
import { answerComments } from './answer-comments.js';
import { humanAnswers } from './human-answers.js';
import { jobSummary } from './job-summary.js';
import type { WorkerOutcome } from './outcome.js';
import { verificationFailure } from './verification-failure.js';
import { WorkerError } from './worker-error.js';
import type { WorkerRun } from './worker-run.js';

/**
 * Phase-level verification (`plan: phase-PP`) on the checkout, which is the base branch with
 * every plan of the phase merged: each plan's checks again, then the phase's own. The result
 * is the job's: the app turns it into the `harness / phase PP` check run.
 */
export async function runPhaseWorker(run: WorkerRun, phaseId: string): Promise<WorkerOutcome> {
  const { spec, log } = run;
  const phase = spec.phases.find((p) => p.id === phaseId);
  if (!phase) throw new WorkerError(`spec ${spec.id} (${run.specPath}) has no phase ${phaseId}`);
  const heading = `${spec.id} / phase ${phase.id} ${phase.title}`;
  const answers = await approvedOnPlanIssues(run, phase.plans);
  const report = await log.group(`phase-level verification of phase ${phase.id}`, () => {
    const ports = localVerifyPorts(run.root, { env: run.env, clock: systemClock(run.now) });
    return verifyPhase(spec, phase, ports, {
      answers,
      onResult: (r) => log.info(`${r.status.padEnd(5)} ${r.plan === undefined ? '' : `${r.plan}/`}${r.id} (${r.type}): ${r.evidence.split('\n')[0]}`),
    }).finally(() => ports.close());
  });
  if (report.status === 'pass') return { result: 'verified', report, summary: jobSummary({ heading, status: 'verified', notes: run.notes, report }) };
  // A human check of the phase's own has no issue to be asked on: people check it in the summary and re-run the job.
  const reason = verificationFailure(report);
  return { result: 'failed', failure: reason, report, summary: jobSummary({ heading, status: 'failed', detail: reason, notes: run.notes, report }) };
}

/**
 * A plan's human checks were approved on its issue before the plan could pass; the same approval
 * stands for the check at phase level (keyed "<plan>/<check>"). Only plans with human checks
 * cost a request.
 */
async function approvedOnPlanIssues(run: WorkerRun, planIds: readonly string[]): Promise<Record<string, HumanAnswer>> {
  const plans = planIds.flatMap((id) => {
    const plan = run.spec.planById.get(id);
    return plan?.mustPass.some((c) => c.type === 'human') ? [plan] : [];
  });
  if (plans.length === 0) return {};
  const issues = await run.forge.listPlanIssues(run.spec.id);
  const answers: Record<string, HumanAnswer> = {};
  for (const plan of plans) {
    const issue = issues.get(plan.id);
    if (!issue) continue;
    const given = answerComments(await run.forge.listComments(issue.number), plan.id);
    for (const [check, answer] of Object.entries(humanAnswers(plan, given))) answers[`${plan.id}/${check}`] = answer;
  }
  return answers;
}
