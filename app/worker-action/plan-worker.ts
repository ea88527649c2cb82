import { namedFiles } from '../engine/core/run/deviations.js';
import { blockedHostsMarkdown, type BlockedHost } from '../engine/core/agents/sandbox.js';
import { startRunnerSandbox } from './sandbox-tools.js';
import { readFile } from 'node:fs/promises';
import { pushGuard } from './push-guard.js';
import { join } from 'node:path';
import type { Checkpoint, Usage } from '../engine/core/protocol/messages.js';
import type { Plan } from '../engine/core/spec/model.js';
import type { VerificationReport } from '../engine/core/verify/levels.js';
import { budgetSpent, overBudget, spendCap, spendLimit, type SpendLimit } from '../engine/core/run/spend-limit.js';
import { summaryCosts } from '../machine/summary-costs.js';
import { planBranch } from '../engine/forge/names.js';
import { targetCheck, targetExternalId } from '../engine/forge/worker-target.js';
import { agentName, fallbackEngines } from '../engine/lifecycle/assignment.js';
import type { EngineShare } from '../engine/lifecycle/fallback.js';
import { attemptPlan, underStrictFiles, type AttemptInput, type AttemptOutcome } from '../engine/lifecycle/attempt-plan.js';
import type { AttemptPorts, PlanCommit, Progress } from '../engine/lifecycle/ports.js';
import { follow } from '../engine/lifecycle/heartbeat.js';
import { pausePrompt } from '../engine/lifecycle/usage-pause.js';
import { systemClock } from '../machine/clock.js';
import { readTextIfExists } from '../machine/files.js';
import { localVerifyPorts } from '../machine/verify-ports.js';
import { agentsConfig } from '../agents/config.js';
import { GitError } from '../machine/git.js';
import { GitHubError } from '../gateway/github-error.js';
import { agentFor, withSpendLimit } from '../agents/registry.js';
import { workerCapture, workerSafety } from './capture.js';
import { costLine, enginesLine, finalCheck, type JobEnd } from './check-texts.js';
import { restoreCheckpoint, saveCheckpoint, type Restored } from './checkpoint-store.js';
import { Checkout } from './checkout.js';
import { alreadyAsked, answerComments, checkpointComment, issueAnswers, type GivenAnswer } from './issue-answers.js';
import { jobProgress } from './job-log.js';
import { LiveCheck } from './live-check.js';
import { planDocuments, type PlanDocuments } from './plan-documents.js';
import { jobSummary, prBody, prTitle } from './reports.js';
import { planAtBase } from './spec-at-base.js';
import { installSkills } from './job-skills.js';
import { heldOutOnRunner, surfaceOnRunner } from './surfacing.js';
import { recordTrial } from '../engine/knowledge/signals/plan-outcome.js';
import { answerTrust, remoteAccess, WorkerError, type WorkerForge, type WorkerOutcome, type WorkerRun } from './worker-run.js';
import type { CommentRecord } from '../gateway/comments.js';
import type { IssueRecord } from '../gateway/issues.js';
import { recordResumeAt } from './resume-record.js';
import { USAGE_LIMIT_CHECKPOINT } from '../engine/forge/checkpoint-markers.js';
import { tracedAttempt } from '../engine/lifecycle/trace.js';
import { planTracer } from '../machine/otel.js';
import { planUseOf, type RunEnd, type RunRecord } from '../engine/forge/run-record.js';
import { parseMarker } from '../engine/forge/plan-issue.js';
import { runRecord, withRunRecorded, type RunTimes } from './run-account.js';

/** The folder under $RUNNER_TEMP a worker job writes its trace in. */
export const WORKER_TRACES = 'harness-traces';

interface PlanJob {
  run: WorkerRun;
  /** Every engine that worked on the attempt, once a fallback took it over (recordAttempt). */
  engines?: EngineShare[];
  /** Hosts the agents' sandbox refused (network: in .github/harness.yml). */
  blocked?: BlockedHost[];
  plan: Plan;
  issue: IssueRecord;
  comments: CommentRecord[];
  answers: ReadonlyMap<string, GivenAnswer>;
  checkout: Checkout;
  branch: string;
  heading: string;
  agent: string;
  live: LiveCheck;
  logDir: string;
  /** The commit checked out when the job started, before a checkpoint was restored. */
  startingHead: string;
  /** Where the plan's commits start (the merge base with the base branch), being found. */
  base: Promise<string>;
  /** The wip commit of the checkpoint this run resumed: the first push replaces it. */
  restored?: Restored;
  /** The plan's and the spec's budgets, known once the plan and the costs are read at the base. */
  limit?: SpendLimit;
  /** The most the agent may spend in this run: the least of the plan's budget and what is left of the spec's. */
  budgetUsd?: number;
  /** When the job and its attempt's stages ran, for the plan issue's run record (run-account.ts). */
  times: RunTimes;
  /** What the attempt's agents reported they used, and which worked on it (recordAttempt). */
  usage?: Usage;
  ranEngines?: readonly string[];
}

