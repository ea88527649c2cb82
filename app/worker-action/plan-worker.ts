import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Checkpoint } from '../engine/core/protocol/messages.js';
import type { Plan } from '../engine/core/spec/model.js';
import type { VerificationReport } from '../engine/core/verify/levels.js';
import { planBranch } from '../engine/forge/names.js';
import { agentName } from '../engine/lifecycle/assignment.js';
import { attemptPlan, type AttemptInput } from '../engine/lifecycle/attempt-plan.js';
import type { PlanCommit } from '../engine/lifecycle/ports.js';
import { systemClock } from '../machine/clock.js';
import { localVerifyPorts } from '../machine/verify-ports.js';
import { agentsConfig } from '../workers/config.js';
import { agentFor } from '../workers/registry.js';
import { workerCapture } from './capture.js';
import { Checkout } from './checkout.js';
import { alreadyAsked, answerComments, checkpointComment, issueAnswers, type GivenAnswer } from './issue-answers.js';
import { jobProgress } from './job-log.js';
import { jobSummary, prBody, prTitle } from './reports.js';
import { surfaceOnRunner } from './surfacing.js';
import { WorkerError, type WorkerOutcome, type WorkerRun } from './worker-run.js';
import type { CommentRecord } from '../gateway/comments.js';
import type { IssueRecord } from '../gateway/issues.js';

interface PlanJob {
  run: WorkerRun;
  plan: Plan;
  issue: IssueRecord;
  comments: CommentRecord[];
  answers: ReadonlyMap<string, GivenAnswer>;
  checkout: Checkout;
  branch: string;
  heading: string;
}

/**
 * One plan on a runner (docs/github-flow.md, step 4): the attempt on the checkout of the plan
 * branch, then the branch pushed and the plan PR opened. A question nobody has answered yet
 * ends the run successfully with the question on the plan issue.
 */
export async function runPlanWorker(run: WorkerRun, planId: string): Promise<WorkerOutcome> {
  const { spec, log, forge } = run;
  const plan = spec.planById.get(planId);
  if (!plan) throw new WorkerError(`spec ${spec.id} (${run.specPath}) has no plan ${planId}`);
  const issue = (await forge.planIssues(spec.id)).byPlan.get(plan.id);
  if (!issue) throw new WorkerError(`plan ${plan.id} of ${spec.id} has no issue (labels harness:plan, spec:${spec.id}, marker <!-- harness:plan ${spec.id}/${plan.id} -->): has the spec PR been synced?`);
  const comments = await forge.comments(issue.number);
  const checkout = new Checkout(run.root);
  const identity = await checkout.ensureIdentity();
  const agent = agentName(plan, { override: run.inputs.agent, configured: run.config.agent });
  const job: PlanJob = {
    run,
    plan,
    issue,
    comments,
    answers: answerComments(comments, plan.id),
    checkout,
    branch: planBranch(spec.id, plan.id),
    heading: `${spec.id} / ${plan.id} ${plan.title}`,
  };
  run.notes.push(`agent \`${agent}\`${run.inputs.resume ? ', resumed' : ''}; commits as ${identity.name}; plan issue #${issue.number}`);

  const clock = systemClock(run.now);
  const capture = workerCapture(run);
  // The script agent runs the plan's own steps and reads no brief: there is nothing to surface into.
  const knowledge = agent === 'script' ? undefined : await surfaceOnRunner(run, plan);
  if (knowledge && knowledge.length > 0) run.notes.push(`surfaced into the brief: ${knowledge.map((k) => `${k.kind} \`${k.path}\``).join(', ')}`);
  const input: AttemptInput = {
    spec: spec.id,
    plan,
    agent,
    session: `${spec.id}-${plan.id}`,
    base: await checkout.planBase(run.base),
    resume: run.inputs.resume,
    prompt: () => readFile(join(run.root, run.specPath, plan.file), 'utf8'),
    env: run.env,
    logDir: join(run.tempDir, 'harness', spec.id, plan.id),
    ...(capture ? { history: capture.history(plan) } : {}),
    ...(agent === 'claude' && run.config.agents.claude?.model ? { expects: { model: run.config.agents.claude.model } } : {}),
    ...(knowledge ? { knowledge } : {}),
  };
  const outcome = await attemptPlan(
    input,
    {
      agent: (name) => agentFor(name, agentsConfig(run.config)),
      workspace: checkout,
      verifyPorts: () => localVerifyPorts(run.root, { env: run.env, clock }),
      answers: issueAnswers(job.answers),
      progress: jobProgress(log),
      clock,
    },
  );
  // The attempt's signals go to the spec's signals PR whatever came of it; only an ended attempt has its knowledge on record.
  const ended = outcome.kind !== 'checkpoint';
  await capture?.file(`${plan.id} ${outcome.kind}`, outcome.signals, ended ? { plan, entries: input.knowledge ?? [], verified: outcome.kind === 'verified' } : undefined);
  if (outcome.kind === 'checkpoint') return ask(job, outcome.checkpoint, outcome.commits, outcome.report);
  if (outcome.kind === 'failed') return failed(job, outcome.reason, outcome.commits, outcome.report);
  const { report, commits } = outcome;
  // Nothing to merge is no finished plan: its issue would never close.
  if (commits.length === 0) return failed(job, `plan ${plan.id} passed its checks but made no commits: there is nothing to open a pull request for`, commits, report);

  await checkout.push(job.branch);
  const pr = await forge.openPullRequest({
    head: job.branch,
    base: run.base,
    title: prTitle(plan),
    body: prBody({
      spec: spec.id,
      specPath: run.specPath,
      plan,
      issue: issue.number,
      agent,
      report,
      commits,
      ...(outcome.summary === undefined ? {} : { agentSummary: outcome.summary }),
      ...(run.runUrl === undefined ? {} : { runUrl: run.runUrl }),
      ...(input.knowledge && input.knowledge.length > 0 ? { knowledge: input.knowledge } : {}),
    }),
  });
  log.info(`${pr.created ? 'opened' : 'updated'} the plan PR #${pr.number}: ${pr.url}`);
  return {
    result: 'verified',
    pullRequest: { number: pr.number, url: pr.url },
    report,
    summary: jobSummary({ heading: job.heading, status: 'verified', detail: `plan PR [#${pr.number}](${pr.url}) into \`${run.base}\``, notes: run.notes, report, commits }),
  };
}

