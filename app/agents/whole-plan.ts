import type { WorkerContext } from '../engine/core/agents/agent.js';
import type { AgentFacts, Usage } from '../engine/core/protocol/messages.js';
import type { Git } from '../machine/git.js';
import { PlanHistory } from './plan-history.js';
import type { Reporter } from './reporter.js';
import { commitTask } from './task-commit.js';
import { prepareWorktree, type Leftovers } from './worktree.js';

/**
 * Agents that take the plan as one piece of work (claude, command) make it one task: the agent
 * may commit as it goes, and the worker ends the plan with the commit of task 1/1 (what is left,
 * or empty). That last commit is the durable mark that the plan is done on its branch.
 */

/**
 * The start every whole-plan attempt shares: the checkout made ready (an interrupted
 * attempt's leftovers ended and, as `leftovers` says, discarded), and the plan's history on
 * its branch. Undefined when the attempt is already over: the checkout could not be used
 * (task_failed sent) or an earlier attempt finished the plan (task_completed sent).
 */
/**
 * What an attempt does with uncommitted changes it finds: an engine taking the plan over at
 * another's usage limit keeps them (they are that engine's work, told in its handoff), a resumed
 * attempt discards what an interrupted one left, and a fresh one refuses a dirty checkout.
 */
export function leftoversOf(context: WorkerContext): Leftovers {
  return context.task.handoff !== undefined ? 'keep' : context.task.resume ? 'discard' : 'refuse';
}

export async function beginWholePlan(context: WorkerContext, git: Git, reporter: Reporter, leftovers: Leftovers): Promise<PlanHistory | undefined> {
  const prepared = await prepareWorktree(context, git, leftovers);
  if (!prepared.ok) {
    await reporter.failed(prepared.error);
    return undefined;
  }
  if (prepared.discarded.length > 0) {
    await reporter.progress(`discarded what the interrupted attempt left uncommitted: ${prepared.discarded.join(', ')}`);
  }
  const history = await PlanHistory.open(context, git);
  const earlier = await finishedEarlier(history);
  if (earlier) {
    await reporter.completed(earlier, 'finished by an earlier attempt');
    return undefined;
  }
  return history;
}

/** The commits of a plan finished by an earlier attempt, or undefined when it is not finished. */
export async function finishedEarlier(history: PlanHistory): Promise<string[] | undefined> {
  const done = await history.doneTasks(1);
  if (!done.has(1)) return undefined;
  return (await history.commits()).map((c) => c.sha);
}

export async function finishWholePlan(
  context: WorkerContext,
  git: Git,
  history: PlanHistory,
  reporter: Reporter,
  summary: string,
  usage?: Usage,
  facts?: AgentFacts,
): Promise<void> {
  const commit = await commitTask(git, {
    spec: context.spec,
    plan: context.plan.id,
    task: 1,
    total: 1,
    title: context.plan.title,
    emptyBody:
      'The agent committed all its work itself. This commit, with no changes, marks the plan done on its branch, so that a resumed run does not start it again.',
  });
  const sha = commit.sha.slice(0, 7);
  const n = commit.files.length;
  await reporter.progress(
    n === 0
      ? `marked the plan done in ${sha} (the agent committed all its work itself)`
      : `committed the ${n === 1 ? 'file' : `${n} files`} the agent left uncommitted as ${sha}`,
    { task: 1, total: 1 },
  );
  await reporter.completed(
    (await history.commits()).map((c) => c.sha),
    summary,
    usage,
    facts,
  );
}
