import { readFile } from 'node:fs/promises';
import { blockedHostsLine } from '../engine/core/agents/sandbox.js';
import { leakReason, scanCommits } from '../machine/push-scan.js';
import { secretValues } from '../machine/content-safety.js';
import { join } from 'node:path';
import { TRAILER_SPEC, TRAILER_TASK, trailerValue } from '../engine/core/agents/commit-message.js';
import type { WorkerMessage } from '../engine/core/protocol/messages.js';
import { summaryDocument } from '../engine/core/run/summary-document.js';
import type { Plan } from '../engine/core/spec/model.js';
import { agentName, fallbackEngines } from '../engine/lifecycle/assignment.js';
import { attemptPlan, underStrictFiles, type AttemptInput, type AttemptOutcome } from '../engine/lifecycle/attempt-plan.js';
import { follow } from '../engine/lifecycle/heartbeat.js';
import { readTextIfExists } from '../machine/files.js';
import { loadTemplate } from '../machine/templates.js';
import { localAttemptPorts, reportForeign } from './attempt-ports.js';
import { attemptCapsule, attemptTrajectory, fileKnowledge, planHistory, runSafety } from './capture.js';
import type { RunContext } from './context.js';
import { commitDocuments, executionDir, noteActivity, planTrailer } from './documents.js';
import { PlanSession } from './session.js';
import type { SessionResult } from './store.js';
import { planHeldOut, surfaceForPlan } from './surfacing.js';
import { recordTrial } from '../engine/knowledge/signals/plan-outcome.js';
import { pausePlan } from './usage-pause.js';
import { planTracer } from '../machine/otel.js';
import { tracedAttempt } from '../engine/lifecycle/trace.js';
import { planUseOf } from './run-state.js';
import { addUsage } from '../engine/core/run/spend.js';

type Ended = Extract<AttemptOutcome, { kind: 'verified' | 'failed' }>;

function minutesBetween(from: string, to: Date): number {
  return Math.max(0, Math.round(((to.getTime() - Date.parse(from)) / 60_000) * 10) / 10);
}

/**
 * One plan, start to end: its branch and worktree from the integration branch, the attempt
 * (agent and plan-level verification, asking a person for human checks), the merge, and its
 * SUMMARY.md. Every step first looks at what is already on disk, so a run killed anywhere in
 * here and started again continues where it was and repeats no commit.
 */
export async function executePlan(ctx: RunContext, plan: Plan): Promise<void> {
  const session = await PlanSession.open(ctx, plan, agentName(plan, { override: ctx.options.agent, configured: ctx.options.defaultAgent }));
  const { status } = session;
  await ctx.watch.watch(plan.id, status.worktree);
  try {
    await attemptAndRecord(ctx, plan, session);
  } finally {
    ctx.watch.forget(plan.id);
  }
}

async function attemptAndRecord(ctx: RunContext, plan: Plan, session: PlanSession): Promise<void> {
  const { status } = session;
  ctx.reporter.event({ kind: 'plan-started', plan: plan.id, title: plan.title, attempt: status.attempt, resumed: session.resumed });
  const input = await attemptInput(ctx, plan, session);
  const outcome = await attempt(ctx, plan, session, input);
  // Nobody answered and the run could not wait (it was stopped): the session stays as it is, and the next run resumes it.
  if (outcome.kind === 'checkpoint') return;
  // The model's usage limit: the plan waits for the reset, the same attempt (usage-pause.ts).
  if (outcome.kind === 'paused') return ctx.mutex.run(() => pausePlan(ctx, plan, session, outcome, input.logDir));
  if (outcome.kind === 'failed') return ctx.mutex.run(() => record(ctx, plan, session, input, outcome));

  // Merge and record, one plan at a time on the integration worktree.
  await ctx.mutex.run(() => mergeAndRecord(ctx, plan, session, input, outcome));
  // Its worktree goes to the run's next plan (RunRepo.ensureWorktree), or is removed when the run ends.
  if (ctx.schedule.plan(plan.id) === 'verified') {
    // Unwatched first: once retired, another plan may take (move) it.
    ctx.watch.forget(plan.id);
    await ctx.repo.retireWorktree(status.worktree);
  }
}

