import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { overBudget, spendCap, type SpendLimit } from '../engine/core/run/spend-limit.js';
import { findCheckpointLine } from '../engine/core/agents/checkpoint-line.js';
import { copilotUsage, describeCopilotEvent, parseCopilotLine, usageFileOf, type CopilotError, type CopilotPrice, type CopilotResult } from '../engine/core/agents/copilot-stream.js';
import { copilotLimitFailure } from '../engine/core/agents/copilot-limit.js';
import { totalUsage } from '../engine/core/agents/claude-stream.js';
import { findInsightLines } from '../engine/core/agents/insight-line.js';
import { StreamFacts } from '../engine/core/agents/stream-facts.js';
import type { Checkpoint, Usage } from '../engine/core/protocol/messages.js';
import type { Agent, WorkerContext } from '../engine/core/agents/agent.js';
import { abortReason } from './abort.js';
import { agentEnv } from './agent-env.js';
import type { AnswerStore } from './answer-store.js';
import { passCheckpoint, unansweredPlannedCheckpoint } from './checkpoint-gate.js';
import { startProcess } from './process.js';
import { SessionStateFile } from './session-state.js';
import { answerPrompt, firstPrompt, runCliSession, type OpenSession } from './cli-session.js';
import type { Reporter } from './reporter.js';
import { WorkBudget } from './work-budget.js';
import { finishWholePlan } from './whole-plan.js';
import { PID_FILE } from './worktree.js';
import { readTextIfExists } from '../machine/files.js';
import { MCP_SERVER_NAME } from './mcp/report-tools.js';

export interface CopilotAgentOptions {
  /** The Copilot CLI; "copilot" from PATH by default. */
  executable?: string;
  /**
   * --allow-tool patterns (e.g. "shell(npm test)", "write"): only these run without a person
   * (the harness server's tools always do). Without them, --allow-all-tools: headless Copilot
   * runs no tool that needs a permission otherwise.
   */
  allowedTools?: string[];
  /** Top-level turns (assistant.turn_start) one run of the CLI may take; the CLI has no flag for it, so the worker stops it. */
  maxTurns?: number;
  model?: string;
  /** What harness counts Copilot's usage at: the CLI reports tokens and premium requests, no cost. */
  price?: CopilotPrice;
  /** More arguments, passed as they are. */
  extraArgs?: string[];
  /** Checkpoints one plan may stop at, against an agent that never stops asking. */
  maxCheckpoints?: number;
  /** US dollars: a run of the CLI that brings the attempt's cost (at price) over it fails the plan (budget_usd). */
  budgetUsd?: number;
  /** The plan's and the spec's budgets with what the spec has spent; checked like budgetUsd, after each run of the CLI. */
  spendLimit?: SpendLimit;
}

/** What the worker remembers of its Copilot session in logDir, to continue it after a restart (or, seeded from a checkpoint, on another runner). */
export interface CopilotState {
  sessionId?: string;
  /** The checkpoint the session stopped at and nobody has answered yet. */
  checkpoint?: Checkpoint;
  default?: string;
}

const STATE = new SessionStateFile<CopilotState>('copilot.json');
const MCP_FILE = 'copilot-mcp.json';
const USAGE_FILE = 'copilot-usage.json';
const DEFAULT_MAX_CHECKPOINTS = 20;
/** What Copilot CLI 1.0.102 prints on stderr, and exits 1, when it finds no credential. */
export const COPILOT_NO_AUTH = 'No authentication information found.';
/** The variables Copilot CLI takes a token from, in its order; GITHUB_TOKEN is the worker's own, never the agent's. */
const TOKEN_VARS = ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN'] as const;

/**
 * GitHub Copilot CLI, headless: `copilot -p <brief> --output-format json` in the plan's worktree
 * (flags read in @github/copilot 1.0.102; see copilot-stream.ts for its events). Its events
 * become progress_update messages; the harness reporting server is added with
 * --additional-mcp-config, and a question asked through it (or a final HARNESS_CHECKPOINT line)
 * stops the run; the answer continues the same session (`--resume=<id>`). A new session is given
 * its id up front (`--session-id`), so that a run cut off before its first event can be named.
 */
