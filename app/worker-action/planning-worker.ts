import { join } from 'node:path';
import { parseCommand } from '../engine/forge/parse-command.js';
import { permits } from '../engine/forge/permits.js';
import { planningAgentName } from '../engine/planning/planning-agent.js';
import { planningAnswer } from '../engine/planning/planning-answer.js';
import { isPlanningName, planningWords, type PlanningCommand } from '../engine/planning/planning-command.js';
import { discussPaths } from '../engine/planning/planning-steps.js';
import { discussMarker, PLANNING_CHECK, planningBranch, planningExternalId, type PlanningTarget } from '../engine/planning/planning-target.js';
import type { CommentRecord } from '../gateway/comments.js';
import type { PullRequestInfo } from '../gateway/pulls.js';
import { systemClock } from '../machine/clock.js';
import { makeSafe, secretValues, type SafetyOptions } from '../machine/content-safety.js';
import { readTextIfExists } from '../machine/files.js';
import { agentsConfig } from '../agents/config.js';
import { runPlanningHere, type PlanningOutcome } from '../agents/planning-here.js';
import { workerCapture } from './capture.js';
import { Checkout } from './checkout.js';
import { jobProgress } from './job-log.js';
import { jobSummary } from './reports.js';
import { remoteAccess, WorkerError, type WorkerOutcome, type WorkerRun } from './worker-run.js';

/** A planning job's run: the config is read; the spec is read by the planning itself, which may find it incomplete. */
export type PlanningWorkerRun = Omit<WorkerRun, 'spec' | 'specPath'> & { findSpec: () => Promise<string> };

/**
 * A planning command on a runner (`/harness plan-phase 03` on a spec PR): the checkout is the
 * App's claim branch at the PR's head. The command is read back from its comment, whose author
 * must still have the configured role; the documents are written and checked exactly as
 * `harness plan-phase` does it (agents/planning-here.ts), the commit is pushed to the PR's own
 * branch, the claim branch deleted, the check run told, and the PR's conversation answered.
 */
export async function runPlanningWorker(run: PlanningWorkerRun, target: PlanningTarget): Promise<WorkerOutcome> {
  const safety: SafetyOptions = {
    roots: [run.root, run.tempDir],
    secrets: [...new Set([...secretValues({ ...process.env, ...run.env }), ...(run.secrets ?? [])])],
  };
  const { pull, thread, asked, command } = await readCommand(run, target);

  const specDir = await run.findSpec();
  const checkout = new Checkout(run.root, remoteAccess(run));
  const identity = await checkout.ensureIdentity();
  const startedAt = await checkout.head();
  const agent = planningAgentName({ worker: run.inputs.agent, planning: run.config.planning?.agent, configured: run.config.agent });
  run.notes.push(`agent \`${agent}\`; commits as ${identity.name}; spec \`${specDir}\`; for @${asked.author}`);
  const job: PlanningJob = { run, target, pull, command, specDir, checkout, startedAt };

  const discussion = await discussAnswers(job, thread);
  if (discussion.waiting) return discussion.waiting;
  const outcome = await runPlanningHere({
    root: run.root,
    specDir,
    command,
    agent,
    agents: agentsConfig(run.config),
    env: run.env,
    logDir: join(run.tempDir, 'harness', 'planning', String(target.comment)),
    progress: jobProgress(run.log),
    clock: systemClock(run.now),
    surface: { budgetTokens: run.config.knowledge.surface.budget_tokens, maxEntries: run.config.knowledge.surface.max_entries },
    ...(discussion.answers !== undefined ? { answers: discussion.answers } : {}),
  });
  // The knowledge the agent had, in the trajectory as a plan's is: matched, and used when what it wrote was committed.
  if (outcome.brief && outcome.surfaced.length > 0)
    await workerCapture({ ...run, spec: { id: run.inputs.spec } })?.file(planningWords(command), [], {
      plan: outcome.brief,
      entries: outcome.surfaced,
      verified: outcome.kind === 'committed',
    });
  const text = await settleBranches(job, outcome);
  return answerOnPull(job, outcome, (await makeSafe(text, safety)).text);
}

