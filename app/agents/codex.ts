import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { overBudget, spendCap, type SpendLimit } from '../engine/core/run/spend-limit.js';
import { findCheckpointLine } from '../engine/core/agents/checkpoint-line.js';
import { cliTimeZone, codexLimitOf } from '../engine/core/agents/codex-limit.js';
import { describeCodexEvent, isTurn, parseCodexLine, rolloutUsage, runUsage, usageSince, type CodexUsage, type TokenPrice } from '../engine/core/agents/codex-stream.js';
import { totalUsage } from '../engine/core/agents/claude-stream.js';
import { findInsightLines } from '../engine/core/agents/insight-line.js';
import { StreamFacts } from '../engine/core/agents/stream-facts.js';
import type { Agent, WorkerContext } from '../engine/core/agents/agent.js';
import type { Checkpoint, Usage } from '../engine/core/protocol/messages.js';
import { readTextIfExists } from '../machine/files.js';
import { abortReason } from './abort.js';
import { agentEnv } from './agent-env.js';
import type { AnswerStore } from './answer-store.js';
import { passCheckpoint } from './checkpoint-gate.js';
import { codexHome, codexRolloutFiles } from './codex-session.js';
import type { ReportBridge } from './mcp/report-bridge.js';
import { MCP_SERVER_NAME } from './mcp/report-tools.js';
import { runProcess } from './process.js';
import { SessionStateFile } from './session-state.js';
import { answerPrompt, firstPrompt, runCliSession, type FirstPrompt, type OpenSession } from './cli-session.js';
import type { Reporter } from './reporter.js';
import { finishWholePlan } from './whole-plan.js';
import { WorkBudget } from './work-budget.js';
import { PID_FILE } from './worktree.js';

/** Codex's sandbox modes (`-s`, `sandbox_mode`), as 0.171.0 lists them. */
export const CODEX_SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
export type CodexSandbox = (typeof CODEX_SANDBOX_MODES)[number];

export interface CodexAgentOptions {
  /** The Codex CLI; "codex" from PATH by default. */
  executable?: string;
  /**
   * sandbox_mode for the commands the agent runs: "workspace-write" by default (the worktree
   * writable, no network), "danger-full-access" on a runner, which is a throwaway machine.
   */
  sandbox?: CodexSandbox;
  /** The most turns (messages and actions, as harness counts them) one run of the CLI may take; the run is stopped there. */
  maxTurns?: number;
  model?: string;
  /** What a million tokens cost: Codex reports tokens, and the cost is worked out from them. Without it no cost is known. */
  price?: TokenPrice;
  /** More arguments for `codex exec` (and `codex exec resume`), passed as they are, e.g. ["-c", "model_reasoning_effort=\"high\""]. */
  extraArgs?: string[];
  /** Checkpoints one plan may stop at, against an agent that never stops asking. */
  maxCheckpoints?: number;
  /** US dollars: a run that brings the attempt's cost over it fails the plan (budget_usd). */
  budgetUsd?: number;
  /** The plan's and the spec's budgets with what the spec has spent; checked after each run of the CLI. */
  spendLimit?: SpendLimit;
}

/** What the worker remembers of its Codex thread in logDir, to continue it after a restart (or, seeded from a checkpoint, on another runner). */
export interface CodexState {
  sessionId?: string;
  /** The checkpoint the session stopped at and nobody has answered yet. */
  checkpoint?: Checkpoint;
  default?: string;
}

const STATE = new SessionStateFile<CodexState>('codex.json');
const DEFAULT_MAX_CHECKPOINTS = 20;
/** What 0.171.0 says when the API refuses the credential, or none is there: the machine's setup, not the plan. */
const AUTH_FAILURE = /unexpected status 40[13]\b|Missing environment variable: `[A-Z_]+`|Not logged in|no Codex credentials were found/;

/**
 * The OpenAI Codex CLI, headless: `codex exec --json … -` in the plan's worktree, the brief on
 * stdin. Its JSONL becomes progress_update messages; the reporting channel is harness's MCP
 * server, given as `-c mcp_servers.harness={…}` with its tools approved (Codex refuses an MCP
 * call that needs approval when approval_policy is "never"), and --ignore-user-config keeps the
 * user's config.toml, with its own servers, out. A final HARNESS_CHECKPOINT line, or
 * harness_worker_await where nobody can wait, stops at a checkpoint; the answer continues the
 * same thread (`codex exec resume <thread id> -`). Otherwise as the claude agent.
 */
