import { join } from 'node:path';
import { responseFor } from '../engine/core/agents/answers.js';
import { findInsightLines, INSIGHT_MARKER } from '../engine/core/agents/insight-line.js';
import { buildWorkerPrompt } from '../engine/core/agents/prompt.js';
import { isErrorHead, withFirstError } from '../engine/core/verify/telling-line.js';
import { executorInstructions } from './executor-instructions.js';
import { parseWorkerLine, type AgentFacts, type Usage, type WorkerMessage } from '../engine/core/protocol/messages.js';
import { abortReason } from './abort.js';
import type { Agent, WorkerContext } from '../engine/core/agents/agent.js';
import { agentEnv } from './agent-env.js';
import { AnswerStore } from './answer-store.js';
import { passCheckpoint, passPlannedCheckpoints } from './checkpoint-gate.js';
import { Git } from '../machine/git.js';
import { startProcess, type ProcessResult, type RunningProcess } from './process.js';
import type { PlanHistory } from './plan-history.js';
import { inSandbox } from './sandboxed.js';
import { reportingFailures, type Reporter } from './reporter.js';
import { WorkBudget } from './work-budget.js';
import { beginWholePlan, finishWholePlan, leftoversOf } from './whole-plan.js';
import { PID_FILE } from './worktree.js';
import { ReportBridge } from './mcp/report-bridge.js';

export interface CommandAgentOptions {
  /** Run with `sh -c` in the worktree, e.g. "./scripts/agent.sh" (the brief on its stdin). */
  command: string;
  /**
   * The command speaks the worker protocol. Its stdin then carries JSON lines: first the
   * assign_task message (the brief in `prompt`), then one answer (decision_made,
   * verification_result, action_completed) for each checkpoint it asks; it is closed when the
   * command reports task_completed or task_failed. Otherwise stdin is the brief as plain text, then closed, as most agent CLIs expect.
   */
  protocol?: boolean;
}

/** Lines of plain output become progress messages of at most this length. */
const MAX_PROGRESS = 500;
/** Lines of output quoted when the command fails. */
const TAIL_LINES = 10;

/**
 * Any command as the agent. Lines of its stdout that are protocol messages are forwarded
 * (task_started, progress_update) or acted on (checkpoints are asked and answered on stdin;
 * its own task_completed/task_failed lend their summary or error: the worker alone ends the
 * task); every other line becomes a progress_update. Exit 0 commits what is left (task 1/1)
 * and completes the plan; any other exit fails it. stderr goes to the log only.
 */
export class CommandAgent implements Agent {
  readonly name = 'command';

  constructor(private readonly options: CommandAgentOptions) {}

  run(context: WorkerContext): Promise<void> {
    return reportingFailures(this.name, context, (reporter) => this.execute(context, reporter));
  }

  private async execute(context: WorkerContext, reporter: Reporter): Promise<void> {
    await reporter.ready(this.name);
    const git = new Git(context.task.worktree, { env: context.env });
    const history = await beginWholePlan(context, git, reporter, leftoversOf(context));
    if (!history) return;

    const store = await AnswerStore.open(context.logDir);
    // Any MCP-capable agent can report as Claude does: the server's command line is in its environment.
    const bridge = await ReportBridge.open({ context, reporter, store, agent: this.name });
    try {
      await this.work({ context, reporter, git, history, store, bridge, protocol: this.options.protocol === true });
    } finally {
      await bridge.close();
    }
  }

  /** The attempt: the checkpoints a command without the protocol cannot ask, the command's run, and what its end means for the plan. */
  private async work(work: Work): Promise<void> {
    const { context, reporter, store, bridge, protocol } = work;
    const mcpEnv = await bridge.agentEnv(context.logDir);
    // A plan that needs a person stops for one whatever the command: one that cannot ask is asked for.
    if (!protocol) {
      const asked = await passPlannedCheckpoints(context, reporter, store, 'before');
      if (asked) return reporter.failed(asked.error, asked.retryable);
    }
    const input = await commandInput(work);
    const heard: Heard = { output: [] };
    const result = await this.runCommand(work, heard, input, mcpEnv);
    await this.conclude(work, heard, result);
  }

