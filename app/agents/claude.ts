import { overBudget, spendCap, type SpendLimit } from '../engine/core/run/spend-limit.js';
import { join } from 'node:path';
import { findCheckpointLine } from '../engine/core/agents/checkpoint-line.js';
import { describeClaudeEvent, parseClaudeLine, resultFailure, totalUsage, usageLimitFailure, usageOf, type ClaudeRateLimit, type ClaudeResult } from '../engine/core/agents/claude-stream.js';
import { findInsightLines } from '../engine/core/agents/insight-line.js';
import { StreamFacts } from '../engine/core/agents/stream-facts.js';
import type { Checkpoint, Usage } from '../engine/core/protocol/messages.js';
import { abortReason } from './abort.js';
import type { Agent, WorkerContext } from '../engine/core/agents/agent.js';
import { agentEnv } from './agent-env.js';
import type { AnswerStore } from './answer-store.js';
import { passCheckpoint, passPlannedCheckpoints, unansweredPlannedCheckpoint } from './checkpoint-gate.js';
import { runProcess } from './process.js';
import { SessionStateFile } from './session-state.js';
import { answerPrompt, firstPrompt, runCliSession, type FirstPrompt, type OpenSession } from './cli-session.js';
import type { Reporter } from './reporter.js';
import { WorkBudget } from './work-budget.js';
import { finishWholePlan } from './whole-plan.js';
import { PID_FILE } from './worktree.js';
import { CLAUDE_TOOL_NAMES } from './mcp/report-tools.js';

export interface ClaudeAgentOptions {
  /** The Claude Code CLI; "claude" from PATH by default. */
  executable?: string;
  /**
   * --permission-mode. "acceptEdits" by default: headless Claude Code may not write files
   * otherwise, and the worktree is the plan's own. Commands need allowedTools, or
   * "bypassPermissions" on a runner that is isolated anyway.
   */
  permissionMode?: string;
  /** --allowedTools, e.g. ["Bash(npm test:*)", "Bash(git commit:*)"]. */
  allowedTools?: string[];
  /** --max-turns for each session run. */
  maxTurns?: number;
  model?: string;
  /** More arguments, passed as they are. */
  extraArgs?: string[];
  /** Checkpoints one plan may stop at, against an agent that never stops asking. */
  maxCheckpoints?: number;
  /** US dollars: a run of the CLI that brings the attempt's reported cost over it fails the plan (budget_usd). */
  budgetUsd?: number;
  /** The plan's and the spec's budgets with what the spec has spent; checked like budgetUsd, after each run of the CLI. */
  spendLimit?: SpendLimit;
}

/** What the worker remembers of its Claude session in logDir, to continue it after a restart (or, seeded from a checkpoint, on another runner). */
export interface ClaudeState {
  sessionId?: string;
  /** The checkpoint the session stopped at and nobody has answered yet. */
  checkpoint?: Checkpoint;
  default?: string;
}

const STATE = new SessionStateFile<ClaudeState>('claude.json');
/** What Claude Code (2.1.332) prints, and exits 1, when bypassPermissions is asked for as root outside a declared sandbox. */
const ROOT_REFUSAL = '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons';
const DEFAULT_MAX_CHECKPOINTS = 20;

/**
 * Claude Code, headless: `claude -p <brief> --output-format stream-json --verbose` in the plan's
 * worktree. Its stream becomes progress_update messages; a final HARNESS_CHECKPOINT line becomes
 * decision_needed (verification_needed, action_needed), and the answer continues the same
 * session (`--resume <session_id>`). The agent may commit as it works (the brief asks for Plan
 * and Spec trailers); whatever it leaves is committed by the worker as task 1/1.
 *
 * A restarted worker continues a session that was waiting at a checkpoint, with its work in
 * place; a session that was cut off mid-turn is not continued: its leftovers are discarded and a
 * new session starts from the branch, told which commits are already there.
 */
export class ClaudeAgent implements Agent {
  readonly name = 'claude';

