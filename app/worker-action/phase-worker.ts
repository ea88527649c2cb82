import { join } from 'node:path';
import { humanCheckpointId } from '../engine/lifecycle/answers.js';
import { planHumanChecks } from '../engine/lifecycle/attempt-plan.js';
import { phaseCompletion } from '../engine/lifecycle/signals.js';
import { withOutcomes } from '../engine/knowledge/signals/plan-outcome.js';
import { summaryOutcomes } from '../machine/summary-outcomes.js';
import { verifyPhaseLevel } from '../engine/lifecycle/verify-phase.js';
import { follow } from '../engine/lifecycle/heartbeat.js';
import { systemClock } from '../machine/clock.js';
import { planImports } from '../machine/source-imports.js';
import { localVerifyPorts } from '../machine/verify-ports.js';
import { workerCapture } from './capture.js';
import { answerComments, issueAnswers, type GivenAnswer } from './issue-answers.js';
import { jobProgress } from './job-log.js';
import { jobSummary } from './reports.js';
import { answerTrust, WorkerError, type WorkerOutcome, type WorkerRun } from './worker-run.js';
import type { IssueRecord } from '../gateway/issues.js';

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
  const clock = systemClock(run.now);
  // While it runs, a silence in the job's log says which check runs and for how long (engine/lifecycle/heartbeat.ts).
  const followed = follow(
    run.heartbeat,
    { phase: phase.id },
    {
      verifyPorts: () => localVerifyPorts(run.root, { env: run.env, clock }),
      answers: issueAnswers(await approvedOnPlanIssues(run, phase.plans)),
      progress: jobProgress(log),
      clock,
    },
  );
  const outcome = await verifyPhaseLevel(spec, phase, followed.ports).finally(() => followed.end());
  const { report } = outcome;
  if (outcome.kind === 'verified') {
    // A verified phase is one completion signal, whatever the number of its plans, with their outcomes for the holdout comparison (from their SUMMARY.md, merged here).
    const plans = phase.plans.map((id) => spec.planById.get(id)!);
    await workerCapture(run)?.file(`phase ${phase.id} verified`, [
      withOutcomes(
        phaseCompletion({
          spec: spec.id,
          phase,
          plans,
          done: plans.map((p) => ({ id: p.id, title: p.title })),
          report,
          imports: await planImports(run.root, plans),
        }),
        await summaryOutcomes(join(run.root, run.specPath), phase),
      ),
    ]);
    return { result: 'verified', report, summary: jobSummary({ heading, status: 'verified', notes: run.notes, report }) };
  }
  // A human check of the phase's own has no issue to be asked on: people check it in the summary and re-run the job.
  return {
    result: 'failed',
    failure: outcome.reason,
    report,
    summary: jobSummary({ heading, status: 'failed', detail: outcome.reason, notes: run.notes, report }),
  };
}

/**
 * A plan's human checks were approved on its issue before the plan could pass; the same approval
 * stands for the check at phase level (its checkpoint `check-<plan>/<check>`). Only plans with
 * human checks cost a request.
 */
async function approvedOnPlanIssues(run: WorkerRun, planIds: readonly string[]): Promise<Map<string, GivenAnswer>> {
  const plans = planIds.flatMap((id) => {
    const plan = run.spec.planById.get(id);
    return plan?.mustPass.some((c) => c.type === 'human') ? [plan] : [];
  });
  const answers = new Map<string, GivenAnswer>();
  if (plans.length === 0) return answers;
  // The phase's own issues (one page); a plan whose issue lost its phase label is looked for in the whole spec's.
  const byPhase = new Map<string | undefined, Map<string, IssueRecord>>();
  const issuesOf = async (phase?: string) => byPhase.get(phase) ?? byPhase.set(phase, (await run.forge.planIssues(run.spec.id, phase)).byPlan).get(phase)!;
  for (const plan of plans) {
    const issue = (await issuesOf(plan.phase)).get(plan.id) ?? (await issuesOf()).get(plan.id);
    if (!issue) continue;
    const given = await answerComments(await run.forge.comments(issue.number), plan.id, answerTrust(run));
    for (const { key } of planHumanChecks(plan)) {
      const answer = given.get(humanCheckpointId(key));
      if (answer) answers.set(humanCheckpointId(`${plan.id}/${key}`), answer);
    }
  }
  return answers;
}