/** Claude Code's permission mode on a runner when .github/harness.yml names none. */
export const RUNNER_PERMISSION_MODE = 'bypassPermissions';
export const RUNNER_APPROVAL_MODE = 'yolo';

/** The Codex CLI's sandbox_mode on a runner when .github/harness.yml names none. */
export const RUNNER_CODEX_SANDBOX = 'danger-full-access';

/** Lines of the agent's own log quoted as a failure's evidence. */
const EVIDENCE_LINES = 40;

/**
 * One plan on a runner (docs/github-flow.md, step 4): the plan's check run taken over and kept
 * live, a checkpoint this run resumes restored, the attempt on the checkout of the plan branch,
 * then the branch pushed and the plan PR opened with SUMMARY.md and VERIFICATION.md. A question
 * nobody has answered yet ends the run successfully with the question on the plan issue, the
 * work in progress and the agent's session on the branch. Whatever happens, the check run's
 * final state is written here.
 */
export async function runPlanWorker(run: WorkerRun, planId: string): Promise<WorkerOutcome> {
  const { spec, log, forge } = run;
  const times: RunTimes = { start: run.now() };
  const listed = spec.planById.get(planId);
  if (!listed) throw new WorkerError(`spec ${spec.id} (${run.specPath}) has no plan ${planId}`);
  const issue = await planIssueOf(forge, spec.id, listed.phase, listed.id);
  if (!issue)
    throw new WorkerError(
      `plan ${listed.id} of ${spec.id} has no issue (labels harness:plan, spec:${spec.id}, marker <!-- harness:plan ${spec.id}/${listed.id} -->) opened by the App: has the spec PR been synced? A worker holding only GITHUB_TOKEN needs the input app-slug to tell the App's issues from others'`,
    );
  const checkout = new Checkout(run.root, remoteAccess(run));
  // Start-up waits on GitHub and on git: each asked while the other answers.
  // Git one process after the other: rev-parse must not read .git/config while the identity is appended to it.
  const gitStart = async () => ({ identity: await checkout.ensureIdentity(), startingHead: await checkout.startingHead() });
  const [comments, { identity, startingHead }] = await Promise.all([forge.comments(issue.number), gitStart()]);
  const agent = agentName(listed, { override: run.inputs.agent, configured: run.config.agent });
  const live = planLiveCheck(run, listed.id);
  const heading = `${spec.id} / ${listed.id} ${listed.title}`;
  // Deepening the checkout to find the plan's base runs while the check run is taken over; work() awaits it.
  const base = checkout.planBase(run.base);
  base.catch(() => undefined);
  try {
    await live.start(startingHead, heading);
  } catch (e) {
    // A job without `checks: write` still does the plan; the summary and the App's settling say how it ended.
    log.warning(`could not create or take over the check run (${e instanceof Error ? e.message : String(e)}): the plan runs without a live check run`);
  }
  if (live.dispatchedAt) times.dispatched = live.dispatchedAt;
  const job: PlanJob = {
    run,
    plan: listed,
    issue,
    comments,
    answers: await answerComments(comments, listed.id, answerTrust(run)),
    checkout,
    branch: planBranch(spec.id, listed.id),
    heading,
    agent,
    live,
    logDir: join(run.tempDir, 'harness', spec.id, listed.id),
    startingHead,
    base,
    times,
  };
  run.notes.push(`agent \`${agent}\`${run.inputs.resume ? ', resumed' : ''}; commits as ${identity.name}; plan issue #${issue.number}`);
  try {
    return await work(job);
  } catch (e) {
    // Not a result the worker chose: still, the check run must not be left in progress.
    const reason = e instanceof Error ? e.message : String(e);
    await settle(job, { kind: 'failed', reason }, []).catch((w: unknown) =>
      log.warning(`could not write the check run's final state: ${w instanceof Error ? w.message : String(w)}`),
    );
    throw e;
  }
}

