import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { taskOf, TRAILER_PLAN, TRAILER_SPEC } from '../engine/core/agents/commit-message.js';
import type { WorkerContext } from '../engine/core/agents/agent.js';
import { grepLiteral, type CommitInfo, type Git } from '../machine/git.js';
import { readTextIfExists } from '../machine/files.js';
import { headFromFiles } from '../machine/git-head.js';

/**
 * What the plan's branch already holds. The branch is the durable record of progress: a task is
 * done exactly when a commit with its trailers (Plan, Spec, Task: k/n) is on it, so a worker that
 * was killed at any moment and started again redoes only what has no commit.
 *
 * Commits are looked for after the plan's base: `context.base` when the runner knows it, else the
 * HEAD the first attempt started from (kept in logDir/base.json). Without either (a resumed
 * attempt whose logDir is gone), the whole history is searched for the trailers.
 */
export class PlanHistory {
  private constructor(
    private readonly git: Git,
    private readonly spec: string,
    private readonly plan: string,
    readonly base: string | undefined,
  ) {}

  static readonly BASE_FILE = 'base.json';

  static async open(context: WorkerContext, git: Git): Promise<PlanHistory> {
    return new PlanHistory(git, context.spec, context.plan.id, await findBase(context, git));
  }

  /** The plan's commits, oldest first: everything after the base, or, without one, those with its trailers. */
  async commits(): Promise<CommitInfo[]> {
    if (this.base) {
      // A branch still at its base has nothing after it (a fresh attempt): HEAD is read from the repository's files, git is not asked.
      if ((await headFromFiles(this.git.cwd)) === this.base) return [];
      return this.git.log({ base: this.base });
    }
    return this.git.log({
      grep: [`^${TRAILER_PLAN}: ${grepLiteral(this.plan)}$`, `^${TRAILER_SPEC}: ${grepLiteral(this.spec)}$`],
    });
  }

  /** Task number → the commit that completed it, for a plan of `total` tasks. */
  async doneTasks(total: number): Promise<Map<number, CommitInfo>> {
    const done = new Map<number, CommitInfo>();
    for (const commit of await this.commits()) {
      const task = taskOf(commit.trailers, this.spec, this.plan);
      // A commit for another total was made from another version of the plan: its numbering means nothing now.
      if (task && task.total === total && !done.has(task.task)) done.set(task.task, commit);
    }
    return done;
  }
}

async function findBase(context: WorkerContext, git: Git): Promise<string | undefined> {
  if (context.base) return context.base;
  const file = join(context.logDir, PlanHistory.BASE_FILE);
  const text = await readTextIfExists(file);
  if (text !== undefined) {
    try {
      const base = (JSON.parse(text) as { base?: unknown }).base;
      if (typeof base === 'string' && (await git.isAncestor(base))) return base;
    } catch {
      // An unreadable record is no record.
    }
  }
  // A resumed attempt without a record may already have commits after its start: HEAD is no base then.
  if (context.task.resume) return undefined;
  const head = await git.head();
  await writeFile(file, `${JSON.stringify({ base: head })}\n`);
  return head;
}