  /** The command run in the worktree (in the sandbox where there is one) on the plan's clock, each line of its output heard as it comes. */
  private async runCommand(work: Work, heard: Heard, input: string, mcpEnv: Record<string, string>): Promise<ProcessResult> {
    const { context, store, protocol } = work;
    const budget = new WorkBudget(context.task.timeout_minutes);
    const start = await inSandbox(context, this.name, {
      command: 'sh',
      args: ['-c', this.options.command],
      cwd: context.task.worktree,
      env: agentEnv(context, store, mcpEnv),
    });
    return budget.spend(() => {
      heard.proc = startProcess({
        ...start,
        input,
        keepStdin: protocol,
        signal: context.signal,
        // A command that speaks the protocol may wait for a person; that time is spent on its clock too.
        timeoutMs: budget.remainingMs(),
        logFile: join(context.logDir, 'command.log'),
        pidFile: join(context.logDir, PID_FILE),
        onLine: (line, stream) => hearLine(work, heard, line, stream),
      });
      return heard.proc.done;
    });
  }

  /** What the command's end means: the plan failed (why, with the output a person needs), left at a question, or finished. */
  private async conclude(work: Work, heard: Heard, result: ProcessResult): Promise<void> {
    const { context, reporter, git, history, store, bridge, protocol } = work;
    const { failure, reported, usage, facts, output } = heard;
    const lines = withFirstError(output, heard.firstError);
    const tail = lines.length > 0 ? `\n${lines.join('\n')}` : '';
    const agent = facts;
    if (bridge.waiting) return;
    if (failure) return reporter.failed(failure.error, failure.retryable, { usage, agent });
    if (result.aborted) return reporter.failed(`the command was aborted: ${abortReason(context.signal)}`, true, { usage, agent });
    if (result.timedOut) {
      return reporter.failed(`the command was stopped: plan ${context.plan.id} used up its timeout_minutes (${context.task.timeout_minutes})${tail}`, false, {
        timedOut: true,
        usage,
        agent,
      });
    }
    if (result.error) return reporter.failed(`the command could not run: ${result.error.message}`, false, { environment: true, usage, agent });
    const missing = missingProgram(this.options.command, result, output);
    if (missing !== undefined) return reporter.failed(`the command could not start: ${missing.trim()}`, false, { environment: true, usage, agent });
    if (result.code !== 0) {
      const how = result.code === null ? `was killed by ${result.signal}` : `exited with code ${result.code}`;
      return reporter.failed(`the command ${how}${reported ? `: ${reported.error}` : ''}${tail}`, reported?.retryable ?? false, { usage, agent });
    }
    if (reported) return reporter.failed(reported.error, reported.retryable, { usage, agent });
    if (bridge.failure !== undefined) return reporter.failed(`the command reported task_failed: ${bridge.failure}`, false, { usage, agent });
    const verified = await passPlannedCheckpoints(context, reporter, store, protocol ? 'all' : 'after');
    if (verified) return reporter.failed(verified.error, verified.retryable, { usage, agent });
    await finishWholePlan(context, git, history, reporter, heard.summary ?? bridge.summary ?? `\`${this.options.command}\` finished`, usage, facts);
  }
}

/** What one attempt of the command works with. */
interface Work {
  context: WorkerContext;
  reporter: Reporter;
  git: Git;
  history: PlanHistory;
  store: AnswerStore;
  bridge: ReportBridge;
  /** The command speaks the worker protocol (CommandAgentOptions.protocol). */
  protocol: boolean;
}

/** What the command's run has told so far. */
interface Heard {
  /** Why harness stopped the command (the first reason only). */
  failure?: { error: string; retryable: boolean };
  /** The command's own task_failed. */
  reported?: { error: string; retryable: boolean };
  summary?: string;
  /** A command that speaks the protocol may report what it used; no other figure is made up. */
  usage?: Usage;
  facts?: AgentFacts;
  proc?: RunningProcess;
  /** The output a person needs when the command fails: its own words, not the protocol lines. */
  output: string[];
  firstError?: string;
}