/** Stop for a person: the work so far on the branch, the question on the issue, the issue marked. */
async function ask(job: PlanJob, checkpoint: Checkpoint, commits: PlanCommit[], report?: VerificationReport): Promise<WorkerOutcome> {
  const { run, plan, issue } = job;
  // Pushed first, so that whoever reads the question can see the work it is about.
  await job.checkout.push(job.branch);
  if (alreadyAsked(job.comments, plan.id, checkpoint.id, job.answers)) run.log.info(`checkpoint ${checkpoint.id} was asked on #${issue.number} already`);
  else await run.forge.comment(issue.number, checkpointComment(plan.id, checkpoint));
  issue.labels = await run.forge.setStatus(issue, 'checkpoint');
  run.log.info(`waiting for a person at checkpoint ${checkpoint.id}: asked on ${issue.url}`);
  return {
    result: 'checkpoint',
    checkpoint: checkpoint.id,
    ...(report ? { report } : {}),
    summary: jobSummary({
      heading: job.heading,
      status: 'checkpoint',
      detail: `checkpoint \`${checkpoint.id}\` (${checkpoint.kind}) asked on [#${issue.number}](${issue.url}); answer with \`/harness respond ${plan.id} <answer>\``,
      notes: run.notes,
      ...(report ? { report } : {}),
      commits,
    }),
  };
}

async function failed(job: PlanJob, reason: string, commits: PlanCommit[], report?: VerificationReport): Promise<WorkerOutcome> {
  // What was committed stays visible on the branch; a push that fails must not hide the reason.
  if (commits.length > 0) await job.checkout.push(job.branch).catch((e: Error) => job.run.log.warning(`could not push ${job.branch}: ${e.message}`));
  return {
    result: 'failed',
    failure: reason,
    ...(report ? { report } : {}),
    summary: jobSummary({ heading: job.heading, status: 'failed', detail: reason, notes: job.run.notes, ...(report ? { report } : {}), commits }),
  };
}