/** The plan's `harness / plan <id>` check run, kept live by this job (not yet taken over). */
function planLiveCheck(run: WorkerRun, planId: string): LiveCheck {
  const target = { kind: 'plan' as const, spec: run.spec.id, plan: planId };
  return new LiveCheck({
    forge: run.forge,
    owner: run.checkOwner ?? 'actions',
    name: targetCheck(target),
    externalId: targetExternalId(target),
    ...(run.runUrl ? { detailsUrl: run.runUrl } : {}),
    log: run.log,
    now: run.monotonic ?? (() => performance.now()),
    ...(run.checkIntervalMs === undefined ? {} : { intervalMs: run.checkIntervalMs }),
    ...(run.inputs.running === undefined ? {} : { sharing: run.inputs.running }),
  });
}

type Attempt = Awaited<ReturnType<typeof attemptPlan>>;
type Capture = ReturnType<typeof workerCapture>;

/** The plan's job, step by step: each step below reads the job and the steps before it, and says what it changes. */
async function work(job: PlanJob): Promise<WorkerOutcome> {
  const base = await job.base;
  if (job.run.inputs.resume) await resumeAtCheckpoint(job, base);
  const spent = await budgetAtBase(job, base);
  if (spent) return failed(job, spent, [], undefined);
  const capture = workerCapture(job.run);
  const input = await attemptInput(job, base, capture);
  const outcome = await runAttempt(job, input);
  await recordAttempt(job, input, outcome, capture);
  if (outcome.kind === 'checkpoint') return ask(job, outcome.checkpoint, outcome.commits, outcome.facts.usage, outcome.report);
  if (outcome.kind === 'paused') return paused(job, outcome);
  if (outcome.kind === 'failed') return failed(job, outcome.reason, outcome.commits, outcome.facts.usage, outcome.report, await agentEvidence(job));
  return deliver(job, input, outcome);
}

/** A resumed run whose branch ends in a wip commit: the agent's session restored (job.restored), the waiting run's check runs settled. */
async function resumeAtCheckpoint(job: PlanJob, base: string): Promise<void> {
  const { run, checkout } = job;
  const restored = await restoreCheckpoint(checkout, { spec: run.spec.id, plan: job.plan.id, logDir: job.logDir, env: { ...process.env, ...run.env } });
  if (!restored) return;
  job.restored = restored;
  run.notes.push(
    `resumed at checkpoint \`${restored.saved.checkpoint.id}\`${restored.saved.session ? ` in the agent's session ${restored.saved.session.id}` : ''}`,
  );
  // The waiting run's check runs still ask for action on the commits it wrote them to; this run took over.
  if (job.live.started)
    await job.live.settleAnswered([base, job.startingHead, ...(restored.saved.waiting ?? [])]).catch((e: unknown) => {
      if (!(e instanceof GitHubError)) throw e;
      run.log.warning(`could not settle the check runs the checkpoint left waiting: ${e.message}`);
    });
}

/** The plan as its base has it (job.plan), and its spend limit and cap (job.limit, job.budgetUsd); why not to start when the budget is spent already. */
async function budgetAtBase(job: PlanJob, base: string): Promise<string | undefined> {
  const { run } = job;
  // Checked as the base has the plan: what the agent did to PLAN.md on its branch does not count. A branch
  // still at its base (a first run) was read from the base's own files already, in a fresh checkout.
  let costs: Map<string, number>;
  if (job.startingHead !== base) ({ plan: job.plan, costs } = await planAtBase(run.root, base, run.specPath, job.plan.id, run.tempDir));
  else costs = await summaryCosts(join(run.root, run.specPath));
  job.limit = spendLimit(job.plan.id, job.plan.budgetUsd, { id: run.spec.id, budgetUsd: run.config.budget_usd, costs });
  job.budgetUsd = spendCap(job.limit);
  return budgetSpent(job.limit);
}