export class CodexAgent implements Agent {
  readonly name = 'codex';

  constructor(private readonly options: CodexAgentOptions = {}) {}

  run(context: WorkerContext): Promise<void> {
    return runCliSession(this.name, context, STATE, (reporter, open) => this.session(context, reporter, open));
  }

  private async session(context: WorkerContext, reporter: Reporter, open: OpenSession<CodexState>): Promise<void> {
    const { git, history, store, bridge } = open;
    const budget = new WorkBudget(context.task.timeout_minutes);
    const save = (state: CodexState) => STATE.write(context.logDir, state);
    const first = await firstPrompt(context, reporter, open, save);
    if (!first) return;
    let next: FirstPrompt = first;

    const maxCheckpoints = this.options.maxCheckpoints ?? DEFAULT_MAX_CHECKPOINTS;
    const runs: (Usage | undefined)[] = [];
    const facts = new StreamFacts();
    const failed = (error: string, retryable = false, timedOut = false, environment = false) =>
      reporter.failed(error, retryable, { timedOut, environment, usage: totalUsage(runs), agent: facts.facts() });
    const limit = this.options.spendLimit ?? (this.options.budgetUsd === undefined ? undefined : { plan: context.plan.id, planUsd: this.options.budgetUsd });
    if (limit && spendCap(limit) !== undefined && !this.options.price) {
      await reporter.progress('a budget is set, but agents.codex.price is not: Codex reports tokens and no cost, so the budget cannot be held');
    }
    for (let asked = 0; ; asked++) {
      const turn = await this.turn(context, reporter, store, budget, next, facts, bridge);
      runs.push(turn.usage);
      if (turn.sessionId) await save({ sessionId: turn.sessionId });
      const spent = totalUsage(runs)?.costUsd;
      const over = limit && spent !== undefined ? overBudget(limit, spent, 'codex') : undefined;
      if (over) return failed(`${over}: stopped`);
      if (bridge.waiting && turn.sessionId) return save({ sessionId: turn.sessionId, checkpoint: bridge.waiting });
      if (!turn.ok) return failed(turn.error, turn.retryable, turn.timedOut, turn.environment);
      if (bridge.failure !== undefined) return failed(`codex reported task_failed: ${bridge.failure}`);
      const reported = await reportInsights(reporter, turn.text);
      const line = findCheckpointLine(reported);
      if (!line.found) {
        const text = reported.trim() || bridge.summary || '';
        return finishWholePlan(context, git, history, reporter, summaryOf(text, totalUsage(runs)), totalUsage(runs), facts.facts());
      }
      if ('error' in line) return failed(`codex asked for a person in a form the worker cannot read: ${line.error}`);
      if (!turn.sessionId) return failed('codex asked for a person but reported no thread id to continue');
      if (asked >= maxCheckpoints) return failed(`codex stopped at more than ${maxCheckpoints} checkpoints; the plan needs splitting or clearer decisions`);
      const { request } = line;
      const checkpoint: Checkpoint = { id: request.id ?? `${turn.sessionId.slice(-8)}-${asked + 1}`, kind: request.kind, prompt: request.prompt, source: 'codex' };
      if (request.options) checkpoint.options = request.options;
      await save({ sessionId: turn.sessionId, checkpoint, ...(request.default !== undefined ? { default: request.default } : {}) });
      const gate = await passCheckpoint(context, reporter, store, checkpoint, request.default);
      if (!gate.ok) return failed(gate.error, gate.retryable);
      await save({ sessionId: turn.sessionId });
      next = { prompt: answerPrompt(checkpoint, gate.answer), resume: turn.sessionId };
    }
  }

