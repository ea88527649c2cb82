import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { overBudget, spendCap, type SpendLimit } from '../engine/core/run/spend-limit.js';
import { findCheckpointLine } from '../engine/core/agents/checkpoint-line.js';
import { totalUsage } from '../engine/core/agents/claude-stream.js';
import { describeGeminiEvent, FinalText, geminiResultFailure, geminiUsage, parseGeminiLine, TurnCounter, type GeminiResult, type TokenPrice } from '../engine/core/agents/gemini-stream.js';
import { geminiLimitOf, geminiLimitReason } from '../engine/core/agents/gemini-limit.js';
import { findInsightLines } from '../engine/core/agents/insight-line.js';
import { StreamFacts } from '../engine/core/agents/stream-facts.js';
import type { Checkpoint, Usage } from '../engine/core/protocol/messages.js';
import type { Agent, WorkerContext } from '../engine/core/agents/agent.js';
import { abortReason } from './abort.js';
import { agentEnv } from './agent-env.js';
import type { AnswerStore } from './answer-store.js';
import { passCheckpoint } from './checkpoint-gate.js';
import { runProcess } from './process.js';
import { answerPrompt, firstPrompt, runCliSession, type OpenSession } from './cli-session.js';
import type { Reporter } from './reporter.js';
import { WorkBudget } from './work-budget.js';
import { finishWholePlan } from './whole-plan.js';
import { PID_FILE } from './worktree.js';
import type { ReportBridge } from './mcp/report-bridge.js';
import { MCP_SERVER_NAME } from './mcp/report-tools.js';
import { geminiHome, geminiSessionFiles } from './gemini-session.js';
import { GEMINI_STATE, writeGeminiState, type GeminiState } from './gemini-state.js';

export interface GeminiAgentOptions {
  /** The Gemini CLI; "gemini" from PATH by default. */
  executable?: string;
  /**
   * --approval-mode: "auto_edit" by default (edits are approved, shell commands are not: a headless
   * run refuses them), "yolo" on a runner that is isolated anyway, "default" or "plan" (read-only).
   */
  approvalMode?: string;
  /** The model's turns in each run of the CLI: its `model.maxSessionTurns` setting. */
  maxTurns?: number;
  /** -m, e.g. "gemini-2.5-pro"; the CLI's own choice ("auto") otherwise. */
  model?: string;
  /** More arguments, passed as they are. */
  extraArgs?: string[];
  /** Checkpoints one plan may stop at, against an agent that never stops asking. */
  maxCheckpoints?: number;
  /** Gemini CLI reports tokens but no cost: dollars per million input and output tokens make its cost. */
  price?: TokenPrice;
  /** US dollars: a run of the CLI that brings the attempt's cost over it fails the plan (budget_usd). */
  budgetUsd?: number;
  /** The plan's and the spec's budgets with what the spec has spent; checked after each run of the CLI. */
  spendLimit?: SpendLimit;
}

const DEFAULT_MAX_CHECKPOINTS = 20;
/** Gemini CLI 0.61.0's exit code for a FatalAuthenticationError (no key, no login): the machine's setup, not the plan. */
const AUTH_EXIT = 41;

/**
 * Gemini CLI, headless: `gemini -p <brief> --output-format stream-json --skip-trust
 * --approval-mode <mode> --allowed-mcp-server-names harness` in the plan's worktree, with
 * GEMINI_CLI_HOME set to a home of harness's own whose settings.json names the harness MCP
 * server. The stream becomes progress; a final HARNESS_CHECKPOINT line or a question through
 * harness_worker_await becomes a checkpoint, and the answer continues the same session
 * (`--resume <id>`, or `--session-file` for a session restored from another runner).
 */
export class GeminiAgent implements Agent {
  readonly name = 'gemini';

  constructor(private readonly options: GeminiAgentOptions = {}) {}

  run(context: WorkerContext): Promise<void> {
    return runCliSession(this.name, context, GEMINI_STATE, (reporter, open) => this.session(context, reporter, open));
  }