/** What the attempt is given: the plan, its base, the brief's surfaced knowledge and the history captured for it. */
async function attemptInput(job: PlanJob, base: string, capture: Capture): Promise<AttemptInput> {
  const { run, plan, agent } = job;
  const { spec } = run;
  // The script agent runs the plan's own steps and reads no brief: there is nothing to surface into.
  const knowledge = agent === 'script' ? undefined : await surfaceOnRunner(run, plan, capture?.history(plan));
  if (knowledge && knowledge.length > 0) run.notes.push(`surfaced into the brief: ${knowledge.map((k) => `${k.kind} \`${k.path}\``).join(', ')}`);
  const fallback = fallbackEngines(plan, agent, { override: run.inputs.agent, fallback: run.config.agents.fallback });
  return {
    spec: spec.id,
    plan,
    agent,
    session: `${spec.id}-${plan.id}`,
    base,
    resume: run.inputs.resume,
    prompt: () => readFile(join(run.root, run.specPath, plan.file), 'utf8'),
    env: run.env,
    logDir: job.logDir,
    ...(capture ? { history: capture.history(plan) } : {}),
    ...(agent === 'claude' && run.config.agents.claude?.model ? { expects: { model: run.config.agents.claude.model } } : {}),
    ...(knowledge ? { knowledge } : {}),
    ...(fallback.length > 0 ? { fallback } : {}),
  };
}

/** The agent's attempt at the plan, verified on this runner, with the store's skills installed for it alone. */
async function runAttempt(job: PlanJob, input: AttemptInput): Promise<Attempt> {
  const { run, checkout, agent } = job;
  const clock = systemClock(run.now);
  const agents = withSpendLimit(agentsConfig(run.config), job.limit);
  // On a runner the agent must run the project's commands with nobody there to allow each, and the job holds no
  // write token for it to misuse: bypassPermissions, unless the config chose a mode (templates/workflows/harness-worker.yml).
  agents.claude = { permissionMode: RUNNER_PERMISSION_MODE, ...agents.claude };
  // The runner is a throwaway machine with no write token: the Codex CLI's commands run unsandboxed there unless the config chose a sandbox.
  agents.codex = { sandbox: RUNNER_CODEX_SANDBOX, ...agents.codex };
  // The same for Gemini CLI: yolo (every tool call approved) unless the config chose a mode.
  agents.gemini = { approvalMode: RUNNER_APPROVAL_MODE, ...agents.gemini };
  // Claude Code reads a project's skills from .claude/skills/: the store's active ones are put there for this attempt only
  // (not for a plan held out for the comparison, which runs without what was learned).
  const skills = agent === 'claude' && !heldOutOnRunner(run, job.plan) ? await installSkills(run.root, run.log) : undefined;
  // network: in .github/harness.yml puts every agent process behind the sandbox's allowlist (docs/security.md); the runner is made ready for it first.
  const network = run.config.network;
  const sandbox = network
    ? await startRunnerSandbox({ allowed: network.allowed, blocked: network.blocked, env: { ...process.env, ...run.env } }, (line) => run.log.info(line))
    : undefined;
  let outcome: Attempt;
  // While it runs, a silence in the job's log says what the agent is at, then which check runs (engine/lifecycle/heartbeat.ts).
  const followed = follow(run.heartbeat, { plan: job.plan.id, agent }, {
    agent: (name: string) => agentFor(name, agents),
    workspace: checkout,
    verifyPorts: () => localVerifyPorts(run.root, { env: run.env, clock }),
    answers: issueAnswers(job.answers),
    progress: liveProgress(jobProgress(run.log), job.live),
    clock,
    ...(sandbox ? { sandboxes: sandbox } : {}),
  } satisfies AttemptPorts);
  // The attempt as a trace: a JSONL file the workflow keeps as an artifact, and the OTLP collector the job's environment names (machine/otel.ts).
  // The attempt: one more than the attempts its issue's run record says ended (a run resumed at a checkpoint goes on with the same one).
  const attempt = (planUseOf(parseMarker(job.issue.body)?.runs)?.attempts ?? 0) + 1;
  const ids = {
    'harness.spec': run.spec.id,
    'harness.plan': job.plan.id,
    'harness.attempt': attempt,
    ...(run.runId ? { 'harness.run': run.runId } : {}),
    ...(run.repository ? { 'github.repository': run.repository } : {}),
  };
  const tracer = planTracer(workerTraceFile(run.tempDir, run.spec.id, job.plan.id), ids, { ...process.env, ...run.env }, workerSafety(run));
  job.times.attempt = run.now();
  try {
    // strict_files: a write outside files_modified fails the plan before its push and PR (the lifecycle's rule, the local run's too).
    outcome = underStrictFiles(
      await tracedAttempt(tracer, job.plan, { ...ids, 'harness.agent': agent }, followed.ports, (ports, linked) =>
        attemptPlan({ ...input, env: { ...input.env, ...linked } }, ports),
      ),
      run.config.strict_files,
    );
  } finally {
    followed.end();
    await tracer.close();
    await skills?.remove();
    await sandbox?.close();
  }
  job.times.agentMs = outcome.timing.agentMs;
  job.times.verifyMs = outcome.timing.verifyMs;
  if (skills && skills.names.length > 0) run.notes.push(`skills installed for the agent (this job only): ${skills.names.map((n) => `\`${n}\``).join(', ')}`);
  return outcome;
}

/** The attempt's signals filed (and, once it ended, its knowledge on record), and its cost in the notes. */
async function recordAttempt(job: PlanJob, input: AttemptInput, outcome: Attempt, capture: Capture): Promise<void> {
  const { run, plan } = job;
  // The attempt's signals go to the spec's signals PR whatever came of it (a pause has none); only an ended attempt has its knowledge on record.
  const ended = outcome.kind !== 'checkpoint' && outcome.kind !== 'paused';
  // A failed attempt's record for the holdout comparison (plan-outcome.ts): held out or not, its brief, its cost.
  const heldOut = input.knowledge !== undefined && heldOutOnRunner(run, plan);
  const costUsd = outcome.facts.usage?.costUsd;
  const signals = recordTrial(outcome.signals, {
    heldOut,
    ...(input.knowledge ? { knowledge: input.knowledge } : {}),
    ...(costUsd === undefined ? {} : { costUsd }),
  });
  await capture?.file(
    `${plan.id} ${outcome.kind}`,
    signals,
    ended
      ? {
          plan,
          entries: input.knowledge ?? [],
          verified: outcome.kind === 'verified',
          results: ('report' in outcome ? outcome.report?.results : undefined) ?? [],
          undeclared: outcome.facts.undeclaredWrites.flatMap((d) => d.files),
        }
      : undefined,
  );
  const usage = outcome.facts.usage;
  if (usage) run.notes.push(costNote(usage, outcome.facts.agent, outcome.facts.attempt, job.budgetUsd));
  job.usage = usage;
  // What the sandbox refused, with the line that allows it: on the check run and in the job's summary (the PR body says it too).
  if (outcome.facts.blocked) {
    job.blocked = outcome.facts.blocked;
    run.notes.push(blockedHostsMarkdown(outcome.facts.blocked).join('\n  '));
  }
  job.ranEngines = outcome.facts.engines?.map((e) => e.agent) ?? [outcome.facts.agent];
  // A fallback took the plan over at a usage limit (agents.fallback): every engine that worked on it, in order, in the notes and on the check run.
  if (outcome.facts.engines) {
    job.engines = outcome.facts.engines;
    run.notes.push(enginesLine(outcome.facts.engines));
  }
}

/** An attempt paused at the model's usage limit (engine/lifecycle/usage-pause.ts): a question to continue once it resets, resume_at= for the App. */
function paused(job: PlanJob, outcome: Extract<Attempt, { kind: 'paused' }>): Promise<WorkerOutcome> {
  const { pause } = outcome;
  const checkpoint: Checkpoint = { id: USAGE_LIMIT_CHECKPOINT, kind: 'action', prompt: pausePrompt(pause), source: job.agent };
  return ask(job, checkpoint, outcome.commits, outcome.facts.usage, undefined, { resetsAt: pause.resetsAt, evidence: pause.evidence });
}

/** A verified attempt: within budget, committed and clean, its documents written, pushed, and its plan PR opened. */
async function deliver(job: PlanJob, input: AttemptInput, outcome: Extract<Attempt, { kind: 'verified' }>): Promise<WorkerOutcome> {
  const { run, plan, agent } = job;
  const { report, commits } = outcome;
  const usage = outcome.facts.usage;
  const refused = await whyUndeliverable(job, outcome);
  if (refused) return failed(job, refused, commits, usage, report);

  // Writes outside files_modified (strict_files off): said on the PR, the check run and in the job's summary.
  const outside = outcome.facts.undeclaredWrites.flatMap((d) => d.files);
  if (outside.length > 0) run.notes.push(`changed files outside files_modified: ${namedFiles(outside)}`);
  const documents = await planDocuments(job, outcome, workerSafety(run), {
    ...(input.knowledge ? { knowledge: input.knowledge } : {}),
    heldOut: input.knowledge !== undefined && heldOutOnRunner(run, plan),
  });
  const pushed = await push(job);
  if (pushed) return failed(job, pushed.reason, commits, usage, report, pushed.evidence, { pushed: false });
  const pr = await run.forge.openPullRequest({
    head: job.branch,
    base: run.base,
    title: prTitle(plan),
    body: prBody({
      spec: run.spec.id,
      specPath: run.specPath,
      plan,
      issue: job.issue.number,
      agent,
      report,
      commits,
      ...(outcome.summary === undefined ? {} : { agentSummary: outcome.summary }),
      ...(run.runUrl === undefined ? {} : { runUrl: run.runUrl }),
      ...(input.knowledge && input.knowledge.length > 0 ? { knowledge: input.knowledge } : {}),
      ...(outside.length > 0 ? { outside } : {}),
      ...(outcome.facts.blocked ? { blocked: outcome.facts.blocked } : {}),
      documents: documents.inBody,
    }),
  });
  run.log.info(`${pr.created ? 'opened' : 'updated'} the plan PR #${pr.number}: ${pr.url}`);
  const pullRequest = { number: pr.number, url: pr.url };
  await settle(job, { kind: 'verified', pullRequest, ...(outside.length > 0 ? { outside } : {}) }, commits, usage, report);
  return {
    result: 'verified',
    pullRequest,
    report,
    summary: jobSummary({
      heading: job.heading,
      status: 'verified',
      detail: `plan PR [#${pr.number}](${pr.url}) into \`${run.base}\``,
      notes: run.notes,
      report,
      commits,
    }),
  };
}

