import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parsePlanTasks, type PlanTasks, type StepTask } from '../engine/core/agents/tasks.js';
import type { Plan } from '../engine/core/spec/model.js';
import { withFirstError } from '../engine/core/verify/telling-line.js';
import { abortReason } from './abort.js';
import type { Agent, WorkerContext } from '../engine/core/agents/agent.js';
import { agentEnv } from './agent-env.js';
import { AnswerStore } from './answer-store.js';
import { checkpointOf, passCheckpoint } from './checkpoint-gate.js';
import { Git } from '../machine/git.js';
import { PlanHistory } from './plan-history.js';
import { runProcess } from './process.js';
import { inSandbox } from './sandboxed.js';
import { reportingFailures, type Reporter } from './reporter.js';
import { commitTask } from './task-commit.js';
import { WorkBudget } from './work-budget.js';
import { PID_FILE, prepareWorktree } from './worktree.js';

/** Interpreters for a step's language; `-e` stops a step at its first failing command. */
const SHELLS: Record<string, string> = { sh: 'sh', shell: 'sh', bash: 'bash' };

/**
 * The deterministic agent: it runs the shell blocks a plan marks as its steps (```sh step
 * <title>), in order, in the plan's worktree, and commits what each step changed as one commit
 * (Task: k/n). Checkpoints (```checkpoint <kind> <title>) between steps stop for a person, or take
 * their default in an autonomous plan; answers reach later steps as HARNESS_ANSWER_<ID> and
 * through the JSON file HARNESS_ANSWERS names.
 *
 * A step sees HARNESS_SPEC, HARNESS_PLAN, HARNESS_TASK ("2/3"), HARNESS_ANSWERS, the answers, and
 * the worker's env. Its output goes to <logDir>/step-<k>.log (appended, one header per attempt).
 *
 * Resuming is by the branch: steps with a commit are skipped, an interrupted step's leftovers are
 * discarded (resume: true) and it runs again from its start, so a plan killed at any moment and
 * started again ends with exactly one commit per step.
 */
export class ScriptAgent implements Agent {
  readonly name = 'script';

  run(context: WorkerContext): Promise<void> {
    return reportingFailures(this.name, context, (reporter) => this.execute(context, reporter));
  }

  private async execute(context: WorkerContext, reporter: Reporter): Promise<void> {
    const { plan } = context;
    await reporter.ready(this.name);

    const parsed = parsePlanTasks(plan.body, plan.bodyLine);
    const unrunnable = whyUnrunnable(plan, parsed);
    if (unrunnable) return reporter.failed(unrunnable);
    const { tasks, steps } = parsed;

    const git = new Git(context.task.worktree, { env: context.env });
    const prepared = await prepareWorktree(context, git, context.task.resume ? 'discard' : 'refuse');
    if (!prepared.ok) return reporter.failed(prepared.error);
    if (prepared.discarded.length > 0) {
      await reporter.progress(`discarded what the interrupted attempt left uncommitted: ${prepared.discarded.join(', ')}`);
    }
    const history = await PlanHistory.open(context, git);
    const done = await history.doneTasks(steps.length);
    const store = await AnswerStore.open(context.logDir);
    const budget = new WorkBudget(context.task.timeout_minutes);
    const total = steps.length;
    const commits: string[] = [];

    for (const [i, task] of tasks.entries()) {
      if (task.kind === 'checkpoint') {
        // Its answer was used already, even if the record of it is gone with an earlier logDir.
        const later = tasks.slice(i + 1).filter((t) => t.kind === 'step');
        if (later.length > 0 && later.every((t) => done.has(t.index)) && store.get(task.id) === undefined) continue;
        const gate = await passCheckpoint(context, reporter, store, checkpointOf(task), task.default);
        if (!gate.ok) return reporter.failed(gate.error, gate.retryable);
        continue;
      }
      const position = { task: task.index, total };
      const committed = done.get(task.index);
      if (committed) {
        await reporter.progress(`step ${task.index}/${total} already committed as ${committed.sha.slice(0, 7)}: ${task.title}`, position);
        commits.push(committed.sha);
        continue;
      }
      await reporter.started(task.index, total, task.title);
      const failure = await this.runStep(context, task, total, store, budget);
      if (failure) return reporter.failed(failure.error, failure.retryable, { timedOut: failure.timedOut === true });
      commits.push(await commitStep(context, reporter, git, task, total));
    }
    const reused = done.size;
    await reporter.completed(commits, `${total} step${total === 1 ? '' : 's'} committed${reused > 0 ? ` (${reused} by an earlier attempt)` : ''}`);
  }

