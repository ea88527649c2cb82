import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TRAILER_SPEC, TRAILER_TASK, trailerValue } from '../engine/core/agents/commit-message.js';
import type { Checkpoint, OrchestratorMessage, WorkerMessage } from '../engine/core/protocol/messages.js';
import { undeclaredWrites } from '../engine/core/run/deviations.js';
import { summaryDocument } from '../engine/core/run/summary-document.js';
import type { Plan } from '../engine/core/spec/model.js';
import { verifyPlan, type HumanAnswer, type VerificationReport } from '../engine/core/verify/levels.js';
import type { WorkerContext } from '../workers/agent.js';
import { agentFor } from '../workers/registry.js';
import { localVerifyPorts } from '../machine/verify-ports.js';
import { systemClock } from '../machine/clock.js';
import { awaitAnswer } from './answers.js';
import { isApproval } from '../engine/lifecycle/approval.js';
import type { RunContext } from './context.js';
import { commitDocuments, executionDir, noteActivity, planTrailer } from './documents.js';
import { planBranch } from './repo.js';
import type { SessionResult, SessionStatus } from './store.js';
import { loadTemplate } from '../machine/templates.js';
import { readTextIfExists } from '../machine/files.js';

/** How many times a plan's verification may come back to a person before the run gives up asking. */
const MAX_HUMAN_ROUNDS = 5;

function minutesBetween(from: string, to: Date): number {
  return Math.max(0, Math.round(((to.getTime() - Date.parse(from)) / 60_000) * 10) / 10);
}

export function agentName(ctx: RunContext, plan: Plan): string {
  return ctx.options.agent ?? plan.agent ?? ctx.options.defaultAgent ?? (plan.steps.length > 0 ? 'script' : 'claude');
}

/**
 * One plan, start to end: its branch and worktree from the integration branch, the agent,
 * plan-level verification (asking a person for human checks), the merge, and its
 * SUMMARY.md. Every step first looks at what is already on disk, so a run killed anywhere
 * in here and started again continues where it was and repeats no commit.
 */
export async function executePlan(ctx: RunContext, plan: Plan): Promise<void> {
  const { store, repo } = ctx;
  const previous = ctx.state.statuses.get(plan.id);
  const branch = planBranch(ctx.spec.id, plan.id);
  const worktree = repo.worktreePath(ctx.spec.id, plan.id);
  const agent = agentName(ctx, plan);
  const resumed = previous !== undefined;
  let status: SessionStatus;
  if (previous) {
    status = previous;
  } else {
    const base = await repo.revParse('HEAD', ctx.integration.worktree);
    status = {
      sessionId: `${ctx.spec.id}-${plan.id}`,
      plan: plan.id,
      phase: plan.phase,
      attempt: (ctx.state.results.get(plan.id) ? 1 : 0) + 1,
      state: 'initializing',
      branch,
      worktree,
      base,
      agent,
      startedAt: ctx.now().toISOString(),
      timestamp: ctx.now().toISOString(),
    };
  }
  await repo.ensureWorktree(worktree, branch, status.base);
  await store.writeStatus(status);
  ctx.state.statuses.set(plan.id, status);
  ctx.reporter.event({ kind: 'plan-started', plan: plan.id, title: plan.title, attempt: status.attempt, resumed });

  if (status.state !== 'completed') {
    const outcome = await runAgent(ctx, plan, status, resumed);
    if (!outcome.ok) return fail(ctx, plan, status, outcome.reason);
  }

  // Plan-level verification, on the plan's own branch.
  ctx.reporter.event({ kind: 'plan-verifying', plan: plan.id });
  const report = await verifyWithPeople(ctx, plan.id, (answers) => {
    const ports = localVerifyPorts(worktree, { env: ctx.options.env ?? {}, clock: systemClock(ctx.now) });
    return verifyPlan(plan, ports, { spec: ctx.spec.id, answers }).finally(() => ports.close());
  });
  if (report.status !== 'pass') {
    const failed = report.results.filter((r) => r.status === 'fail');
    const reason = failed.length > 0 ? `${failed.length} check${failed.length === 1 ? '' : 's'} failed: ${failed.map((r) => `${r.id} (${r.evidence.split('\n')[0]})`).join('; ')}` : (report.problems[0] ?? 'verification did not pass');
    return fail(ctx, plan, status, reason, report);
  }

  // Merge and record, one plan at a time on the integration worktree.
  await ctx.mutex.run(async () => {
    const commits = await repo.git(worktree).log({ base: status.base });
    const merged = await repo.merge(ctx.integration.worktree, branch, {
      subject: `Merge plan ${plan.id}: ${plan.title}`,
      trailers: [planTrailer(plan.id), { key: TRAILER_SPEC, value: ctx.spec.id }],
    });
    if (!merged.ok) {
      await failUnlocked(ctx, plan, status, `merging into ${ctx.integration.branch} conflicts in ${merged.conflicts.join(', ')}: a file outside files_modified?`, report);
      return;
    }
    const finished = ctx.now();
    const minutes = minutesBetween(status.startedAt, finished);
    ctx.schedule.setPlan(plan.id, 'verified');
    ctx.state.minutes.set(plan.id, minutes);
    ctx.state.reasons.delete(plan.id);
    noteActivity(ctx, `${plan.id} verified and merged`);
    const changed = await repo.changedFiles(worktree, status.base, 'HEAD');
    const summary = summaryDocument(await loadTemplate('SUMMARY.md'), {
      spec: ctx.spec.id,
      plan,
      status: 'verified',
      agent: status.agent,
      started: status.startedAt,
      finished: finished.toISOString(),
      durationMinutes: minutes,
      attempts: status.attempt,
      branch,
      commits: commits.map((c) => ({ sha: c.sha, message: c.subject })),
      deviations: undeclaredWrites(changed, plan.filesModified),
      verification: report,
      ...(await agentSummary(ctx, plan.id)),
    });
    const phase = ctx.spec.phases.find((p) => p.id === plan.phase)!;
    await commitDocuments(
      ctx,
      { [`${executionDir(phase)}/${plan.id}-SUMMARY.md`]: summary },
      `summary of ${plan.id}`,
      [planTrailer(plan.id)],
      commits.map((c) => ({ sha: c.sha, plan: plan.id, task: trailerValue(c.trailers, TRAILER_TASK) ?? '-', subject: c.subject })),
    );
    const result: SessionResult = {
      plan: plan.id,
      outcome: 'verified',
      verification: report,
      commits: commits.map((c) => c.sha),
      mergedAs: merged.sha,
      startedAt: status.startedAt,
      finishedAt: finished.toISOString(),
      durationMinutes: minutes,
    };
    await store.writeResult(result);
    ctx.state.results.set(plan.id, result);
    ctx.reporter.event({ kind: 'plan-verified', plan: plan.id, minutes });
  });
  if (ctx.schedule.plan(plan.id) === 'verified') await repo.removeWorktree(worktree).catch(() => undefined);
}