/** Why a verified attempt cannot become a plan PR (over budget, no commits, changes left uncommitted); undefined when it can. */
async function whyUndeliverable({ checkout, plan, limit }: PlanJob, outcome: Extract<Attempt, { kind: 'verified' }>): Promise<string | undefined> {
  const usage = outcome.facts.usage;
  // Agents other than claude are checked here, once, on the cost they reported.
  const over = limit && usage?.costUsd !== undefined ? overBudget(limit, usage.costUsd) : undefined;
  if (over) return over;
  // Nothing to merge is no finished plan: its issue would never close.
  if (outcome.commits.length === 0) return `plan ${plan.id} passed its checks but made no commits: there is nothing to open a pull request for`;
  // What the checks saw must be what the pull request holds.
  const dirty = await checkout.uncommitted();
  if (dirty.length > 0)
    return `the agent left changes that are not committed, so the checks ran on work the pull request would not hold: ${dirty.slice(0, 10).join(', ')}${dirty.length > 10 ? ` … and ${dirty.length - 10} more` : ''}`;
  return undefined;
}

/** The attempt's events to the job log and to the live check run. */
function liveProgress(log: Progress, live: LiveCheck): Progress {
  return {
    event: async (e) => {
      await log.event(e);
      live.event(e);
    },
    stage: (title, work) => log.stage(title, work),
  };
}