  constructor(private readonly options: ClaudeAgentOptions = {}) {}

  run(context: WorkerContext): Promise<void> {
    return runCliSession(this.name, context, STATE, (reporter, open) => this.session(context, reporter, open));
  }

  private async session(context: WorkerContext, reporter: Reporter, open: OpenSession<ClaudeState>): Promise<void> {
    const { git, history, store, bridge } = open;
    const mcpConfig = await bridge.writeConfig(context.logDir);
    const budget = new WorkBudget(context.task.timeout_minutes);
    const save = (state: ClaudeState) => STATE.write(context.logDir, state);
    const first = await firstPrompt(context, reporter, open, save);
    if (!first) return;
    let next: FirstPrompt = first;

    const maxCheckpoints = this.options.maxCheckpoints ?? DEFAULT_MAX_CHECKPOINTS;
    // What each run of the CLI in this attempt reported it used; the messages carry the total.
    const runs: (Usage | undefined)[] = [];
    // Counted over every run of the CLI in this attempt, like the usage.
    const facts = new StreamFacts();
    const failed = (error: string, retryable = false, timedOut = false, environment = false) =>
      reporter.failed(error, retryable, { timedOut, environment, usage: totalUsage(runs), agent: facts.facts() });
    const limit = this.options.spendLimit ?? (this.options.budgetUsd === undefined ? undefined : { plan: context.plan.id, planUsd: this.options.budgetUsd });
    const cap = limit ? spendCap(limit) : undefined;
    for (let asked = 0; ; asked++) {
      // Claude Code stops itself at --max-budget-usd: what is left of the cap after this attempt's earlier runs.
      const left = cap === undefined ? undefined : cap - (totalUsage(runs)?.costUsd ?? 0);
      const turn = await this.turn(context, reporter, store, budget, { ...next, mcpConfig, ...(left === undefined ? {} : { maxBudgetUsd: left }) }, facts);
      runs.push(turn.result && usageOf(turn.result));
      if (turn.sessionId) await save({ sessionId: turn.sessionId });
      // Claude's stream-json carries the cost only in its closing result: the budget is checked as each run of the CLI ends.
      const spent = totalUsage(runs)?.costUsd;
      const over = limit && spent !== undefined ? overBudget(limit, spent, 'claude') : undefined;
      if (over) return failed(`${over}: stopped`);
      // Asked through harness_worker_await where nobody can wait: the session stops at the question and is resumed with the answer.
      if (bridge.waiting && turn.sessionId) return save({ sessionId: turn.sessionId, checkpoint: bridge.waiting });
      if (!turn.ok) return failed(turn.error, turn.retryable, turn.timedOut, turn.environment);
      if (bridge.failure !== undefined) return failed(`claude reported task_failed: ${bridge.failure}`);
      const reported = await reportInsights(reporter, turn.result.result ?? '');
      const line = findCheckpointLine(reported);
      if ('error' in line) return failed(`claude asked for a person in a form the worker cannot read: ${line.error}`);
      // A plan that needs a person stops for one whatever the agent did: a checkpoint it foresees and
      // the session finished without asking is asked now, and its answer goes back to the session.
      const unasked = line.found ? undefined : unansweredPlannedCheckpoint(context, store);
      if (!line.found && (unasked === undefined || !turn.sessionId)) {
        const skipped = unasked && (await passPlannedCheckpoints(context, reporter, store, 'all'));
        if (skipped) return failed(skipped.error, skipped.retryable);
        const text = reported.trim() || bridge.summary || '';
        return finishWholePlan(context, git, history, reporter, summaryOf(text, turn.result), totalUsage(runs), facts.facts());
      }
      if (!turn.sessionId) return failed('claude asked for a person but reported no session id to continue');
      if (asked >= maxCheckpoints) return failed(`claude stopped at more than ${maxCheckpoints} checkpoints; the plan needs splitting or clearer decisions`);
      const request = line.found ? line.request : undefined;
      let checkpoint: Checkpoint;
      if (request) {
        checkpoint = {
          // Without an id of its own the question belongs to this session only: a new session's question is a new one.
          id: request.id ?? `${turn.sessionId.slice(0, 8)}-${asked + 1}`,
          kind: request.kind,
          prompt: request.prompt,
          source: 'claude',
        };
        if (request.options) checkpoint.options = request.options;
      } else {
        checkpoint = unasked!;
        await reporter.progress(`claude finished without asking checkpoint ${checkpoint.id}, which the plan foresees: harness asks it`);
      }
      await save({ sessionId: turn.sessionId, checkpoint, ...(request?.default !== undefined ? { default: request.default } : {}) });
      const gate = await passCheckpoint(context, reporter, store, checkpoint, request?.default);
      if (!gate.ok) return failed(gate.error, gate.retryable);
      await save({ sessionId: turn.sessionId });
      next = { prompt: answerPrompt(checkpoint, gate.answer), resume: turn.sessionId };
    }
  }