/** The command's stdin: the brief, as plain text or (for a command that speaks the protocol) inside an assign_task line. */
async function commandInput({ context, history, store, protocol }: Work): Promise<string> {
  const commits = context.task.resume || context.task.handoff !== undefined ? (await history.commits()).map((c) => ({ sha: c.sha, subject: c.subject })) : [];
  const brief = buildWorkerPrompt(context.plan, {
    spec: context.spec,
    checkpoints: protocol ? 'protocol' : 'none',
    answers: store.all(),
    commits,
    knowledge: context.task.knowledge ?? [],
    instructions: await executorInstructions(context.task.worktree),
    ...(context.task.handoff === undefined ? {} : { handoff: context.task.handoff }),
  });
  return protocol ? `${JSON.stringify({ ...context.task, at: context.now().toISOString(), prompt: brief })}\n` : brief;
}

/** Harness stops the command (the first reason is the one told). */
function stop(heard: Heard, why: { error: string; retryable: boolean }): void {
  heard.failure ??= why;
  heard.proc?.kill();
}

/** One line of the command's output: a protocol message acted on, an insight reported, or output kept and shown as progress. */
async function hearLine(work: Work, heard: Heard, line: string, stream: 'stdout' | 'stderr'): Promise<void> {
  const { reporter } = work;
  if (heard.failure) return;
  const message = stream === 'stdout' ? parseWorkerLine(line) : undefined;
  if (message) return onMessage(work, heard, message);
  // A command that cannot speak the protocol reports an insight as a line, as Claude does.
  if (stream === 'stdout' && line.includes(INSIGHT_MARKER)) {
    const found = findInsightLines(line);
    for (const insight of found.insights) await reporter.insight(insight);
    if (found.insights.length > 0) return;
  }
  heard.output.push(line);
  if (heard.output.length > TAIL_LINES) heard.output.shift();
  if (heard.firstError === undefined && isErrorHead(line)) heard.firstError = line;
  const text = line.trim();
  if (stream === 'stdout' && text) await reporter.progress(text.length > MAX_PROGRESS ? `${text.slice(0, MAX_PROGRESS - 1)}…` : text);
}

/** A protocol message from the command: forwarded, kept for the end, or a checkpoint asked and its answer written back. */
async function onMessage({ context, reporter, store, protocol }: Work, heard: Heard, message: WorkerMessage): Promise<void> {
  switch (message.type) {
    case 'session_ready':
      return; // The worker announced the session itself.
    case 'task_started':
    case 'progress_update':
    case 'tool_call':
    case 'insight':
      return reporter.forward(message);
    case 'task_completed':
      heard.summary = message.summary;
      heard.usage = message.usage;
      heard.facts = message.facts;
      // No answer can follow the end: a command reading stdin to its end must not wait for one.
      heard.proc?.closeStdin();
      return;
    case 'task_failed':
      heard.reported = { error: message.error, retryable: message.retryable };
      heard.usage = message.usage;
      heard.facts = message.facts;
      heard.proc?.closeStdin();
      return;
    default: {
      if (!protocol) {
        return stop(heard, {
          retryable: false,
          error: `the command asked for a person (${message.type}) but does not speak the protocol, so it cannot hear the answer: set protocol: true`,
        });
      }
      const gate = await passCheckpoint(context, reporter, store, message.checkpoint, undefined);
      if (!gate.ok) return stop(heard, gate);
      heard.proc?.writeLine(JSON.stringify(responseFor(message.checkpoint, gate.answer, context.task.session, context.now().toISOString())));
    }
  }
}

/** The line where sh could not find the agent's own program, or may not run it (126): this machine's problem, which is no attempt at the plan. */
function missingProgram(command: string, result: ProcessResult, output: string[]): string | undefined {
  const program = command.trim().split(/\s+/)[0]!;
  return result.code === 127
    ? output.find((l) => l.includes(`${program}: not found`) || l.includes(`${program}: command not found`))
    : result.code === 126
      ? output.find((l) => l.includes(`${program}: Permission denied`))
      : undefined;
}