/** A planning job, once its command is read and its checkout ready. */
interface PlanningJob {
  run: PlanningWorkerRun;
  target: PlanningTarget;
  pull: PullRequestInfo;
  command: PlanningCommand;
  /** The spec directory, relative to the checkout. */
  specDir: string;
  checkout: Checkout;
  /** The checkout's head when the job started: the commit its check run is on. */
  startedAt: string;
}

/** The planning command, read back from its comment on a pull request of this repository, whose author must still have the configured role. */
async function readCommand(
  run: PlanningWorkerRun,
  target: PlanningTarget,
): Promise<{ pull: PullRequestInfo; thread: CommentRecord[]; asked: CommentRecord; command: PlanningCommand }> {
  const { forge } = run;
  const pull = await forge.pullRequest(target.pull);
  if (pull.headRepo === null || pull.headRepo !== pull.baseRepo)
    throw new WorkerError(`pull request #${target.pull} comes from a fork: planning never runs on one`);
  const thread = await forge.comments(target.pull);
  const asked = thread.find((c) => c.id === target.comment);
  if (!asked) throw new WorkerError(`no comment ${target.comment} on pull request #${target.pull}: it was deleted, so there is no command to run`);
  const parsed = parseCommand(asked.body);
  if (!parsed || parsed instanceof Error || !isPlanningName(parsed.name))
    throw new WorkerError(`comment ${target.comment} on #${target.pull} holds no planning command`);
  const command = parsed as PlanningCommand & { spec?: string };
  const role = await forge.role(asked.author);
  if (asked.authorType === 'Bot' || !permits(role, run.config.permission)) {
    throw new WorkerError(
      `@${asked.author} has ${role === 'none' ? 'no role' : `the ${role} role`} on this repository; planning needs ${run.config.permission}`,
    );
  }
  return { pull, thread, asked, command };
}

/**
 * discuss-phase on a phase whose questions are written: the answers given in the conversation,
 * or, with none yet, the job's outcome after asking for them (the check run neutral).
 */
async function discussAnswers(job: PlanningJob, thread: readonly CommentRecord[]): Promise<{ answers?: string; waiting?: WorkerOutcome }> {
  const { run, target, command, specDir, startedAt } = job;
  if (command.name !== 'discuss-phase') return {};
  const paths = discussPaths(command.phase);
  const hasQuestions = (await readTextIfExists(join(run.root, specDir, paths.questions))) !== undefined;
  if (!hasQuestions) return {};
  const answers = await gatherAnswers(run, thread, run.inputs.spec, command.phase);
  if (answers !== undefined) return { answers };
  const text = `The questions about phase ${command.phase} are in \`${specDir}/${paths.questions}\` and above in this conversation, with no answer from anyone with ${run.config.permission} access yet. Answer them here, then write \`/harness discuss-phase ${command.phase}\` again.`;
  await run.forge.comment(target.pull, text);
  await report(run, target, startedAt, 'neutral', `discuss-phase ${command.phase}: waiting for answers`, text);
  return {
    waiting: { result: 'verified', summary: jobSummary({ heading: `${run.inputs.spec} / ${planningWords(command)}`, status: 'checkpoint', detail: text }) },
  };
}

/** What was committed pushed to the PR's own branch, the claim branch deleted either way: the answer to post (with the questions a discuss-phase wrote). */
async function settleBranches({ run, target, pull, command, specDir, checkout }: PlanningJob, outcome: PlanningOutcome): Promise<string> {
  const { forge } = run;
  const blob = (path: string) => `[\`${path}\`](https://github.com/${forge.repo.owner}/${forge.repo.repo}/blob/${encodeURIComponent(pull.headRef)}/${path})`;
  let text = planningAnswer({ command, spec: run.inputs.spec, branch: pull.headRef, outcome, ...(run.runUrl ? { runUrl: run.runUrl } : {}), link: blob });
  if (outcome.kind === 'committed') {
    // Never forced: a person who pushed meanwhile keeps their commits, and the command is asked again.
    await checkout.push(pull.headRef);
    await checkout.deleteRemote(planningBranch(run.inputs.spec, target));
    if (command.name === 'discuss-phase' && outcome.stages.includes('questions')) {
      const questions = (await readTextIfExists(join(run.root, specDir, discussPaths(command.phase).questions))) ?? '';
      text = `${discussMarker(run.inputs.spec, command.phase)}\n**Questions about phase ${command.phase}** — answer them in this conversation (anyone with ${run.config.permission} access), then write \`/harness discuss-phase ${command.phase}\` again.\n\n${questions.trim()}\n\n---\n\n${text}`;
    }
  } else {
    await checkout.deleteRemote(planningBranch(run.inputs.spec, target));
  }
  return text;
}