/** What the attempt is given: the plan's session, where its prompt and logs are, and what was surfaced for its brief. */
async function attemptInput(ctx: RunContext, plan: Plan, session: PlanSession): Promise<AttemptInput> {
  const { status } = session;
  // The script agent runs the plan's own steps and reads no brief: there is nothing to surface into.
  const knowledge = status.agent === 'script' ? undefined : await surfaceForPlan(ctx, plan, session.resumed);
  const input: AttemptInput = {
    spec: ctx.spec.id,
    plan,
    agent: status.agent,
    session: status.sessionId,
    base: status.base,
    resume: session.resumed,
    ...(session.checkoutMade ? { checkoutMade: true } : {}),
    prompt: () => readFile(join(ctx.options.specDir, plan.file), 'utf8'),
    env: ctx.options.env ?? {},
    logDir: ctx.store.logDir(plan.id),
    signal: ctx.abort.signal,
    attempt: status.attempt,
    agentDone: status.state === 'completed',
    // The store is written under the integration mutex: it is read under it too.
    history: () => ctx.mutex.run(planHistory(ctx, plan)),
    ...(status.agent === 'claude' && ctx.options.agents?.claude?.model ? { expects: { model: ctx.options.agents.claude.model } } : {}),
    ...(knowledge ? { knowledge } : {}),
  };
  const fallback = fallbackEngines(plan, status.agent, { override: ctx.options.agent, fallback: ctx.options.fallback });
  if (fallback.length > 0) input.fallback = fallback;
  return input;
}

/**
 * The attempt (engine/lifecycle/attempt-plan.ts), followed by the heartbeat and traced; what its
 * agent wrote in other plans' worktrees counted as its own, strict_files applied, its time added to the run's.
 */
async function attempt(ctx: RunContext, plan: Plan, session: PlanSession, input: AttemptInput): Promise<AttemptOutcome> {
  const { status } = session;
  // While it runs, a silence says what its agent is at, then which check runs (engine/lifecycle/heartbeat.ts).
  const followed = follow(ctx.heartbeat, { plan: plan.id, agent: status.agent }, localAttemptPorts(ctx, plan, session));
  // The attempt as a trace: .orchestration/<spec>/sessions/<plan>/trace.jsonl, and the OTLP collector the environment names (machine/otel.ts).
  const ids = { 'harness.spec': ctx.spec.id, 'harness.plan': plan.id, 'harness.attempt': status.attempt };
  const tracer = planTracer(join(ctx.store.sessionDir(plan.id), 'trace.jsonl'), ids, { ...process.env, ...ctx.options.env }, runSafety(ctx));
  const attempted = await tracedAttempt(tracer, plan, { ...ids, 'harness.agent': status.agent }, followed.ports, (ports, linked) =>
    attemptPlan({ ...input, env: { ...input.env, ...linked } }, ports),
  ).finally(async () => {
    followed.end();
    await tracer.close();
    reportForeign(ctx, await ctx.watch.attemptEnded(plan.id));
  });
  // What its agent wrote in other plans' worktrees is its deviation, not theirs (worktree-watch.ts).
  const foreign = ctx.watch.deviationsOf(plan.id);
  const written =
    foreign.length === 0 ? attempted : { ...attempted, facts: { ...attempted.facts, undeclaredWrites: [...attempted.facts.undeclaredWrites, ...foreign] } };
  // strict_files: a write outside files_modified fails the plan, before anything is merged (the lifecycle's rule, the worker's too).
  const outcome = underStrictFiles(written, ctx.options.strictFiles === true);
  ctx.timing.agentMs += outcome.timing.agentMs;
  ctx.timing.verifyMs += outcome.timing.verifyMs;
  return outcome;
}

/**
 * A verified attempt, under the integration mutex: its commits scanned for secrets, then merged
 * into the integration branch and recorded; a leak or a conflict records it failed instead.
 */
async function mergeAndRecord(
  ctx: RunContext,
  plan: Plan,
  session: PlanSession,
  input: AttemptInput,
  outcome: Extract<AttemptOutcome, { kind: 'verified' }>,
): Promise<void> {
  const { status } = session;
  // What the agent committed is scanned before it joins the integration branch, as a runner's push is (push-scan.ts):
  // in the repository itself, which has every branch's commits, whatever an agent did to a worktree's .git.
  const findings = await scanCommits(
    ctx.repo.root,
    { base: ctx.integration.branch, head: status.branch, allowFrom: ctx.record.baseSha },
    secretValues(process.env),
  );
  const leak = leakReason(findings, `merged into ${ctx.integration.branch}`, ctx.record.baseBranch);
  if (leak !== undefined) {
    const signals = outcome.signals.filter((s) => s.type !== 'use' && s.type !== 'repair');
    return record(ctx, plan, session, input, { ...outcome, kind: 'failed', reason: leak, signals });
  }
  const merged = await ctx.repo.merge(ctx.integration.worktree, status.branch, {
    subject: `Merge plan ${plan.id}: ${plan.title}`,
    trailers: [planTrailer(plan.id), { key: TRAILER_SPEC, value: ctx.spec.id }],
  });
  if (!merged.ok) {
    const reason = `merging into ${ctx.integration.branch} conflicts in ${merged.conflicts.join(', ')}: a file outside files_modified?`;
    // What said the plan passed is no longer true of it.
    const signals = outcome.signals.filter((s) => s.type !== 'use' && s.type !== 'repair');
    return record(ctx, plan, session, input, { ...outcome, kind: 'failed', reason, signals });
  }
  return record(ctx, plan, session, input, outcome, merged.sha);
}