  /** One run of the CLI: a new thread, or a resumed one. */
  private async turn(
    context: WorkerContext,
    reporter: Reporter,
    store: AnswerStore,
    budget: WorkBudget,
    next: { prompt: string; resume?: string },
    facts: StreamFacts,
    bridge: ReportBridge,
  ): Promise<({ ok: true; text: string } | { ok: false; error: string; retryable: boolean; timedOut?: boolean; environment?: boolean }) & { sessionId?: string; usage?: Usage }> {
    const env = agentEnv(context, store);
    // 0.171.0 refuses a CODEX_HOME that does not exist ("Error finding codex home: CODEX_HOME points to …"); ~/.codex it makes itself.
    if (env.CODEX_HOME) await mkdir(env.CODEX_HOME, { recursive: true });
    // A resumed thread's usage counts its earlier runs too: this run's is what it adds.
    const before = next.resume ? await threadUsage(env, next.resume) : undefined;
    let sessionId = next.resume;
    let text = '';
    let total: CodexUsage | undefined;
    let failure: string | undefined;
    let lastError: string | undefined;
    let turns = 0;
    const stop = new AbortController();
    const root = context.task.worktree;
    const run = await budget.spend(() =>
      runProcess({
        command: this.options.executable ?? 'codex',
        args: this.args(next, bridge),
        input: next.prompt,
        cwd: root,
        env,
        signal: AbortSignal.any([context.signal, stop.signal]),
        timeoutMs: budget.remainingMs(),
        logFile: join(context.logDir, 'codex.log'),
        pidFile: join(context.logDir, PID_FILE),
        onLine: async (line, stream) => {
          if (stream !== 'stdout') return;
          for (const event of parseCodexLine(line)) {
            countFacts(facts, event);
            if (event.type === 'thread') sessionId = event.threadId;
            if (event.type === 'item' && event.phase === 'completed' && event.item.kind === 'agent_message') text = event.item.text;
            if (event.type === 'turn_completed') total = event.usage;
            if (event.type === 'turn_failed') failure = event.message;
            if (event.type === 'error') lastError = event.message;
            if (isTurn(event)) turns++;
            const message = describeCodexEvent(event, root);
            if (message !== undefined) await reporter.progress(message);
            // Codex has no turn limit of its own: the run is stopped at the first turn past max_turns.
            if (this.options.maxTurns !== undefined && turns > this.options.maxTurns && !stop.signal.aborted) stop.abort();
          }
        },
      }),
    );
    // Nothing seen is nothing known: a run stopped before its first step reports no usage.
    const usage = total === undefined && turns === 0 ? undefined : runUsage(turns, total && usageSince(total, before), this.options.price);
    const withSession = { ...(sessionId !== undefined ? { sessionId } : {}), ...(usage ? { usage } : {}) };
    const tail = run.tail.length > 0 ? `\n${run.tail.slice(-10).join('\n')}` : '';
    if (stop.signal.aborted && !context.signal.aborted) {
      return { ok: false, retryable: false, error: `codex stopped at its turn limit (max_turns ${this.options.maxTurns}; the run was stopped at turn ${turns})`, ...withSession };
    }
    if (run.aborted) return { ok: false, retryable: true, error: `codex was aborted: ${abortReason(context.signal)}`, ...withSession };
    if (run.timedOut) {
      return { ok: false, retryable: false, timedOut: true, error: `codex was stopped: plan ${context.plan.id} used up its timeout_minutes (${context.task.timeout_minutes})`, ...withSession };
    }
    if (run.error && total === undefined && failure === undefined) {
      const missing = (run.error as NodeJS.ErrnoException).code === 'ENOENT';
      const hint = missing ? ' (is the Codex CLI installed and on PATH? npm install -g @openai/codex)' : '';
      return { ok: false, retryable: false, error: `codex could not run: ${run.error.message}${hint}`, ...(missing ? { environment: true } : {}), ...withSession };
    }
    const said = failure ?? (total === undefined ? [lastError ?? '', ...run.tail].join('\n') : undefined);
    if (said !== undefined) {
      // A stop at the usage limit is a pause to wait out (the worker reads the reset from this reason), not the plan's failure.
      const limit = codexLimitOf(said, context.now(), cliTimeZone(env));
      if (limit) return { ok: false, retryable: true, error: `codex stopped at the model's usage limit: ${limit.evidence}${limit.resetsAt ? ` (resets ${limit.resetsAt.toISOString()})` : ''}`, ...withSession };
      const auth = AUTH_FAILURE.exec(said);
      if (auth) {
        return { ok: false, retryable: false, environment: true, error: `codex could not reach the model: ${clip(firstLineWith(said, auth[0]), 300)} — set CODEX_API_KEY (an OpenAI API key) for the agent, or run codex login`, ...withSession };
      }
    }
    if (failure !== undefined) return { ok: false, retryable: true, error: `codex failed: ${clip(failure, 500)}`, ...withSession };
    if (total === undefined) {
      return { ok: false, retryable: true, error: `codex exited with ${run.code === null ? `signal ${run.signal}` : `code ${run.code}`} and no result${tail}`, ...withSession };
    }
    return { ok: true, text, ...withSession };
  }