export class CopilotAgent implements Agent {
  readonly name = 'copilot';

  constructor(private readonly options: CopilotAgentOptions = {}) {}

  run(context: WorkerContext): Promise<void> {
    return runCliSession(this.name, context, STATE, (reporter, open) => this.session(context, reporter, open));
  }

  private async session(context: WorkerContext, reporter: Reporter, open: OpenSession<CopilotState>): Promise<void> {
    const { git, history, store, bridge } = open;
    const mcpConfig = join(context.logDir, MCP_FILE);
    // Copilot's own form of an MCP server: a "local" one, all of its tools offered. It holds this run's bridge token: logDir, never the checkout.
    await writeFile(mcpConfig, `${JSON.stringify({ mcpServers: { [MCP_SERVER_NAME]: { type: 'local', ...bridge.serverCommand(), tools: ['*'] } } }, null, 2)}\n`, { mode: 0o600 });
    const budget = new WorkBudget(context.task.timeout_minutes);
    const save = (state: CopilotState) => STATE.write(context.logDir, state);
    const first = await firstPrompt(context, reporter, open, save);
    if (!first) return;
    // Copilot is given the id of a new session (--session-id), and continues one by it (--resume).
    let next: CopilotTurn = { prompt: first.prompt, sessionId: first.resume ?? randomUUID(), resume: first.resume !== undefined, mcpConfig };

    const maxCheckpoints = this.options.maxCheckpoints ?? DEFAULT_MAX_CHECKPOINTS;
    const runs: (Usage | undefined)[] = [];
    const facts = new StreamFacts();
    const failed = (error: string, retryable = false, timedOut = false, environment = false) =>
      reporter.failed(error, retryable, { timedOut, environment, usage: totalUsage(runs), agent: facts.facts() });
    const limit = this.options.spendLimit ?? (this.options.budgetUsd === undefined ? undefined : { plan: context.plan.id, planUsd: this.options.budgetUsd });
    if (limit && spendCap(limit) !== undefined && !this.priced()) {
      return failed(`plan ${context.plan.id} has a budget (budget_usd) but Copilot CLI reports no cost: set agents.copilot.price in .github/harness.yml (e.g. price: { input_per_million: 3, output_per_million: 15 }) so harness can count it`);
    }
    for (let asked = 0; ; asked++) {
      await save({ sessionId: next.sessionId });
      const turn = await this.turn(context, reporter, store, budget, next, facts);
      runs.push(turn.usage);
      const spent = totalUsage(runs)?.costUsd;
      const over = limit && spent !== undefined ? overBudget(limit, spent, 'copilot') : undefined;
      if (over) return failed(`${over}: stopped`);
      if (bridge.waiting && turn.started) return save({ sessionId: next.sessionId, checkpoint: bridge.waiting });
      if (!turn.ok) return failed(turn.error, turn.retryable, turn.timedOut, turn.environment);
      if (bridge.failure !== undefined) return failed(`copilot reported task_failed: ${bridge.failure}`);
      const reported = await reportInsights(reporter, turn.text);
      const line = findCheckpointLine(reported);
      if ('error' in line) return failed(`copilot asked for a person in a form the worker cannot read: ${line.error}`);
      // A plan that needs a person stops for one whatever the agent did: a checkpoint it foresees and the session
      // finished without asking is asked now, and its answer goes back to the session (Copilot's always has an id).
      const unasked = line.found ? undefined : unansweredPlannedCheckpoint(context, store);
      if (!line.found && unasked === undefined) {
        const text = reported.trim() || bridge.summary || '';
        return finishWholePlan(context, git, history, reporter, summaryOf(text, totalUsage(runs)), totalUsage(runs), facts.facts());
      }
      if (asked >= maxCheckpoints) return failed(`copilot stopped at more than ${maxCheckpoints} checkpoints; the plan needs splitting or clearer decisions`);
      let checkpoint: Checkpoint;
      const request = line.found ? line.request : undefined;
      if (request) {
        checkpoint = { id: request.id ?? `${next.sessionId.slice(0, 8)}-${asked + 1}`, kind: request.kind, prompt: request.prompt, source: 'copilot' };
        if (request.options) checkpoint.options = request.options;
      } else {
        checkpoint = unasked!;
        await reporter.progress(`copilot finished without asking checkpoint ${checkpoint.id}, which the plan foresees: harness asks it`);
      }
      await save({ sessionId: next.sessionId, checkpoint, ...(request?.default !== undefined ? { default: request.default } : {}) });
      const gate = await passCheckpoint(context, reporter, store, checkpoint, request?.default);
      if (!gate.ok) return failed(gate.error, gate.retryable);
      next = { prompt: answerPrompt(checkpoint, gate.answer), sessionId: next.sessionId, resume: true, mcpConfig };
    }
  }

