import type { WorkerContext } from './agent.js';
import type { Git } from './git.js';
import type { PlanHistory } from './plan-history.js';
import type { Reporter } from './reporter.js';
import { commitTask } from './task-commit.js';

/**
 * Agents that take the plan as one piece of work (claude, command) make it one task: the agent
 * may commit as it goes, and the worker ends the plan with the commit of task 1/1 (what is left,
 * or empty). That last commit is the durable mark that the plan is done on its branch.
 */

/** The commits of a plan finished by an earlier attempt, or undefined when it is not finished. */
export async function finishedEarlier(history: PlanHistory): Promise<string[] | undefined> {
  const done = await history.doneTasks(1);
  if (!done.has(1)) return undefined;
  return (await history.commits()).map((c) => c.sha);
}

export async function finishWholePlan(context: WorkerContext, git: Git, history: PlanHistory, reporter: Reporter, summary: string): Promise<void> {
  const commit = await commitTask(git, { spec: context.spec, plan: context.plan.id, task: 1, total: 1, title: context.plan.title });
  const changed = commit.files.length === 0 ? 'nothing was left uncommitted' : `${commit.files.length} file${commit.files.length === 1 ? '' : 's'} left uncommitted`;
  await reporter.progress(`committed as ${commit.sha.slice(0, 7)}: ${changed}`, { task: 1, total: 1 });
  await reporter.completed((await history.commits()).map((c) => c.sha), summary);
}