/**
 * Stop for a person (or for the model's usage limit to reset): the work in progress and the
 * agent's session committed as a wip commit and pushed, the question on the issue, the issue
 * marked, the check run waiting for an answer.
 */
async function ask(
  job: PlanJob,
  checkpoint: Checkpoint,
  commits: PlanCommit[],
  usage: Usage | undefined,
  report?: VerificationReport,
  pause?: { resetsAt: Date | undefined; evidence: string },
): Promise<WorkerOutcome> {
  const { run, plan, issue } = job;
  await saveCheckpoint(job.checkout, {
    spec: run.spec.id,
    plan: plan.id,
    agent: job.agent,
    checkpoint,
    logDir: job.logDir,
    env: { ...process.env, ...run.env },
    safety: workerSafety(run),
    at: run.now(),
    // This run's check run is on its starting head, and earlier stops' on theirs: whoever goes on settles them all.
    waiting: [...(job.restored?.saved.waiting ?? []), job.startingHead],
  });
  // Pushed first, so that whoever reads the question can see the work it is about.
  const pushed = await push(job);
  if (pushed) return failed(job, `stopped at checkpoint ${checkpoint.id}, but ${pushed.reason}`, commits, usage, report, pushed.evidence, { pushed: false });
  if (alreadyAsked(job.comments, plan.id, checkpoint.id, job.answers, run.appLogin))
    run.log.info(`checkpoint ${checkpoint.id} was asked on #${issue.number} already`);
  else await run.forge.comment(issue.number, checkpointComment(plan.id, checkpoint));
  // The run's record (when it ran, what it used) in the status's own PATCH.
  Object.assign(
    issue,
    await run.forge.setStatus({ ...issue, body: withRunRecorded(issue.body ?? '', thisRun(job, pause ? 'paused' : 'checkpoint')) }, 'checkpoint'),
  );
  // When the App may resume by itself: only after a usage limit, never a person's checkpoint.
  await recordResumeAt(run.forge, issue, pause?.resetsAt);
  run.log.info(`waiting for a person at checkpoint ${checkpoint.id}: asked on ${issue.url}`);
  const end: JobEnd = pause
    ? { kind: 'paused', evidence: pause.evidence, issueUrl: issue.url, ...(pause.resetsAt ? { resetsAt: pause.resetsAt } : {}) }
    : { kind: 'checkpoint', checkpoint, issueUrl: issue.url };
  await settle(job, end, commits, usage, report);
  return {
    result: 'checkpoint',
    checkpoint: checkpoint.id,
    ...(report ? { report } : {}),
    summary: jobSummary({
      heading: job.heading,
      status: 'checkpoint',
      detail: `${pause ? "paused at the model's usage limit: " : ''}checkpoint \`${checkpoint.id}\` (${checkpoint.kind}) asked on [#${issue.number}](${issue.url}); answer with \`/harness respond ${plan.id} ${pause ? 'continue' : '<answer>'}\``,
      notes: run.notes,
      ...(report ? { report } : {}),
      commits,
    }),
  };
}