  private priced(): boolean {
    const p = this.options.price;
    return p !== undefined && (p.inputPerMillion !== undefined || p.outputPerMillion !== undefined || p.perPremiumRequest !== undefined);
  }

  /** One run of the CLI: a new session, or a resumed one. */
  private async turn(
    context: WorkerContext,
    reporter: Reporter,
    store: AnswerStore,
    budget: WorkBudget,
    next: CopilotTurn,
    facts: StreamFacts,
  ): Promise<({ ok: true } | { ok: false; error: string; retryable: boolean; timedOut?: boolean; environment?: boolean }) & { text: string; usage: Usage; started: boolean }> {
    const root = context.task.worktree;
    const usagePath = join(context.logDir, USAGE_FILE);
    await rm(usagePath, { force: true });
    let result: CopilotResult | undefined;
    let error: CopilotError | undefined;
    let text = '';
    let turns = 0;
    let started = next.resume;
    let overTurns = false;
    const stop = new AbortController();
    const signal = AbortSignal.any([context.signal, stop.signal]);
    const run = await budget.spend(
      () =>
        startProcess({
          command: this.options.executable ?? 'copilot',
          args: this.args(next, usagePath),
          cwd: root,
          env: copilotEnv(agentEnv(context, store)),
          signal,
          timeoutMs: budget.remainingMs(),
          logFile: join(context.logDir, 'copilot.log'),
          pidFile: join(context.logDir, PID_FILE),
          onLine: async (line, stream) => {
            if (stream !== 'stdout') return;
            for (const event of parseCopilotLine(line)) {
              if (event.type === 'init') facts.add({ type: 'init', sessionId: event.sessionId ?? next.sessionId, ...(event.model ? { model: event.model } : {}) });
              if (event.type === 'tool_use' || event.type === 'tool_result') facts.add(event);
              started = true;
              if (event.type === 'text' && event.text.trim()) text = event.text;
              if (event.type === 'error') error = event;
              if (event.type === 'result') result = event;
              if (event.type === 'turn') {
                turns++;
                if (this.options.maxTurns !== undefined && turns > this.options.maxTurns && !overTurns) {
                  overTurns = true;
                  stop.abort(new Error('turn limit'));
                }
              }
              const message = describeCopilotEvent(event, root);
              if (message !== undefined) await reporter.progress(message);
            }
          },
        }).done,
    );
    const file = usageFileOf((await readTextIfExists(usagePath)) ?? '');
    // The turns the CLI was stopped in are counted as the ones it was allowed: the one over the limit never ran.
    const usage = copilotUsage(overTurns ? this.options.maxTurns! : turns, file, this.options.price);
    const base = { text, usage, started };
    const tail = run.tail.length > 0 ? `\n${run.tail.slice(-10).join('\n')}` : '';
    if (overTurns) return { ok: false, retryable: false, error: `copilot stopped at its turn limit (${this.options.maxTurns} turns; agents.copilot.max_turns)`, ...base };
    if (run.aborted) return { ok: false, retryable: true, error: `copilot was aborted: ${abortReason(context.signal)}`, ...base };
    if (run.timedOut) return { ok: false, retryable: false, timedOut: true, error: `copilot was stopped: plan ${context.plan.id} used up its timeout_minutes (${context.task.timeout_minutes})`, ...base };
    if (run.error && result === undefined) {
      const missing = (run.error as NodeJS.ErrnoException).code === 'ENOENT';
      const hint = missing ? ' (is GitHub Copilot CLI installed and on PATH? npm install -g @github/copilot)' : '';
      return { ok: false, retryable: false, error: `copilot could not run: ${run.error.message}${hint}`, ...(missing ? { environment: true } : {}), ...base };
    }
    // A stop at the rate limit or quota is a pause to wait out (the worker reads the reset from this reason), not the plan's failure.
    const limited = copilotLimitFailure(error, new Date());
    if (limited) return { ok: false, retryable: true, error: limited, ...base };
    if (error?.errorType === 'authentication' || (result === undefined && run.tail.some((l) => l.includes(COPILOT_NO_AUTH)))) {
      const words = error?.message ?? COPILOT_NO_AUTH;
      return { ok: false, retryable: false, environment: true, error: `copilot could not sign in: ${words} — give it a token with the Copilot Requests permission in COPILOT_GITHUB_TOKEN (a secret of its own, never the job's GITHUB_TOKEN)`, ...base };
    }
    if (result === undefined) {
      return { ok: false, retryable: true, error: `copilot exited with ${run.code === null ? `signal ${run.signal}` : `code ${run.code}`} and no result${tail}`, ...base };
    }
    if (error || (result.exitCode ?? run.code) !== 0) {
      const why = error ? `${error.errorType}: ${error.message}` : `exit code ${result.exitCode ?? run.code}`;
      return { ok: false, retryable: error?.errorType !== 'context_limit', error: `copilot failed (${why})${error ? '' : tail}`, ...base };
    }
    return { ok: true, ...base };
  }