type AgentOutcome = { ok: true } | { ok: false; reason: string };

async function runAgent(ctx: RunContext, plan: Plan, status: SessionStatus, resumed: boolean): Promise<AgentOutcome> {
  const { store } = ctx;
  let terminal: WorkerMessage | undefined;
  const update = async (patch: Partial<SessionStatus>) => {
    Object.assign(status, patch, { timestamp: ctx.now().toISOString() });
    await store.writeStatus(status);
  };
  const context: WorkerContext = {
    task: {
      type: 'assign_task',
      session: status.sessionId,
      at: ctx.now().toISOString(),
      spec: ctx.spec.id,
      plan: plan.id,
      resume: resumed,
      worktree: status.worktree,
      prompt: await readFile(join(ctx.options.specDir, plan.file), 'utf8'),
      timeout_minutes: plan.timeoutMinutes,
    },
    plan,
    spec: ctx.spec.id,
    base: status.base,
    env: { ...(ctx.options.env ?? {}) },
    logDir: store.logDir(plan.id),
    signal: ctx.abort.signal,
    now: ctx.now,
    emit: async (message) => {
      await store.appendMessage(plan.id, message);
      switch (message.type) {
        case 'session_ready':
          await update({ state: 'running' });
          break;
        case 'task_started':
          await update({ state: 'running', currentTask: message.task, totalTasks: message.total, message: message.title });
          ctx.reporter.event({ kind: 'plan-progress', plan: plan.id, message: message.title, task: message.task, total: message.total });
          break;
        case 'progress_update':
          await update({ message: message.message });
          ctx.reporter.event({ kind: 'plan-progress', plan: plan.id, message: message.message, ...(message.task !== undefined && message.total !== undefined ? { task: message.task, total: message.total } : {}) });
          break;
        case 'decision_needed':
        case 'verification_needed':
        case 'action_needed':
          await update({ state: 'checkpoint', message: message.checkpoint.prompt.split('\n')[0] });
          break;
        case 'task_completed':
        case 'task_failed':
          terminal = message;
          break;
      }
    },
    awaitResponse: async (checkpoint: Checkpoint): Promise<OrchestratorMessage> => {
      const answer = await awaitAnswer(ctx, plan.id, checkpoint, 'worker');
      await update({ state: 'running' });
      const envelope = { session: status.sessionId, at: ctx.now().toISOString(), checkpoint: checkpoint.id };
      if (checkpoint.kind === 'decision') return { ...envelope, type: 'decision_made', answer };
      if (checkpoint.kind === 'verification') return { ...envelope, type: 'verification_result', passed: isApproval(answer), details: answer };
      return { ...envelope, type: 'action_completed', note: answer };
    },
  };
  const started = performance.now();
  try {
    await agentFor(status.agent, ctx.options.agents).run(context);
  } catch (e) {
    if (ctx.abort.signal.aborted) throw e;
    terminal = { type: 'task_failed', session: status.sessionId, at: ctx.now().toISOString(), plan: plan.id, error: (e as Error).message, retryable: false };
  } finally {
    ctx.timing.agentMs += performance.now() - started;
  }
  if (ctx.abort.signal.aborted) throw new Error('stopped');
  if (terminal?.type === 'task_completed') {
    await update({ state: 'completed', message: 'work done; verifying' });
    return { ok: true };
  }
  const reason = terminal?.type === 'task_failed' ? terminal.error : 'the agent ended without saying it completed';
  await update({ state: 'failed', error: reason });
  return { ok: false, reason };
}