  private async session(context: WorkerContext, reporter: Reporter, open: OpenSession<GeminiState>): Promise<void> {
    const { git, history, store, bridge, saved } = open;
    const home = geminiHome(context.task.worktree, { ...process.env, ...context.env });
    await this.writeSettings(home, bridge);
    const budget = new WorkBudget(context.task.timeout_minutes);
    const save = (state: GeminiState) => writeGeminiState(context.logDir, state);
    const first = await firstPrompt(context, reporter, open, save, (kept) => (kept.restored ? { restored: true } : {}));
    if (!first) return;
    // A session restored from the branch is continued from its file, not by id (resumeOf).
    let next: GeminiTurn = first.resume === undefined ? first : { prompt: first.prompt, ...(await this.resumeOf(home, first.resume, saved.restored === true)) };

    const maxCheckpoints = this.options.maxCheckpoints ?? DEFAULT_MAX_CHECKPOINTS;
    const runs: (Usage | undefined)[] = [];
    const facts = new StreamFacts();
    const failed = (error: string, retryable = false, timedOut = false, environment = false) =>
      reporter.failed(error, retryable, { timedOut, environment, usage: totalUsage(runs), agent: facts.facts() });
    const limit = this.options.spendLimit ?? (this.options.budgetUsd === undefined ? undefined : { plan: context.plan.id, planUsd: this.options.budgetUsd });
    for (let asked = 0; ; asked++) {
      const turn = await this.turn(context, reporter, store, budget, home, next, facts);
      runs.push(turn.usage);
      if (turn.sessionId) await save({ sessionId: turn.sessionId });
      // The CLI reports tokens as each run ends; their cost at the configured price is checked then.
      const spent = totalUsage(runs)?.costUsd;
      const over = limit && spent !== undefined ? overBudget(limit, spent, 'gemini') : undefined;
      if (over) return failed(`${over}: stopped`);
      if (limit && spent === undefined && spendCap(limit) !== undefined && this.options.price === undefined) {
        await reporter.progress('gemini reports no cost and agents.gemini has no price: budget_usd cannot be checked');
      }
      if (bridge.waiting && turn.sessionId) return save({ sessionId: turn.sessionId, checkpoint: bridge.waiting });
      if (!turn.ok) return failed(turn.error, turn.retryable, turn.timedOut, turn.environment);
      if (bridge.failure !== undefined) return failed(`gemini reported task_failed: ${bridge.failure}`);
      const reported = await reportInsights(reporter, turn.text);
      const line = findCheckpointLine(reported);
      if (!line.found) {
        const text = reported.trim() || bridge.summary || '';
        return finishWholePlan(context, git, history, reporter, summaryOf(text, turn.usage), totalUsage(runs), facts.facts());
      }
      if ('error' in line) return failed(`gemini asked for a person in a form the worker cannot read: ${line.error}`);
      if (!turn.sessionId) return failed('gemini asked for a person but reported no session id to continue');
      if (asked >= maxCheckpoints) return failed(`gemini stopped at more than ${maxCheckpoints} checkpoints; the plan needs splitting or clearer decisions`);
      const { request } = line;
      const checkpoint: Checkpoint = { id: request.id ?? `${turn.sessionId.slice(0, 8)}-${asked + 1}`, kind: request.kind, prompt: request.prompt, source: 'gemini' };
      if (request.options) checkpoint.options = request.options;
      await save({ sessionId: turn.sessionId, checkpoint, ...(request.default !== undefined ? { default: request.default } : {}) });
      const gate = await passCheckpoint(context, reporter, store, checkpoint, request.default);
      if (!gate.ok) return failed(gate.error, gate.retryable);
      await save({ sessionId: turn.sessionId });
      next = { prompt: answerPrompt(checkpoint, gate.answer), resume: turn.sessionId };
    }
  }

  /** How a saved session continues: by id where the CLI kept it, by its file where a checkpoint put it back. */
  private async resumeOf(home: string, sessionId: string, restored: boolean): Promise<{ resume?: string; sessionFile?: string }> {
    if (!restored) return { resume: sessionId };
    const [file] = await geminiSessionFiles(home, sessionId);
    return file ? { sessionFile: join(home, file) } : { resume: sessionId };
  }

