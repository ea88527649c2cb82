import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { planBranch, statusLabel } from '../engine/forge/names.js';
import type { Checkpoint } from '../engine/core/protocol/messages.js';
import type { Plan } from '../engine/core/spec/model.js';
import { verifyPlan, type VerificationReport } from '../engine/core/verify/levels.js';
import { localVerifyPorts } from '../machine/verify-ports.js';
import { systemClock } from '../machine/clock.js';
import { agentsConfig } from '../workers/config.js';
import type { CommitInfo } from '../workers/git.js';
import { answerComments, type GivenAnswer } from './answer-comments.js';
import { alreadyAsked, checkpointComment } from './checkpoint-comment.js';
import { Checkout } from './checkout.js';
import { humanAnswers, humanCheckQuestion } from './human-answers.js';
import { jobSummary } from './job-summary.js';
import type { WorkerOutcome } from './outcome.js';
import { prBody, prTitle } from './pr-body.js';
import { runAgent } from './run-agent.js';
import { verificationFailure } from './verification-failure.js';
import { WorkerError } from './worker-error.js';
import type { IssueComment, PlanIssue } from './worker-forge.js';
import type { WorkerRun } from './worker-run.js';

interface PlanJob {
  run: WorkerRun;
  plan: Plan;
  issue: PlanIssue;
  comments: IssueComment[];
  answers: ReadonlyMap<string, GivenAnswer>;
  checkout: Checkout;
  branch: string;
  agent: string;
  heading: string;
}

/**
 * One plan on a runner (docs/github-flow.md, step 4): the agent on the plan branch, plan-level
 * verification on the checkout, then the branch pushed and the plan PR opened. A question
 * nobody has answered yet ends the run successfully with the question on the plan issue.
 */
export async function runPlanWorker(run: WorkerRun, planId: string): Promise<WorkerOutcome> {
  const { spec, log, forge } = run;
  const plan = spec.planById.get(planId);
  if (!plan) throw new WorkerError(`spec ${spec.id} (${run.specPath}) has no plan ${planId}`);
  const issue = (await forge.listPlanIssues(spec.id)).get(plan.id);
  if (!issue) throw new WorkerError(`plan ${plan.id} of ${spec.id} has no issue (labels harness:plan, spec:${spec.id}, marker <!-- harness:plan ${spec.id}/${plan.id} -->): has the spec PR been synced?`);
  const comments = await forge.listComments(issue.number);
  const checkout = new Checkout(run.root);
  const identity = await checkout.ensureIdentity();
  const agent = run.inputs.agent ?? plan.agent ?? run.config.agent;
  const job: PlanJob = {
    run,
    plan,
    issue,
    comments,
    answers: answerComments(comments, plan.id),
    checkout,
    branch: planBranch(spec.id, plan.id),
    agent,
    heading: `${spec.id} / ${plan.id} ${plan.title}`,
  };
  run.notes.push(`agent \`${agent}\`${run.inputs.resume ? ', resumed' : ''}; commits as ${identity.name}; plan issue #${issue.number}`);

  const base = await checkout.planBase(run.base);
  const outcome = await log.group(`agent ${agent}: ${plan.id} ${plan.title}`, async () =>
    runAgent({
      spec: spec.id,
      plan,
      agent,
      agents: agentsConfig(run.config),
      root: run.root,
      logDir: join(run.tempDir, 'harness', spec.id, plan.id),
      base,
      resume: run.inputs.resume,
      prompt: await readFile(join(run.root, run.specPath, plan.file), 'utf8'),
      answers: job.answers,
      env: run.env,
      log,
      now: run.now,
    }),
  );
  if (outcome.kind === 'checkpoint') return ask(job, outcome.checkpoint, await checkout.commits(base));
  if (outcome.kind === 'failed') return failed(job, `the ${agent} agent failed: ${outcome.reason}`, await checkout.commits(base));

  const since = await checkout.headDate();
  const report = await log.group(`plan-level verification of ${plan.id}`, async () => {
    const ports = localVerifyPorts(run.root, { env: run.env, clock: systemClock(run.now) });
    return verifyPlan(plan, ports, {
      spec: spec.id,
      answers: humanAnswers(plan, job.answers, since),
      onResult: (r) => log.info(`${r.status.padEnd(5)} ${r.id} (${r.type}): ${r.evidence.split('\n')[0]}`),
    }).finally(() => ports.close());
  });
  const commits = await checkout.commits(base);
  if (report.status === 'human') {
    const waiting = report.results.find((r) => r.status === 'human')!;
    const check = plan.mustPass.find((c) => c.id === waiting.id);
    if (check?.type !== 'human') throw new Error(`check ${waiting.id} waits for a person but is no human check of plan ${plan.id}`);
    return ask(job, humanCheckQuestion(check), commits, report);
  }
  if (report.status === 'fail') return failed(job, verificationFailure(report), commits, report);
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
async function ask(job: PlanJob, checkpoint: Checkpoint, commits: CommitInfo[], report?: VerificationReport): Promise<WorkerOutcome> {
  const { run, plan, issue } = job;
  // Pushed first, so that whoever reads the question can see the work it is about.
  await job.checkout.push(job.branch);
  if (alreadyAsked(job.comments, plan.id, checkpoint.id, job.answers)) run.log.info(`checkpoint ${checkpoint.id} was asked on #${issue.number} already`);
  else await run.forge.comment(issue.number, checkpointComment(plan.id, checkpoint));
  await run.forge.setStatusLabel(issue, statusLabel('checkpoint'));
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

async function failed(job: PlanJob, reason: string, commits: CommitInfo[], report?: VerificationReport): Promise<WorkerOutcome> {
  // What was committed stays visible on the branch; a push that fails must not hide the reason.
  if (commits.length > 0) await job.checkout.push(job.branch).catch((e: Error) => job.run.log.warning(`could not push ${job.branch}: ${e.message}`));
  return {
    result: 'failed',
    failure: reason,
    ...(report ? { report } : {}),
    summary: jobSummary({ heading: job.heading, status: 'failed', detail: reason, notes: job.run.notes, ...(report ? { report } : {}), commits }),
  };
}