async function failed(
  job: PlanJob,
  reason: string,
  commits: PlanCommit[],
  usage: Usage | undefined,
  report?: VerificationReport,
  evidence?: string,
  options: { pushed?: boolean } = {},
): Promise<WorkerOutcome> {
  // What was committed stays visible on the branch; a push that fails must not hide the reason.
  if (options.pushed !== false && commits.length > 0) {
    const pushed = await push(job);
    if (pushed) job.run.log.warning(pushed.reason);
  }
  await settle(job, { kind: 'failed', reason, ...(evidence ? { evidence } : {}) }, commits, usage, report);
  return {
    result: 'failed',
    failure: reason,
    ...(report ? { report } : {}),
    summary: jobSummary({ heading: job.heading, status: 'failed', detail: reason, notes: job.run.notes, ...(report ? { report } : {}), commits }),
  };
}

/** Push the branch; undefined when it went, else why not (a protected branch, a branch that moved), with git's words. */
async function push(job: PlanJob): Promise<{ reason: string; evidence: string } | undefined> {
  const leak = await pushGuard(job.checkout.root, await job.base, job.branch);
  if (leak) return leak;
  try {
    await job.checkout.push(job.branch, job.restored?.wip);
    job.restored = undefined;
    return undefined;
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
    const protectedBranch = /GH006|protected branch|pre-receive hook declined/i.test(e.stderr);
    const reason = protectedBranch
      ? `the push to ${job.branch} was rejected by branch protection: allow the worker to push to harness/* branches (or exclude them from the rule), then /harness retry ${job.plan.id}`
      : `the push to ${job.branch} failed: ${e.stderr.trim().split('\n').at(-1) ?? 'no output'}`;
    return { reason, evidence: e.stderr.trim() };
  }
}

/**
 * The check run's final state, written by the worker whatever the end. The end is decided before
 * this write: a write that still fails after the client's retries (GitHub down for longer) is said
 * in the job log and never turns the outcome into another one (a verified plan with its PR open
 * stays verified); the App settles the check run when the workflow run completes.
 */
async function settle(job: PlanJob, end: JobEnd, commits: readonly PlanCommit[], usage?: Usage, report?: VerificationReport): Promise<void> {
  // Without a check run taken over, nor its final state written, the App settles both when the workflow run completes.
  if (!job.live.started) return;
  try {
    await writeFinal(job, end, commits, usage, report);
  } catch (e) {
    if (!(e instanceof GitHubError)) throw e;
    job.run.log.warning(
      `could not write the check run's final state (${end.kind}): ${e.message}; the App settles it, and the plan issue's status, when this workflow run completes`,
    );
    // The issue's status is left to the App too: a plan its worker marked verified is one whose check run it concluded (worker-run.ts reads no further).
    return;
  }
  if (end.kind === 'verified' || end.kind === 'failed') await endStatus(job, end.kind);
}