/** The answer (made safe) posted in the PR's conversation, the check run told how the command ended, and the job's outcome. */
async function answerOnPull({ run, target, pull, command, startedAt }: PlanningJob, outcome: PlanningOutcome, madeSafe: string): Promise<WorkerOutcome> {
  // A line of the agent's that starts with /harness must not read as a command to the App, which would answer a bot's comment.
  const safe = madeSafe.replace(/^(\s*)\/harness\b/gm, '$1\\/harness');
  await run.forge.comment(target.pull, safe);
  run.log.info(`answered on #${target.pull}: ${outcome.kind === 'committed' ? `committed ${outcome.sha.slice(0, 7)} to ${pull.headRef}` : outcome.reason}`);
  await report(
    run,
    target,
    startedAt,
    outcome.kind === 'committed' ? 'success' : 'failure',
    outcome.kind === 'committed' ? `${planningWords(command)}: ${outcome.files.length} document(s) written` : `${planningWords(command)}: nothing committed`,
    safe,
  );
  return {
    result: outcome.kind === 'committed' ? 'verified' : 'failed',
    ...(outcome.kind === 'failed' ? { failure: `${planningWords(command)}: ${outcome.reason}` } : {}),
    summary: jobSummary({
      heading: `${run.inputs.spec} / ${planningWords(command)}`,
      status: outcome.kind === 'committed' ? 'verified' : 'failed',
      detail: safe,
    }),
  };
}

/**
 * The answers to a phase's questions: the comments after the latest questions comment (by a
 * bot: the App's or the workflow's), by people whose role meets the configured permission,
 * that are not commands. Undefined when there are none.
 */
async function gatherAnswers(run: PlanningWorkerRun, thread: readonly CommentRecord[], spec: string, phase: string): Promise<string | undefined> {
  const marker = discussMarker(spec, phase);
  let at = -1;
  thread.forEach((c, i) => {
    if (c.authorType === 'Bot' && c.body.startsWith(marker)) at = i;
  });
  if (at === -1) return undefined;
  const out: string[] = [];
  for (const c of thread.slice(at + 1)) {
    if (c.authorType === 'Bot' || parseCommand(c.body) !== undefined) continue;
    if (!permits(await run.forge.role(c.author), run.config.permission)) continue;
    out.push(`## @${c.author}, ${c.createdAt}\n\n${c.body.trim()}\n`);
  }
  return out.length === 0
    ? undefined
    : `# Answers to the questions about phase ${phase}\n\nAs written in the pull request's conversation, by people with ${run.config.permission} access.\n\n${out.join('\n')}`;
}

/** The planning check run the App opened for this job, told how it ended; one of the worker's own when there is none. */
async function report(
  run: PlanningWorkerRun,
  target: PlanningTarget,
  sha: string,
  conclusion: 'success' | 'failure' | 'neutral',
  title: string,
  summary: string,
): Promise<void> {
  const external = planningExternalId(run.inputs.spec, target);
  const output = { title, summary: summary.slice(0, 60_000) };
  const found = (await run.forge.checkRuns(sha, PLANNING_CHECK)).find((c) => c.externalId === external);
  if (found && run.checkOwner === 'app') await run.forge.updateCheckRun(found.id, { status: 'completed', conclusion, output });
  else await run.forge.createCheckRun({ name: PLANNING_CHECK, head_sha: sha, status: 'completed', conclusion, external_id: external, output });
}
