import type { Checkpoint } from '../engine/core/protocol/messages.js';
import type { Plan } from '../engine/core/spec/model.js';
import type { AttemptOutcome } from '../engine/lifecycle/attempt-plan.js';
import { pausePrompt, resumeAt } from '../engine/lifecycle/usage-pause.js';
import { USAGE_LIMIT_CHECKPOINT } from '../engine/forge/checkpoint-markers.js';
import { AnswerStore } from '../agents/answer-store.js';
import { sessionCarrierFor } from '../agents/registry.js';
import type { RunContext } from './context.js';
import { commitDocuments, noteActivity, planTrailer } from './documents.js';
import type { PlanSession } from './session.js';
import type { PauseRecord } from './store.js';

/**
 * A plan paused at the model's usage limit, on this machine (the lifecycle decides it is one:
 * engine/lifecycle/usage-pause.ts). What the worker does on a runner, done here with the run's
 * own store: the plan's status says `paused` with when it may go on (status.json's `pause`), its
 * worktree and the agent's session stay, and nothing is recorded as an attempt's end (no
 * result.json, no SUMMARY.md, no signal). The scheduler holds it as `checkpoint`, so its
 * dependants wait and nothing is blocked; the run starts it again at `resumeAt` (runner.ts), by
 * waiting (`harness run --wait`) or in a later run.
 *
 * The agent's session is continued as a runner continues it: seeded with the pause's checkpoint
 * and `continue` recorded as its answer, so the resumed CLI is told to go on where it stopped.
 */
export async function pausePlan(
  ctx: RunContext,
  plan: Plan,
  session: PlanSession,
  outcome: Extract<AttemptOutcome, { kind: 'paused' }>,
  logDir: string,
): Promise<void> {
  const { pause } = outcome;
  const at = ctx.now();
  const record: PauseRecord = {
    reason: pause.reason,
    ...(pause.resetsAt ? { resetsAt: pause.resetsAt.toISOString() } : {}),
    resumeAt: resumeAt(pause, at).toISOString(),
    at: at.toISOString(),
  };
  const checkpoint: Checkpoint = { id: USAGE_LIMIT_CHECKPOINT, kind: 'action', prompt: pausePrompt(pause), source: session.status.agent };
  await continueSession(session.status.agent, logDir, checkpoint);
  await session.update({ state: 'paused', pause: record, message: `paused at the model's usage limit until ${record.resumeAt}` });
  ctx.schedule.setPlan(plan.id, 'checkpoint');
  ctx.state.paused.set(plan.id, record);
  if (outcome.facts.usage?.costUsd !== undefined) ctx.state.costs.set(plan.id, (ctx.state.costs.get(plan.id) ?? 0) + outcome.facts.usage.costUsd);
  noteActivity(ctx, `${plan.id} paused at the model's usage limit until ${record.resumeAt}`);
  await commitDocuments(ctx, {}, `${plan.id} paused at the usage limit`, [planTrailer(plan.id)]);
  ctx.reporter.event({ kind: 'plan-paused', plan: plan.id, reason: pause.reason, until: record.resumeAt });
}

/** The agent's session, where it has one to continue, told to go on once the run starts it again. */
async function continueSession(agent: string, logDir: string, checkpoint: Checkpoint): Promise<void> {
  const waiting = await sessionCarrierFor(agent)?.wait(logDir, checkpoint);
  if (waiting !== undefined) await (await AnswerStore.open(logDir)).set(checkpoint.id, 'continue');
}

/** The paused plans whose time has come, earliest first. */
export function duePaused(ctx: RunContext): string[] {
  const now = ctx.now().getTime();
  return [...ctx.state.paused]
    .filter(([, p]) => Date.parse(p.resumeAt) <= now)
    .sort(([, a], [, b]) => Date.parse(a.resumeAt) - Date.parse(b.resumeAt))
    .map(([id]) => id);
}

/** When the next paused plan may run again, if any is paused. */
export function nextResume(ctx: RunContext): Date | undefined {
  const times = [...ctx.state.paused.values()].map((p) => Date.parse(p.resumeAt));
  return times.length === 0 ? undefined : new Date(Math.min(...times));
}