  private args(next: { resume?: string }, bridge: ReportBridge): string[] {
    const o = this.options;
    const args = ['exec', ...(next.resume ? ['resume'] : []), '--json'];
    // Only harness's reporting server: the user's config.toml (and the servers in it) is not read; auth still is.
    args.push('--ignore-user-config');
    // Nobody is there to approve: a command the sandbox refuses fails back to the model; the reporting tools need no approval.
    args.push('-c', 'approval_policy="never"', '-c', `sandbox_mode="${o.sandbox ?? 'workspace-write'}"`);
    // required: 0.171.0 does not wait for a server that is slow to start (the reporting server takes a second or two) and
    // leaves its tools out of the run; a required one it waits for, and it ends the run if the server cannot start.
    const server = bridge.serverCommand();
    args.push('-c', `mcp_servers.${MCP_SERVER_NAME}=${toml({ command: server.command, args: server.args, env: server.env, required: true, default_tools_approval_mode: 'approve' })}`);
    if (o.model) args.push('-m', o.model);
    args.push(...(o.extraArgs ?? []));
    if (next.resume) args.push(next.resume);
    // The brief on stdin: a long one does not fit an argument, and stays out of the process list.
    args.push('-');
    return args;
  }
}

/** A value as TOML (an inline table, an array, a string): what `-c key=value` parses. JSON's string escapes are TOML's. */
export function toml(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(toml).join(',')}]`;
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k)}=${toml(v)}`)
      .join(',')}}`;
  }
  return String(value);
}

/** Codex's items as the tool calls and results StreamFacts counts. */
function countFacts(facts: StreamFacts, event: ReturnType<typeof parseCodexLine>[number]): void {
  if (event.type !== 'item' || event.phase !== 'completed') return;
  const item = event.item;
  const call =
    item.kind === 'command_execution' ? { name: 'Bash', input: { command: item.command }, failed: item.status !== 'completed' }
    : item.kind === 'file_change' ? { name: 'Edit', input: { changes: item.changes }, failed: item.status !== 'completed' }
    : item.kind === 'mcp_tool_call' ? { name: `${item.server}.${item.tool}`, input: item.arguments, failed: item.status !== 'completed' }
    : item.kind === 'web_search' ? { name: 'WebSearch', input: { query: item.query }, failed: false }
    : undefined;
  if (!call) return;
  facts.add({ type: 'tool_use', id: item.id, name: call.name, input: call.input });
  facts.add({ type: 'tool_result', toolUseId: item.id, isError: call.failed, content: '' });
}

/** The thread's total usage before this run, from its rollout file. */
async function threadUsage(env: Record<string, string | undefined>, threadId: string): Promise<CodexUsage | undefined> {
  const sessions = join(codexHome(env), 'sessions');
  const [file] = await codexRolloutFiles(sessions, threadId);
  if (file === undefined) return undefined;
  const text = await readTextIfExists(join(sessions, file));
  return text === undefined ? undefined : rolloutUsage(text);
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
  const stats = [usage?.turns !== undefined ? `${usage.turns} turns` : '', usage?.costUsd !== undefined ? `$${usage.costUsd.toFixed(2)}` : ''].filter(Boolean).join(', ');
  return stats ? `${clipped}${clipped ? '\n\n' : ''}(codex: ${stats})` : clipped;
}

function firstLineWith(text: string, needle: string): string {
  return text.split('\n').find((l) => l.includes(needle))?.trim() ?? needle;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The session state of a plan's logDir (empty when there is none). */
export function readCodexState(logDir: string): Promise<CodexState> {
  return STATE.read(logDir);
}

/** Seed a logDir with a session to continue: a runner restoring a checkpoint taken on another runner. */
export function seedCodexState(logDir: string, state: CodexState): Promise<void> {
  return STATE.seed(logDir, state);
}