  /** One run of the CLI: a new session, or a resumed one. */
  private async turn(
    context: WorkerContext,
    reporter: Reporter,
    store: AnswerStore,
    budget: WorkBudget,
    next: ClaudeTurn,
    facts: StreamFacts,
  ): Promise<({ ok: true; result: ClaudeResult } | { ok: false; error: string; retryable: boolean; timedOut?: boolean; environment?: boolean; result?: ClaudeResult }) & { sessionId?: string }> {
    let sessionId = next.resume;
    let result: ClaudeResult | undefined;
    // The last word of the stream on the model's usage limits.
    let limit: ClaudeRateLimit | undefined;
    const root = context.task.worktree;
    const run = await budget.spend(() =>
      runProcess({
        command: this.options.executable ?? 'claude',
        args: this.args(next),
        cwd: root,
        env: { ...agentEnv(context, store), ...this.rootSandbox() },
        signal: context.signal,
        timeoutMs: budget.remainingMs(),
        logFile: join(context.logDir, 'claude.log'),
        pidFile: join(context.logDir, PID_FILE),
        onLine: async (text, stream) => {
          if (stream !== 'stdout') return;
          for (const event of parseClaudeLine(text)) {
            facts.add(event);
            if (event.type === 'init') sessionId = event.sessionId;
            if (event.type === 'rate_limit') limit = event;
            if (event.type === 'result') {
              result = event;
              sessionId = event.sessionId ?? sessionId;
            }
            const message = describeClaudeEvent(event, root);
            if (message !== undefined) await reporter.progress(message);
          }
        },
      }),
    );
    const withSession = sessionId !== undefined ? { sessionId } : {};
    if (result === undefined && run.tail.some((l) => l.includes(ROOT_REFUSAL))) {
      return { ok: false, retryable: false, error: `claude refused to run: "${ROOT_REFUSAL}" — the job runs as root (a self-hosted runner or a container: job); run it as another user, or set IS_SANDBOX=1 for the step if the machine is a throwaway sandbox`, ...withSession };
    }
    const tail = run.tail.length > 0 ? `\n${run.tail.slice(-10).join('\n')}` : '';
    if (run.aborted) return { ok: false, retryable: true, error: `claude was aborted: ${abortReason(context.signal)}`, ...withSession };
    if (run.timedOut) {
      return { ok: false, retryable: false, timedOut: true, error: `claude was stopped: plan ${context.plan.id} used up its timeout_minutes (${context.task.timeout_minutes})`, ...withSession };
    }
    if (run.error && result === undefined) {
      const missing = (run.error as NodeJS.ErrnoException).code === 'ENOENT';
      const hint = missing ? ' (is Claude Code installed and on PATH?)' : '';
      return { ok: false, retryable: false, error: `claude could not run: ${run.error.message}${hint}`, ...(missing ? { environment: true } : {}), ...withSession };
    }
    // A stop at the usage limit is a pause to wait out (the worker reads the reset from this reason), not the plan's failure.
    const limited = usageLimitFailure(result, limit);
    if (limited) return { ok: false, retryable: true, error: limited, ...(result ? { result } : {}), ...withSession };
    if (result === undefined) {
      return { ok: false, retryable: true, error: `claude exited with ${run.code === null ? `signal ${run.signal}` : `code ${run.code}`} and no result${tail}`, ...withSession };
    }
    const failure = resultFailure(result);
    if (failure) return { ok: false, ...failure, result, ...withSession };
    return { ok: true, result, ...withSession };
  }

