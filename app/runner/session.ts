import type { Plan } from '../engine/core/spec/model.js';
import type { RunContext } from './context.js';
import { planBranch } from './repo.js';
import type { SessionResult, SessionStatus } from './store.js';

/** What an attempt changes in a plan's status as it goes. */
export type StatusPatch = Partial<Pick<SessionStatus, 'state' | 'currentTask' | 'totalTasks' | 'message' | 'error' | 'pause'>>;

/**
 * One plan's session in `.orchestration/`: its status.json, replaced whole on every change (never
 * edited in place, so the run's picture of it and the file are the same object), and at the end
 * its result.json. The one path by which an attempt changes what the run knows of its plan.
 */
export class PlanSession {
  #status: SessionStatus;

  private constructor(
    private readonly ctx: RunContext,
    status: SessionStatus,
    /** An earlier run started this attempt and was stopped. */
    readonly resumed: boolean,
    /** The plan's worktree was made now (RunRepo.ensureWorktree), not found. */
    readonly checkoutMade: boolean,
  ) {
    this.#status = status;
  }

  /**
   * The plan's session as the last run left it, or a new attempt on a branch from the
   * integration branch's head; either way with its worktree ready.
   */
  static async open(ctx: RunContext, plan: Plan, agent: string): Promise<PlanSession> {
    const previous = ctx.state.statuses.get(plan.id);
    const status = previous ? resumedClock(previous, ctx.now()) : await fresh(ctx, plan, agent);
    const made = await ctx.repo.ensureWorktree(status.worktree, status.branch, status.base);
    const session = new PlanSession(ctx, status, previous !== undefined, made);
    await session.save(status);
    return session;
  }

  get status(): Readonly<SessionStatus> {
    return this.#status;
  }

  /**
   * A change of state that a resumed run acts on (completed, failed, at a checkpoint) is on
   * disk when this resolves; one only people read (running again, the current step, a
   * message) is written shortly after, together with the changes that follow it.
   */
  update(patch: StatusPatch): Promise<void> {
    const status = { ...this.#status, ...patch, timestamp: this.ctx.now().toISOString() };
    // A pause lasts until the plan runs again.
    if (patch.pause === undefined && patch.state !== undefined && patch.state !== 'paused') delete status.pause;
    if (patch.error !== undefined || (patch.state !== undefined && patch.state !== 'running')) return this.save(status);
    this.#status = status;
    this.ctx.state.statuses.set(status.plan, status);
    this.ctx.store.writeStatusSoon(status);
    return Promise.resolve();
  }

  /** The attempt is over and its documents are committed: result.json says how it ended. */
  async finish(result: SessionResult): Promise<void> {
    await this.ctx.store.writeResult(result);
    this.ctx.state.results.set(result.plan, result);
  }

  private async save(status: SessionStatus): Promise<void> {
    this.#status = status;
    await this.ctx.store.writeStatus(status);
    this.ctx.state.statuses.set(status.plan, status);
  }
}

async function fresh(ctx: RunContext, plan: Plan, agent: string): Promise<SessionStatus> {
  const at = ctx.now().toISOString();
  return {
    sessionId: `${ctx.spec.id}-${plan.id}`,
    plan: plan.id,
    phase: plan.phase,
    // An agent that could not start made no attempt at the plan.
    attempt: (ctx.state.results.get(plan.id) && !ctx.state.results.get(plan.id)!.environment ? 1 : 0) + 1,
    state: 'initializing',
    branch: planBranch(ctx.spec.id, plan.id),
    worktree: ctx.repo.worktreePath(ctx.spec.id, plan.id),
    base: await ctx.repo.revParse('HEAD', ctx.integration.worktree),
    agent,
    startedAt: at,
    timestamp: at,
  };
}

/**
 * A session an earlier run left: its clock moved on by the time nothing ran, so that a plan's
 * minutes are its work, not the hours its run lay dead. The last thing that run recorded of it
 * (`timestamp`) is when its work is known to have stopped.
 */
function resumedClock(previous: SessionStatus, now: Date): SessionStatus {
  const worked = Math.max(0, Date.parse(previous.timestamp) - Date.parse(previous.startedAt));
  const status = { ...previous, startedAt: new Date(now.getTime() - worked).toISOString() };
  // A plan paused at the usage limit goes on: the same attempt, running again.
  if (status.state === 'paused') {
    delete status.pause;
    status.state = 'initializing';
  }
  return status;
}