/** An attempt's end as record's steps share it. */
interface Ending {
  plan: Plan;
  session: PlanSession;
  input: AttemptInput;
  outcome: Ended;
  verified: boolean;
  /** Why it failed; none when verified. */
  reason: string | undefined;
  /** Held out for the comparison (knowledge.holdout): only a plan whose agent reads a brief can be. */
  heldOut: boolean;
  finished: Date;
  minutes: number;
}

/**
 * The end of an attempt, under the integration mutex: the run's picture of the plan, its
 * SUMMARY.md (with commits.log) committed on the integration branch, then result.json.
 */
async function record(ctx: RunContext, plan: Plan, session: PlanSession, input: AttemptInput, outcome: Ended, mergedAs?: string): Promise<void> {
  const { status } = session;
  const verified = outcome.kind === 'verified';
  const reason = outcome.kind === 'failed' ? outcome.reason : undefined;
  const heldOut = input.knowledge !== undefined && planHeldOut(ctx, plan);
  const finished = ctx.now();
  const end: Ending = { plan, session, input, outcome, verified, reason, heldOut, finished, minutes: minutesBetween(status.startedAt, finished) };
  notePlanEnded(ctx, end);
  const summary = await summaryOf(ctx, end);
  const phase = ctx.spec.phases.find((p) => p.id === plan.phase)!;
  const knowledge = await fileAttempt(ctx, end);
  await commitDocuments(
    ctx,
    { [`${executionDir(phase)}/${plan.id}-SUMMARY.md`]: summary },
    verified ? `summary of ${plan.id}` : `${plan.id} failed`,
    [planTrailer(plan.id)],
    verified ? outcome.commits.map((c) => ({ sha: c.sha, plan: plan.id, task: trailerValue(c.trailers, TRAILER_TASK) ?? '-', subject: c.subject })) : [],
    knowledge,
    `plan ${plan.id} attempt ${status.attempt} ${outcome.kind}`,
  );
  const result = sessionResult(ctx, end, mergedAs);
  await session.finish(result);
  const use = planUseOf(result, status.agent);
  if (use) ctx.state.uses.set(plan.id, use);
  const seconds = Math.max(0, (finished.getTime() - Date.parse(status.startedAt)) / 1000);
  ctx.reporter.event(
    verified ? { kind: 'plan-verified', plan: plan.id, minutes: end.minutes, seconds } : { kind: 'plan-failed', plan: plan.id, reason: reason! },
  );
}

/** The run's picture of the plan as the attempt ended (its state, minutes, cost and reason), and its line in the activity. */
function notePlanEnded(ctx: RunContext, { plan, outcome, verified, reason, minutes }: Ending): void {
  ctx.schedule.setPlan(plan.id, outcome.kind);
  ctx.state.minutes.set(plan.id, minutes);
  // Before STATUS.md is written below: its cost per plan and in all.
  if (outcome.facts.usage?.costUsd !== undefined) ctx.state.costs.set(plan.id, outcome.facts.usage.costUsd);
  if (reason === undefined) ctx.state.reasons.delete(plan.id);
  else ctx.state.reasons.set(plan.id, reason);
  const outside = outcome.facts.undeclaredWrites.flatMap((d) => d.files);
  // A write outside files_modified is said where people look first, not only in the SUMMARY.
  const deviation =
    verified && outside.length > 0 ? `; deviation: wrote outside files_modified: ${outside.slice(0, 5).join(', ')}${outside.length > 5 ? ', …' : ''}` : '';
  const refused = outcome.facts.blocked ? blockedHostsLine(outcome.facts.blocked) : undefined;
  noteActivity(ctx, `${verified ? `${plan.id} verified and merged${deviation}` : `${plan.id} failed: ${reason}`}${refused ? `; ${refused}` : ''}`);
}