  /** The CLI's settings in harness's home for it: the reporting server (trusted: its calls need no approval), no usage statistics, and the turn limit. */
  private async writeSettings(home: string, bridge: ReportBridge): Promise<void> {
    const dir = join(home, '.gemini');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const settings = {
      mcpServers: { [MCP_SERVER_NAME]: { ...bridge.serverCommand(), trust: true } },
      // The user's own settings are not read here: a plan's run sends Google no usage statistics, whatever they chose.
      privacy: { usageStatisticsEnabled: false },
      ...(this.options.maxTurns === undefined ? {} : { model: { maxSessionTurns: this.options.maxTurns } }),
    };
    // It holds this run's bridge token: the user's only.
    await writeFile(join(dir, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  }

  /** One run of the CLI: a new session, or a resumed one. */
  private async turn(
    context: WorkerContext,
    reporter: Reporter,
    store: AnswerStore,
    budget: WorkBudget,
    home: string,
    next: GeminiTurn,
    facts: StreamFacts,
  ): Promise<({ ok: true } | { ok: false; error: string; retryable: boolean; timedOut?: boolean; environment?: boolean }) & { sessionId?: string; text: string; usage?: Usage }> {
    let sessionId = next.resume;
    let result: GeminiResult | undefined;
    const turns = new TurnCounter();
    const final = new FinalText();
    const root = context.task.worktree;
    const run = await budget.spend(() =>
      runProcess({
        command: this.options.executable ?? 'gemini',
        args: this.args(next),
        cwd: root,
        env: agentEnv(context, store, { GEMINI_CLI_HOME: home }),
        signal: context.signal,
        timeoutMs: budget.remainingMs(),
        logFile: join(context.logDir, 'gemini.log'),
        pidFile: join(context.logDir, PID_FILE),
        onLine: async (text, stream) => {
          if (stream !== 'stdout') return;
          for (const event of parseGeminiLine(text)) {
            if (event.type === 'init' || event.type === 'tool_use' || event.type === 'tool_result') facts.add(event);
            turns.add(event);
            final.add(event);
            if (event.type === 'init') sessionId = event.sessionId;
            if (event.type === 'result') result = event;
            const message = describeGeminiEvent(event, root);
            if (message !== undefined) await reporter.progress(message);
          }
        },
      }),
    );
    const usage = result || turns.turns > 0 ? geminiUsage(result, turns.turns, this.options.price) : undefined;
    const base = { ...(sessionId !== undefined ? { sessionId } : {}), text: final.text, ...(usage ? { usage } : {}) };
    const tail = run.tail.length > 0 ? `\n${run.tail.slice(-10).join('\n')}` : '';
    if (run.aborted) return { ok: false, retryable: true, error: `gemini was aborted: ${abortReason(context.signal)}`, ...base };
    if (run.timedOut) return { ok: false, retryable: false, timedOut: true, error: `gemini was stopped: plan ${context.plan.id} used up its timeout_minutes (${context.task.timeout_minutes})`, ...base };
    if (run.error && result === undefined) {
      const missing = (run.error as NodeJS.ErrnoException).code === 'ENOENT';
      const hint = missing ? ' (is Gemini CLI installed and on PATH? npm install -g @google/gemini-cli)' : '';
      return { ok: false, retryable: false, error: `gemini could not run: ${run.error.message}${hint}`, ...(missing ? { environment: true } : {}), ...base };
    }
    if (result === undefined && run.code === AUTH_EXIT) {
      return { ok: false, retryable: false, environment: true, error: `gemini could not authenticate: set GEMINI_API_KEY (or GOOGLE_GENAI_USE_VERTEXAI with GOOGLE_API_KEY or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION) for the agent${tail}`, ...base };
    }
    // A stop at the quota is a pause to wait out (the worker reads the reset from this reason), not the plan's failure.
    const limited = result?.status === 'error' && result.error ? geminiLimitOf(result.error.message, new Date()) : undefined;
    if (limited) return { ok: false, retryable: true, error: geminiLimitReason(limited), ...base };
    if (result === undefined) {
      return { ok: false, retryable: true, error: `gemini exited with ${run.code === null ? `signal ${run.signal}` : `code ${run.code}`} and no result${tail}`, ...base };
    }
    const failure = geminiResultFailure(result, turns.turns);
    if (failure) return { ok: false, ...failure, ...base };
    return { ok: true, ...base };
  }

  private args(next: GeminiTurn): string[] {
    const o = this.options;
    // --skip-trust: headless in a folder the CLI was never told to trust is refused (exit 55); the worktree is the plan's own.
    const args = ['-p', next.prompt, '--output-format', 'stream-json', '--skip-trust'];
    if (next.sessionFile) args.push('--session-file', next.sessionFile);
    else if (next.resume) args.push('--resume', next.resume);
    args.push('--approval-mode', o.approvalMode ?? 'auto_edit');
    // Only harness's reporting server: a repository's own .gemini/settings.json servers are not started.
    args.push('--allowed-mcp-server-names', MCP_SERVER_NAME);
    if (o.model) args.push('--model', o.model);
    args.push(...(o.extraArgs ?? []));
    return args;
  }
}

/** One run of the CLI: its prompt, and the session it continues (by id, or imported from a file). */
interface GeminiTurn {
  prompt: string;
  resume?: string;
  sessionFile?: string;
}

async function reportInsights(reporter: Reporter, text: string): Promise<string> {
  const found = findInsightLines(text);
  for (const insight of found.insights) await reporter.insight(insight);
  for (const problem of found.problems) await reporter.progress(`an insight line was left out: ${problem}`);
  return found.insights.length + found.problems.length > 0 ? found.text : text;
}

function summaryOf(text: string, usage: Usage | undefined): string {
  const words = text.trim();
  const clipped = words.length > 2000 ? `${words.slice(0, 1999)}…` : words;
  const stats = [
    usage?.turns !== undefined ? `${usage.turns} turns` : '',
    usage?.inputTokens !== undefined && usage.outputTokens !== undefined ? `${usage.inputTokens + usage.outputTokens} tokens` : '',
    usage?.costUsd !== undefined ? `$${usage.costUsd.toFixed(2)}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return stats ? `${clipped}${clipped ? '\n\n' : ''}(gemini: ${stats})` : clipped;
}
