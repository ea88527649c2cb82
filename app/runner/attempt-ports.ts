import type { Plan } from '../engine/core/spec/model.js';
import type { AttemptPorts, Progress, Workspace } from '../engine/lifecycle/ports.js';
import { readImports } from '../machine/source-imports.js';
import { localVerifyPorts } from '../machine/verify-ports.js';
import { localAnswers } from './answers.js';
import type { RunContext } from './context.js';
import type { RunRepo } from './repo.js';
import type { PlanSession } from './session.js';
import { budgetedAgent } from './spend.js';
import type { ForeignWrite } from './worktree-watch.js';
import type { Agent } from '../engine/core/agents/agent.js';

/**
 * The plan's worktree, through the run's timed git. An attempt asks for its commits and its
 * changed files together: one reading answers both (RunRepo.attemptHistory: through the run's
 * `git cat-file --batch`, or one `git log`), shared by the two questions while it runs.
 */
export function localWorkspace(ctx: RunContext, worktree: string): Workspace {
  let asking: { base: string; answer: ReturnType<RunRepo['attemptHistory']> } | undefined;
  const history = (base: string) => {
    if (asking?.base !== base) {
      const answer = ctx.repo.attemptHistory(worktree, base);
      const current = { base, answer };
      asking = current;
      // Only questions asked while it runs share it: a later one sees the branch as it is then.
      const forget = () => {
        if (asking === current) asking = undefined;
      };
      answer.then(forget, forget);
    }
    return asking!.answer;
  };
  return {
    root: worktree,
    commits: async (base) => (await history(base)).commits,
    changedFiles: async (base) => (await history(base)).changed,
    diffSince: (from) => ctx.repo.git(worktree).diffSince(from),
    headDate: async () => new Date((await ctx.repo.git(worktree).run(['log', '-1', '--format=%cI', 'HEAD'])).trim()),
    imports: (files) => readImports(worktree, files),
  };
}

/**
 * What an attempt reports, kept by a local run: every agent message in messages.jsonl, the
 * plan's state in status.json, and progress for the person watching.
 */
function localProgress(ctx: RunContext, plan: Plan, session: PlanSession): Progress {
  const reporter = ctx.reporter;
  return {
    record: (message) => ctx.store.appendMessage(plan.id, message),
    async event(e) {
      switch (e.kind) {
        case 'agent-started':
          return session.update({ state: 'running' });
        case 'task-started':
          await session.update({ state: 'running', currentTask: e.task, totalTasks: e.total, message: e.title });
          return reporter.event({ kind: 'plan-progress', plan: plan.id, message: e.title, task: e.task, total: e.total });
        case 'progress':
          await session.update({ message: e.message });
          return reporter.event({
            kind: 'plan-progress',
            plan: plan.id,
            message: e.message,
            ...(e.task === undefined ? {} : { task: e.task, total: e.total }),
          });
        case 'agent-waiting':
          await ctx.watch.paused(plan.id);
          return session.update({ state: 'checkpoint', message: e.checkpoint.prompt.split('\n')[0] });
        case 'agent-answered':
          reportForeign(ctx, await ctx.watch.resumed(plan.id));
          return session.update({ state: 'running' });
        case 'agent-finished':
          return session.update({ state: 'completed', message: 'work done; verifying' });
        case 'agent-failed':
          return session.update({ state: 'failed', error: e.error });
        case 'verifying':
          return reporter.event({ kind: 'plan-verifying', plan: plan.id });
        case 'check-started':
        case 'check':
        case 'tool':
          return;
      }
    },
    stage: (_title, work) => work(),
  };
}

/** The ports of one plan's attempt on this machine. */
export function localAttemptPorts(ctx: RunContext, plan: Plan, session: PlanSession): AttemptPorts {
  const { worktree } = session.status;
  return {
    agent: (name) => watched(ctx, plan, budgetedAgent(ctx, plan, name)),
    workspace: localWorkspace(ctx, worktree),
    verifyPorts: () => localVerifyPorts(worktree, { env: ctx.options.env ?? {}, clock: ctx.clock, processes: ctx.store.processes() }),
    answers: localAnswers(ctx, plan.id),
    progress: localProgress(ctx, plan, session),
    clock: ctx.clock,
    ...(ctx.options.sandbox ? { sandboxes: ctx.options.sandbox } : {}),
  };
}

/** Writes an agent made in another plan's worktree, said as they are found. */
export function reportForeign(ctx: RunContext, found: readonly ForeignWrite[]): void {
  for (const w of found) {
    const who = w.by.length === 0 ? 'an agent of no plan of this run' : `the agent of ${w.by.join(' or ')}`;
    const what = w.gitRemoved
      ? 'removed its .git'
      : `wrote ${w.files.join(', ')} there; put back, and a deviation of ${w.by.join(' or ') || 'nobody known'}, not of ${w.victim}`;
    ctx.reporter.event({ kind: 'info', text: `${w.victim}'s worktree: ${who} ${what}` });
  }
}

/** The agent's run, told to the run's worktree watch: what appears in other plans' worktrees meanwhile may be its doing. */
function watched(ctx: RunContext, plan: Plan, agent: Agent): Agent {
  return {
    name: agent.name,
    run: async (context) => {
      await ctx.watch.agentStarted(plan.id);
      try {
        await agent.run(context);
      } finally {
        reportForeign(ctx, await ctx.watch.agentEnded(plan.id));
      }
    },
  };
}