/** The plan's SUMMARY.md. */
async function summaryOf(ctx: RunContext, { plan, session, input, outcome, reason, heldOut, finished, minutes }: Ending): Promise<string> {
  const { status } = session;
  const agentSummary = outcome.kind === 'verified' ? (outcome.summary ?? (await earlierSummary(ctx, plan.id))) : undefined;
  return summaryDocument(await loadTemplate('SUMMARY.md'), {
    spec: ctx.spec.id,
    plan,
    status: outcome.kind,
    agent: outcome.facts.agent,
    ...(outcome.facts.engines ? { engines: outcome.facts.engines } : {}),
    started: status.startedAt,
    finished: finished.toISOString(),
    durationMinutes: minutes,
    attempts: status.attempt,
    branch: status.branch,
    commits: outcome.commits.map((c) => ({ sha: c.sha, message: c.subject })),
    deviations: outcome.facts.undeclaredWrites,
    ...(reason === undefined ? {} : { reason }),
    ...(outcome.report ? { verification: outcome.report } : {}),
    ...(agentSummary === undefined ? {} : { agentSummary }),
    ...(input.knowledge ? { knowledge: input.knowledge } : {}),
    ...(outcome.facts.usage ? { usage: outcome.facts.usage } : {}),
    ...(heldOut ? { heldOut } : {}),
    ...(outcome.facts.blocked ? { blocked: outcome.facts.blocked } : {}),
  });
}

/** The attempt filed as knowledge (capture.ts): its trial, its trajectory, and a verified attempt's capsule; the paths to commit. */
async function fileAttempt(ctx: RunContext, { plan, session, input, outcome, verified, heldOut }: Ending): Promise<string[]> {
  const { status } = session;
  const capsule = verified
    ? await attemptCapsule(ctx, plan, input.knowledge ?? [], {
        attempt: status.attempt,
        results: outcome.report?.results ?? [],
        undeclared: outcome.facts.undeclaredWrites.flatMap((d) => d.files),
      })
    : undefined;
  return fileKnowledge(ctx, {
    // A failed attempt's record for the holdout comparison (plan-outcome.ts): held out or not, its brief, its cost.
    drafts: recordTrial(outcome.signals, {
      heldOut,
      ...(input.knowledge ? { knowledge: input.knowledge } : {}),
      ...(outcome.facts.usage?.costUsd === undefined ? {} : { costUsd: outcome.facts.usage.costUsd }),
    }),
    trajectory: [...(await attemptTrajectory(ctx, plan, input.knowledge ?? [], { verified, attempt: status.attempt })), ...(capsule ? [capsule.event] : [])],
    ...(capsule ? { documents: [{ path: capsule.path, text: capsule.text, index: capsule.index }] } : {}),
    label: plan.id,
  });
}

/** The attempt's result.json: with every attempt's use together, the earlier attempts' (their last result) and this one's. */
function sessionResult(ctx: RunContext, { plan, session, outcome, reason, finished, minutes }: Ending, mergedAs: string | undefined): SessionResult {
  const { status } = session;
  const before = ctx.state.results.get(plan.id);
  const earlier = before && !before.environment ? (before.spent ?? before.usage) : undefined;
  const spent = earlier || outcome.facts.usage ? addUsage(earlier, outcome.facts.usage) : undefined;
  return {
    plan: plan.id,
    outcome: outcome.kind,
    ...(reason === undefined ? {} : { reason }),
    ...(outcome.report ? { verification: outcome.report } : {}),
    commits: outcome.commits.map((c) => c.sha),
    ...(mergedAs === undefined ? {} : { mergedAs }),
    startedAt: status.startedAt,
    finishedAt: finished.toISOString(),
    durationMinutes: minutes,
    ...(outcome.facts.usage ? { usage: outcome.facts.usage } : {}),
    ...(spent ? { spent } : {}),
    attempt: status.attempt,
    engines: outcome.facts.engines?.map((e) => e.agent) ?? [outcome.facts.agent],
    ...(outcome.facts.environment ? { environment: true as const } : {}),
    timing: outcome.timing,
  };
}

/** What the agent said it did, when it finished in an earlier run (the attempt only verified in this one). */
async function earlierSummary(ctx: RunContext, plan: string): Promise<string | undefined> {
  const text = (await readTextIfExists(join(ctx.store.sessionDir(plan), 'messages.jsonl'))) ?? '';
  const last = text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as WorkerMessage)
    .findLast((m) => m.type === 'task_completed');
  return last?.type === 'task_completed' ? last.summary : undefined;
}
