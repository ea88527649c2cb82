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
import { startProcess, type RunningProcess } from './process.js';
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
      await this.work(context, reporter, git, history, store, bridge);
    } finally {
      await bridge.close();
    }
  }

  private async work(
    context: WorkerContext,
    reporter: Reporter,
    git: Git,
    history: NonNullable<Awaited<ReturnType<typeof beginWholePlan>>>,
    store: AnswerStore,
    bridge: ReportBridge,
  ): Promise<void> {
    const mcpEnv = await bridge.agentEnv(context.logDir);
    const protocol = this.options.protocol === true;
    // A plan that needs a person stops for one whatever the command: one that cannot ask is asked for.
    if (!protocol) {
      const asked = await passPlannedCheckpoints(context, reporter, store, 'before');
      if (asked) return reporter.failed(asked.error, asked.retryable);
    }
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
    const input = protocol ? `${JSON.stringify({ ...context.task, at: context.now().toISOString(), prompt: brief })}\n` : brief;

    let failure: { error: string; retryable: boolean } | undefined;
    let reported: { error: string; retryable: boolean } | undefined;
    let summary: string | undefined;
    // A command that speaks the protocol may report what it used; no other figure is made up.
    let usage: Usage | undefined;
    let facts: AgentFacts | undefined;
    let proc: RunningProcess | undefined;
    // The output a person needs when the command fails: its own words, not the protocol lines.
    const output: string[] = [];
    let firstError: string | undefined;
    const stop = (why: { error: string; retryable: boolean }) => {
      failure ??= why;
      proc?.kill();
    };
    const onMessage = async (message: WorkerMessage) => {
      switch (message.type) {
        case 'session_ready':
          return; // The worker announced the session itself.
        case 'task_started':
        case 'progress_update':
        case 'tool_call':
        case 'insight':
          return reporter.forward(message);
        case 'task_completed':
          summary = message.summary;
          usage = message.usage;
          facts = message.facts;
          // No answer can follow the end: a command reading stdin to its end must not wait for one.
          proc?.closeStdin();
          return;
        case 'task_failed':
          reported = { error: message.error, retryable: message.retryable };
          usage = message.usage;
          facts = message.facts;
          proc?.closeStdin();
          return;
        default: {
          if (!protocol) {
            return stop({
              retryable: false,
              error: `the command asked for a person (${message.type}) but does not speak the protocol, so it cannot hear the answer: set protocol: true`,
            });
          }
          const gate = await passCheckpoint(context, reporter, store, message.checkpoint, undefined);
          if (!gate.ok) return stop(gate);
          proc?.writeLine(JSON.stringify(responseFor(message.checkpoint, gate.answer, context.task.session, context.now().toISOString())));
        }
      }
    };

    const budget = new WorkBudget(context.task.timeout_minutes);
    const start = await inSandbox(context, this.name, {
      command: 'sh',
      args: ['-c', this.options.command],
      cwd: context.task.worktree,
      env: agentEnv(context, store, mcpEnv),
    });
    const result = await budget.spend(() => {
      proc = startProcess({
        ...start,
        input,
        keepStdin: protocol,
        signal: context.signal,
        // A command that speaks the protocol may wait for a person; that time is spent on its clock too.
        timeoutMs: budget.remainingMs(),
        logFile: join(context.logDir, 'command.log'),
        pidFile: join(context.logDir, PID_FILE),
        onLine: async (line, stream) => {
          if (failure) return;
          const message = stream === 'stdout' ? parseWorkerLine(line) : undefined;
          if (message) return onMessage(message);
          // A command that cannot speak the protocol reports an insight as a line, as Claude does.
          if (stream === 'stdout' && line.includes(INSIGHT_MARKER)) {
            const found = findInsightLines(line);
            for (const insight of found.insights) await reporter.insight(insight);
            if (found.insights.length > 0) return;
          }
          output.push(line);
          if (output.length > TAIL_LINES) output.shift();
          if (firstError === undefined && isErrorHead(line)) firstError = line;
          const text = line.trim();
          if (stream === 'stdout' && text) await reporter.progress(text.length > MAX_PROGRESS ? `${text.slice(0, MAX_PROGRESS - 1)}…` : text);
        },
      });
      return proc.done;
    });

    const lines = withFirstError(output, firstError);
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
    // sh could not find the agent's own program, or may not run it (126): this machine's problem, which is no attempt at the plan.
    const program = this.options.command.trim().split(/\s+/)[0]!;
    const missing =
      result.code === 127
        ? output.find((l) => l.includes(`${program}: not found`) || l.includes(`${program}: command not found`))
        : result.code === 126
          ? output.find((l) => l.includes(`${program}: Permission denied`))
          : undefined;
    if (missing !== undefined) return reporter.failed(`the command could not start: ${missing.trim()}`, false, { environment: true, usage, agent });
    if (result.code !== 0) {
      const how = result.code === null ? `was killed by ${result.signal}` : `exited with code ${result.code}`;
      return reporter.failed(`the command ${how}${reported ? `: ${reported.error}` : ''}${tail}`, reported?.retryable ?? false, { usage, agent });
    }
    if (reported) return reporter.failed(reported.error, reported.retryable, { usage, agent });
    if (bridge.failure !== undefined) return reporter.failed(`the command reported task_failed: ${bridge.failure}`, false, { usage, agent });
    const verified = await passPlannedCheckpoints(context, reporter, store, protocol ? 'all' : 'after');
    if (verified) return reporter.failed(verified.error, verified.retryable, { usage, agent });
    await finishWholePlan(context, git, history, reporter, summary ?? bridge.summary ?? `\`${this.options.command}\` finished`, usage, facts);
  }
}