  private args(next: CopilotTurn, usagePath: string): string[] {
    const o = this.options;
    const args = ['-p', next.prompt, '--output-format', 'json', next.resume ? `--resume=${next.sessionId}` : `--session-id=${next.sessionId}`];
    // Only harness's server besides the user's own mcp-config.json: not the built-in GitHub server, which would act with the Copilot token.
    args.push('--additional-mcp-config', `@${next.mcpConfig}`, '--disable-builtin-mcps');
    if (o.allowedTools !== undefined) for (const tool of [...o.allowedTools, MCP_SERVER_NAME]) args.push(`--allow-tool=${tool}`);
    else args.push('--allow-all-tools');
    // Nobody answers the CLI's own questions: a person is asked through harness_worker_await. The pinned version stays the one that runs.
    args.push('--no-ask-user', '--no-auto-update', '--no-color');
    // The token is for the CLI, not for the commands the agent runs or the servers it starts.
    args.push(`--secret-env-vars=${TOKEN_VARS.join(',')}`);
    args.push('--usage-output-file', usagePath);
    if (o.model) args.push('--model', o.model);
    args.push(...(o.extraArgs ?? []));
    return args;
  }
}

interface CopilotTurn {
  prompt: string;
  sessionId: string;
  /** Continue sessionId (--resume) rather than start it (--session-id). */
  resume: boolean;
  mcpConfig: string;
}

/**
 * The agent's environment less what must not reach it: the job's GITHUB_TOKEN (Copilot CLI would
 * sign in with it, and the agent's commands would hold it) and COPILOT_ALLOW_ALL, whose "true"
 * also trusts the checkout's own MCP servers and hooks.
 */
export function copilotEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const out = { ...env };
  delete out.GITHUB_TOKEN;
  delete out.COPILOT_ALLOW_ALL;
  return out;
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
  return stats ? `${clipped}${clipped ? '\n\n' : ''}(copilot: ${stats})` : clipped;
}

/** The session state of a plan's logDir (empty when there is none). */
export function readCopilotState(logDir: string): Promise<CopilotState> {
  return STATE.read(logDir);
}

/** Seed a logDir with a session to continue: a runner restoring a checkpoint taken on another runner. */
export function seedCopilotState(logDir: string, state: CopilotState): Promise<void> {
  return STATE.seed(logDir, state);
}