  /** Run one step; undefined when it succeeded, else why it did not. */
  private async runStep(
    context: WorkerContext,
    step: StepTask,
    total: number,
    store: AnswerStore,
    budget: WorkBudget,
  ): Promise<{ error: string; retryable: boolean; timedOut?: boolean } | undefined> {
    const label = `step ${step.index}/${total} "${step.title}"`;
    const file = join(context.logDir, `step-${step.index}.sh`);
    const log = join(context.logDir, `step-${step.index}.log`);
    // The script goes to a file, not `-c`: no argument-length limit, and the exact text that ran stays beside its log.
    await writeFile(file, `${step.script}\n`);
    await appendFile(log, `# ${context.now().toISOString()} ${label}\n`);
    const start = await inSandbox(context, 'script', {
      command: SHELLS[step.lang]!,
      args: ['-e', file],
      cwd: context.task.worktree,
      env: agentEnv(context, store, { HARNESS_TASK: `${step.index}/${total}` }),
    });
    const result = await budget.spend(() =>
      runProcess({
        ...start,
        signal: context.signal,
        timeoutMs: budget.remainingMs(),
        logFile: log,
        pidFile: join(context.logDir, PID_FILE),
      }),
    );
    const lines = withFirstError(result.tail, result.firstError);
    const tail = lines.length > 0 ? `\n${lines.join('\n')}` : '';
    if (result.aborted) return { error: `aborted during ${label}: ${abortReason(context.signal)}`, retryable: true };
    if (result.timedOut) {
      return {
        error: `${label} was stopped: plan ${context.plan.id} used up its timeout_minutes (${context.task.timeout_minutes})${tail}`,
        retryable: false,
        timedOut: true,
      };
    }
    if (result.error) return { error: `${label} could not run: ${result.error.message}`, retryable: false };
    if (result.code !== 0) {
      const how = result.code === null ? `was killed by ${result.signal}` : `failed with exit code ${result.code}`;
      return { error: `${label} ${how} (log: ${log})${tail}`, retryable: false };
    }
    return undefined;
  }
}

/** Why the script agent cannot run the plan at all, found before any step runs; undefined when it can. */
function whyUnrunnable(plan: Plan, { tasks, steps, problems }: PlanTasks): string | undefined {
  if (problems.length > 0) return `plan ${plan.id} (${plan.file}): ${problems.map((p) => `line ${p.line}: ${p.message}`).join('; ')}`;
  if (steps.length === 0) return `plan ${plan.id} (${plan.file}) has no step blocks (\`\`\`sh step <title>): the script agent has nothing to run`;
  const undecidable = plan.autonomous ? tasks.find((t) => t.kind === 'checkpoint' && t.default === undefined) : undefined;
  if (undecidable?.kind === 'checkpoint') {
    // Found before any step runs: a plan that cannot finish should not leave half its commits behind.
    return (
      `checkpoint "${undecidable.id}" (${undecidable.type}) needs a person, but plan ${plan.id} is autonomous: true ` +
      'and the checkpoint has no default; give it a "default:" line or set autonomous: false'
    );
  }
  const unknown = steps.find((s) => SHELLS[s.lang] === undefined);
  if (unknown) {
    return `plan ${plan.id} (${plan.file}) line ${unknown.line}: step "${unknown.title}" is written in "${unknown.lang}"; the script agent runs ${Object.keys(SHELLS).join(', ')}`;
  }
  return undefined;
}

/** What a step changed committed as its task's commit (an empty one when it changed nothing), and said: the commit's sha. */
async function commitStep(context: WorkerContext, reporter: Reporter, git: Git, task: StepTask, total: number): Promise<string> {
  const commit = await commitTask(git, {
    spec: context.spec,
    plan: context.plan.id,
    task: task.index,
    total,
    title: task.title,
    emptyBody: 'This step changed no file. The commit, with no changes, records that the step ran, so that a resumed run does not run it again.',
  });
  const n = commit.files.length;
  const sha = commit.sha.slice(0, 7);
  await reporter.progress(
    n === 0
      ? `step ${task.index}/${total} changed no file; recorded as done in ${sha}`
      : `step ${task.index}/${total} committed as ${sha}: ${n} file${n === 1 ? '' : 's'} changed`,
    { task: task.index, total },
  );
  return commit.sha;
}
