import { fileListBody, taskTrailers, type ChangedFile } from '../engine/core/agents/commit-message.js';
import type { Git } from '../machine/git.js';

export interface TaskCommitInput {
  spec: string;
  plan: string;
  task: number;
  total: number;
  title: string;
  /** The body when the task changed no file: why the commit is there at all. */
  emptyBody?: string;
}

export interface TaskCommit {
  sha: string;
  files: ChangedFile[];
}

/**
 * Commit everything a task changed as one commit (see engine/agents/commit-message.ts for the
 * format). A task that changed nothing still gets its commit, empty: the branch is the only
 * record that survives a lost runner, and a resumed worker must see that the task is done.
 *
 * Hooks are skipped (--no-verify): a repository's pre-commit or commit-msg hook (lint-staged,
 * commitlint) could rewrite or refuse a worker's commit mid-plan; the plan's must_pass checks
 * are the gate, run by the orchestrator on the finished branch.
 */
export async function commitTask(git: Git, input: TaskCommitInput): Promise<TaskCommit> {
  await git.addAll();
  const files = await git.stagedFiles();
  const sha = await git.commit(
    {
      subject: `${input.plan}: ${input.title}`,
      body: files.length === 0 && input.emptyBody !== undefined ? input.emptyBody : fileListBody(files),
      trailers: taskTrailers(input.spec, input.plan, input.task, input.total),
    },
    { allowEmpty: true, noVerify: true },
  );
  return { sha, files };
}