/** Run a verification; when human checks are waiting, ask, and run it again with the answers. */
export async function verifyWithPeople(
  ctx: RunContext,
  session: string,
  verify: (answers: Record<string, HumanAnswer>) => Promise<VerificationReport>,
): Promise<VerificationReport> {
  const answers: Record<string, HumanAnswer> = {};
  for (let round = 0; ; round++) {
    const started = performance.now();
    const report = await verify(answers).finally(() => {
      ctx.timing.verifyMs += performance.now() - started;
    });
    if (report.status !== 'human' || round >= MAX_HUMAN_ROUNDS) return report;
    for (const result of report.results.filter((r) => r.status === 'human')) {
      const key = result.plan && result.plan !== session ? `${result.plan}/${result.id}` : result.id;
      if (answers[key]) continue;
      const answer = await awaitAnswer(ctx, session, { id: `check-${key}`, kind: 'verification', prompt: result.evidence, source: result.id, options: ['approve', 'reject'] }, 'verification');
      answers[key] = { passed: isApproval(answer), note: answer };
    }
  }
}

async function agentSummary(ctx: RunContext, plan: string): Promise<{ agentSummary?: string }> {
  const text = (await readTextIfExists(join(ctx.store.sessionDir(plan), 'messages.jsonl'))) ?? '';
  const last = text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as WorkerMessage)
    .findLast((m) => m.type === 'task_completed');
  return last?.type === 'task_completed' && last.summary ? { agentSummary: last.summary } : {};
}

async function fail(ctx: RunContext, plan: Plan, status: SessionStatus, reason: string, report?: VerificationReport): Promise<void> {
  await ctx.mutex.run(() => failUnlocked(ctx, plan, status, reason, report));
}

async function failUnlocked(ctx: RunContext, plan: Plan, status: SessionStatus, reason: string, report?: VerificationReport): Promise<void> {
  const finished = ctx.now();
  const minutes = minutesBetween(status.startedAt, finished);
  ctx.schedule.setPlan(plan.id, 'failed');
  ctx.state.reasons.set(plan.id, reason);
  ctx.state.minutes.set(plan.id, minutes);
  noteActivity(ctx, `${plan.id} failed: ${reason}`);
  const commits = await ctx.repo.git(status.worktree).log({ base: status.base }).catch(() => []);
  const summary = summaryDocument(await loadTemplate('SUMMARY.md'), {
    spec: ctx.spec.id,
    plan,
    status: 'failed',
    agent: status.agent,
    started: status.startedAt,
    finished: finished.toISOString(),
    durationMinutes: minutes,
    attempts: status.attempt,
    branch: status.branch,
    commits: commits.map((c) => ({ sha: c.sha, message: c.subject })),
    deviations: [],
    reason,
    ...(report ? { verification: report } : {}),
  });
  const phase = ctx.spec.phases.find((p) => p.id === plan.phase)!;
  await commitDocuments(ctx, { [`${executionDir(phase)}/${plan.id}-SUMMARY.md`]: summary }, `${plan.id} failed`, [planTrailer(plan.id)]);
  const result: SessionResult = {
    plan: plan.id,
    outcome: 'failed',
    reason,
    ...(report ? { verification: report } : {}),
    commits: commits.map((c) => c.sha),
    startedAt: status.startedAt,
    finishedAt: finished.toISOString(),
    durationMinutes: minutes,
  };
  await ctx.store.writeResult(result);
  ctx.state.results.set(plan.id, result);
  ctx.reporter.event({ kind: 'plan-failed', plan: plan.id, reason });
}