  /**
   * Claude Code refuses bypassPermissions as root unless IS_SANDBOX=1 (self-hosted runners and
   * `container:` jobs run as root). The worker chose bypassPermissions because the runner is a
   * throwaway machine holding no write token: that is the sandbox the variable declares.
   */
  private rootSandbox(): Record<string, string> {
    const root = typeof process.getuid === 'function' && process.getuid() === 0;
    return this.options.permissionMode === 'bypassPermissions' && root && process.env.IS_SANDBOX === undefined ? { IS_SANDBOX: '1' } : {};
  }

  private args(next: ClaudeTurn): string[] {
    const o = this.options;
    const args = ['-p', next.prompt, '--output-format', 'stream-json', '--verbose'];
    if (next.resume) args.push('--resume', next.resume);
    // Only harness's reporting server: a repository's own .mcp.json (or the user's settings) adds none to the worker's agent.
    args.push('--mcp-config', next.mcpConfig, '--strict-mcp-config');
    args.push('--permission-mode', o.permissionMode ?? 'acceptEdits');
    // Headless Claude Code asks permission for an MCP tool like any other: the reporting channel's are always allowed.
    args.push('--allowedTools', [...(o.allowedTools ?? []), ...CLAUDE_TOOL_NAMES].join(','));
    if (o.maxTurns !== undefined) args.push('--max-turns', String(o.maxTurns));
    // Whole cents down (1 - 0.8 is 0.1999…), and at least one: Claude Code refuses a budget that is not above zero.
    if (next.maxBudgetUsd !== undefined) args.push('--max-budget-usd', String(Math.max(0.01, Math.floor(next.maxBudgetUsd * 100 + 1e-6) / 100)));
    if (o.model) args.push('--model', o.model);
    args.push(...(o.extraArgs ?? []));
    return args;
  }
}

/** One run of the CLI: its prompt, the session it resumes, the MCP config, and what it may still spend. */
interface ClaudeTurn {
  prompt: string;
  resume?: string;
  mcpConfig: string;
  maxBudgetUsd?: number;
}

export { answerPrompt } from './cli-session.js';

/**
 * The insights of a final text sent as `insight` messages (a line that is not a valid one is
 * said in the progress, not dropped silently); the text without those lines is returned.
 */
async function reportInsights(reporter: Reporter, text: string): Promise<string> {
  const found = findInsightLines(text);
  for (const insight of found.insights) await reporter.insight(insight);
  for (const problem of found.problems) await reporter.progress(`an insight line was left out: ${problem}`);
  return found.insights.length + found.problems.length > 0 ? found.text : text;
}

function summaryOf(text: string, result: ClaudeResult): string {
  const words = text.trim();
  const clipped = words.length > 2000 ? `${words.slice(0, 1999)}…` : words;
  const stats = [result.numTurns !== undefined ? `${result.numTurns} turns` : '', result.costUsd !== undefined ? `$${result.costUsd.toFixed(2)}` : '']
    .filter(Boolean)
    .join(', ');
  return stats ? `${clipped}${clipped ? '\n\n' : ''}(claude: ${stats})` : clipped;
}

/** The session state of a plan's logDir (empty when there is none). */
export function readClaudeState(logDir: string): Promise<ClaudeState> {
  return STATE.read(logDir);
}

/** Seed a logDir with a session to continue: a runner restoring a checkpoint taken on another runner. */
export function seedClaudeState(logDir: string, state: ClaudeState): Promise<void> {
  return STATE.seed(logDir, state);
}