/**
 * The plan issue's status as the plan ended, written here where the outcome is known first:
 * the App, which would write it when the workflow run completes, finds it written and writes
 * nothing (its writes are spaced a second apart, one installation's after another's). Only
 * from `running`: a status someone set meanwhile (an abort, a retry) stands. Failing to write
 * it fails nothing: the App writes it then.
 */
async function endStatus(job: PlanJob, to: 'verified' | 'failed'): Promise<void> {
  try {
    // The run's record (when it ran, what it used) goes with it, and stays even when someone moved the status meanwhile.
    const moved = await job.run.forge.moveStatus(job.issue.number, 'running', to, (body) => withRunRecorded(body, thisRun(job, to)));
    if (moved === 'changed') job.run.log.info(`plan issue #${job.issue.number}: its status changed while the plan ran; left as it is`);
  } catch (e) {
    if (!(e instanceof GitHubError)) throw e;
    job.run.log.warning(`could not mark plan issue #${job.issue.number} ${to} (${e.message}); the App does when this workflow run completes`);
  }
}

async function writeFinal(job: PlanJob, end: JobEnd, commits: readonly PlanCommit[], usage?: Usage, report?: VerificationReport): Promise<void> {
  const head = end.kind === 'failed' && !(await pushedHead(job)) ? undefined : await job.checkout.head();
  await job.live.finish(
    finalCheck({
      heading: job.heading,
      plan: job.plan.id,
      end,
      owner: job.run.checkOwner ?? 'actions',
      ...(report ? { report } : {}),
      commits,
      ...(usage ? { usage } : {}),
      ...(job.budgetUsd === undefined ? {} : { budgetUsd: job.budgetUsd }),
      ...(job.run.runUrl ? { jobUrl: job.run.runUrl } : {}),
      ...(job.engines ? { engines: job.engines } : {}),
      ...(job.blocked ? { blocked: job.blocked } : {}),
    }),
    head,
  );
}

/** Whether the remote branch is at the checkout's head (a failed push leaves it elsewhere). */
async function pushedHead(job: PlanJob): Promise<boolean> {
  // A remote that cannot be asked cannot say the push landed.
  const remote = await job.checkout.remoteHead(job.branch).catch((e: unknown) => {
    if (e instanceof GitError) return undefined;
    throw e;
  });
  return remote === (await job.checkout.head());
}

/** The last lines the agent wrote to its log, for a failure's evidence. */
async function agentEvidence(job: PlanJob): Promise<string | undefined> {
  for (const name of ['claude.log', 'command.log', 'codex.log']) {
    const text = await readTextIfExists(join(job.logDir, name));
    if (text !== undefined && text.trim()) return text.trimEnd().split('\n').slice(-EVIDENCE_LINES).join('\n');
  }
  return undefined;
}

/** This run's entry in its plan issue's `runs=` record, ending now. */
function thisRun(job: PlanJob, end: RunEnd): RunRecord {
  return runRecord(job.run.runId, job.times, job.run.now(), end, job.ranEngines ?? [job.agent], job.usage);
}

/** Where a worker job writes its plan's trace: the workflow uploads the folder as an artifact (templates/workflows/harness-worker.yml). */
export function workerTraceFile(tempDir: string, spec: string, plan: string): string {
  return join(tempDir, WORKER_TRACES, `${spec}-${plan}.jsonl`);
}

/** The step summary's spend line: the engine, what it reported (cost, turns, tokens), the attempt and the budget. */
function costNote(usage: Usage, agent: string, attempt: number | undefined, budget?: number): string {
  return `spend: ${agent}${attempt === undefined ? '' : `, attempt ${attempt}`}: ${costLine(usage, budget).replace(/^Cost: /, '')}`;
}

export type { PlanDocuments, AttemptOutcome };

/**
 * The plan's issue: among its phase's issues first (one page, where a large spec's whole list is
 * ten), then, if someone took the phase label off it, among the whole spec's.
 */
export async function planIssueOf(forge: Pick<WorkerForge, 'planIssues'>, spec: string, phase: string, plan: string): Promise<IssueRecord | undefined> {
  return (await forge.planIssues(spec, phase)).byPlan.get(plan) ?? (await forge.planIssues(spec)).byPlan.get(plan);
}
