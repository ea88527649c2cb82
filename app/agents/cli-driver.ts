import type { ToolCall } from '../engine/core/agents/stream-json.js';
import { join } from 'node:path';
import type { WorkerContext } from '../engine/core/agents/agent.js';
import { findCheckpointLine, type CheckpointRequest } from '../engine/core/agents/checkpoint-line.js';
import { totalUsage } from '../engine/core/agents/claude-stream.js';
import { findInsightLines } from '../engine/core/agents/insight-line.js';
import { StreamFacts } from '../engine/core/agents/stream-facts.js';
import type { Checkpoint, Usage } from '../engine/core/protocol/messages.js';
import { overBudget, spendCap, type SpendLimit } from '../engine/core/run/spend-limit.js';
import { abortReason } from './abort.js';
import { agentEnv } from './agent-env.js';
import { passCheckpoint, passPlannedCheckpoints, unansweredPlannedCheckpoint } from './checkpoint-gate.js';
import { answerPrompt, firstPrompt, runCliSession, type OpenSession, type SessionState } from './cli-session.js';
import { runProcess, type ProcessResult } from './process.js';
import { inSandbox } from './sandboxed.js';
import type { Reporter } from './reporter.js';
import type { SessionStateFile } from './session-state.js';
import { WorkBudget } from './work-budget.js';
import { finishWholePlan } from './whole-plan.js';
import { PID_FILE } from './worktree.js';

/**
 * The driver: the one session loop of the agents that run a coding CLI headless (claude, codex,
 * gemini, copilot). Each CLI is an adapter (CliAdapter) that holds only what differs.
 *
 * Written once, here:
 * - the attempt's frame (cli-session.ts): ready, the plan's history, the answers given so far,
 *   the reporting MCP bridge, the first prompt (the brief, or the answer a waiting session gets);
 * - one run of the CLI: its process (own group, pid file, `<name>.log`) with the plan's
 *   timeout_minutes spent only while it runs; stdout read line by line into the adapter's
 *   events, each counted (tool calls, turns, usage) and said as progress;
 * - the turn limit of a CLI that has none of its own: the run stopped at the first turn past it;
 * - how a run ended, in this order: that turn limit, an abort, the time-out, a CLI that could
 *   not start (not installed: the machine's fault, not the plan's), what the adapter reads as a
 *   stop short of a result (the usage limit, a pause to wait out; a sign-in, the machine's), no
 *   result at all, and what the result itself says went wrong;
 * - after each run: its usage added to the attempt's, the budget (budget_usd, the spec's)
 *   checked, the session saved in logDir;
 * - the stops: a question through harness_worker_await where nobody can wait (the run ends, the
 *   session saved at the question), a final HARNESS_CHECKPOINT line, a checkpoint the plan
 *   foresees that the agent did not ask (for the adapters that say so); the answer continues the
 *   same session, up to maxCheckpoints;
 * - the insight lines of the final text, the summary, the plan finished as its one task.
 *
 * Different for each CLI, in its adapter:
 * - the attempt's set-up: how the harness MCP server reaches the CLI (a config file, `-c` flags,
 *   settings in a home of its own) and the environment;
 * - the arguments, resume included (`--resume <id>`, `exec resume <id>`, `--session-file`,
 *   `--resume=<id>` after `--session-id=<id>` named a new session up front);
 * - a stream line as events (the parsers in engine/core/agents/<cli>-stream.ts): which are tool
 *   calls, the session id, the final text, the turns;
 * - usage: a cost the CLI reports (claude), or tokens priced at agents.<cli>.price, found in the
 *   stream, a rollout file or a usage file;
 * - the usage limit's wording (the pinned versions' own strings: <cli>-limit.ts, and
 *   claude-stream.ts with rate-limit.ts), sign-in failures, a result's kinds of failure;
 * - where the CLI keeps a session, for a checkpoint resumed on another runner (<cli>-session.ts);
 * - a few choices: what a budget meets where no price makes a cost (said, or refused), whether
 *   harness asks a foreseen checkpoint the agent did not ask, whose usage the summary gives.
 *
 * A new CLI is an adapter (a class implementing Agent and CliAdapter whose run() is runCli), its
 * stream parser and limit words in engine/core/agents, its session module, and their tests.
 */

/** The settings every CLI agent has (agents.<cli> in .github/harness.yml, the frontmatter's budget). */
export interface CliAgentOptions {
  /** The CLI; its own name from PATH by default. */
  executable?: string;
  /** The most turns one run of the CLI may take (each CLI counts a turn its own way). */
  maxTurns?: number;
  model?: string;
  /** More arguments, passed as they are. */
  extraArgs?: string[];
  /** Checkpoints one plan may stop at, against an agent that never stops asking. */
  maxCheckpoints?: number;
  /** US dollars: a run of the CLI that brings the attempt's cost over it fails the plan (budget_usd). */
  budgetUsd?: number;
  /** The plan's and the spec's budgets with what the spec has spent; checked like budgetUsd, after each run of the CLI. */
  spendLimit?: SpendLimit;
}

/** One run of the CLI, as the driver asks for it. */
export interface CliTurn {
  prompt: string;
  /** The session this run continues; none: a new one. */
  resume?: string;
  /** The id a new session is given up front (CliAdapter.nameSession). */
  named?: string;
  /** A session put back from another runner, continued from its file rather than by id. */
  sessionFile?: string;
  /** What the attempt may still spend under its cap, for a CLI that stops itself there. */
  leftUsd?: number;
}

/** Why a run failed: its message, whether another attempt may do better, whether the machine's setup is at fault. */
export interface RunFailure {
  error: string;
  retryable: boolean;
  environment?: boolean;
}

/** What a run's reader is given: the attempt's context and set-up, the run's environment, the turn, the facts it counts into. */
export interface RunScope<A> {
  context: WorkerContext;
  attempt: A;
  env: Record<string, string | undefined>;
  turn: CliTurn;
  facts: StreamFacts;
}

/** One run of the CLI as its adapter reads it: the events of its stream, then how it ended. */
export interface CliRun<E> {
  /** One event of the stream, in order. */
  add(event: E): void;
  /** The session the stream named, if it named one. */
  readonly sessionId: string | undefined;
  /** The turns counted so far, for an adapter whose turn limit the driver holds (CliAdapter.turnLimit). */
  readonly turns?: number;
  /** The stream reached its end (a result, whatever it says). */
  readonly finished: boolean;
  /** The agent's final text. */
  readonly text: string;
  /** What the run used; `stopped`: the driver stopped it at the turn limit. Undefined when nothing is known. */
  usage(stopped: boolean): Usage | undefined | Promise<Usage | undefined>;
  /** What stopped the run short of a result of its own: the model's usage limit, a sign-in, a refusal to start. */
  stopped(process: ProcessResult): RunFailure | undefined;
  /** What the result says went wrong, once there is one. */
  failure(process: ProcessResult): RunFailure | undefined;
}

/** What differs from one CLI to another; see the top of this module. */
export interface CliAdapter<E, A, S extends SessionState = SessionState> {
  /** The agent's name: its messages, `<name>.log`, a checkpoint's source. */
  readonly name: string;
  readonly options: CliAgentOptions;
  /** What the agent records in logDir (`<name>.json`). */
  readonly state: SessionStateFile<S>;
  /** Said when the CLI is not found: "is <install> installed and on PATH?", with the npm package to install. */
  readonly install: { product: string; npm?: string };
  /** The brief goes on stdin, not in an argument. */
  readonly stdin?: boolean;
  /** The CLI's sandbox keeps the repository's git metadata read-only, so the brief asks for no commits (harness commits what is left). */
  readonly gitReadOnly?: boolean;
  /** What a session saved in logDir keeps besides its id when it is continued (firstPrompt). */
  keep?(saved: S): Partial<S>;
  /** What the attempt keeps in the state the driver saves for session `sessionId` (copilot: the usage already counted of it). */
  carry?(attempt: A, sessionId: string): Partial<S>;
  /** Folders outside the worktree and its home the CLI writes to (copilot's usage file): writable in the sandbox. */
  writes?(attempt: A): string[];
  /** The attempt's set-up before its first run (the MCP server's config, a home of the CLI's own). */
  prepare(context: WorkerContext, open: OpenSession<S>): Promise<A>;
  /** What the set-up left that must not outlive the attempt (a settings file holding the reporting token), removed however it ended. */
  release?(attempt: A): Promise<void>;
  /** The attempt's first run, where it continues a session otherwise than by id. */
  firstTurn?(turn: CliTurn, attempt: A, open: OpenSession<S>): Promise<CliTurn>;
  /** A new session's id, for a CLI that is given one up front (a run cut off before it says its id can still be named). */
  nameSession?(): string;
  /** The run's environment from the one every agent gets. */
  env(base: Record<string, string | undefined>, attempt: A): Record<string, string | undefined> | Promise<Record<string, string | undefined>>;
  /** The run's arguments; `env` is the run's environment (adapter.env's). */
  args(turn: CliTurn, attempt: A, env: Record<string, string | undefined>): string[];
  parse(line: string): E[];
  /** One line for a person watching; undefined for an event not worth one. */
  describe(event: E, root: string): string | undefined;
  /** The tool call an event starts or ends, for traces (none for harness's own reporting tools). */
  toolCall?(event: E): ToolCall | undefined;
  startRun(scope: RunScope<A>): Promise<CliRun<E>>;
  /** For a CLI without a turn limit of its own: the driver stops a run past maxTurns, and says this. */
  turnLimit?(turns: number): string;
  /** Where the CLI reports no cost and no price makes one, what a budget meets: said, or refused. */
  unpriced?(context: WorkerContext): { message: string; refuse?: boolean } | undefined;
  /** Whose usage the summary gives (this run's or the attempt's), and whether with tokens. */
  readonly summary: { of: 'run' | 'attempt'; tokens?: boolean };
  /** A checkpoint the plan foresees and the agent did not ask is asked by harness. */
  readonly asksForeseen: boolean;
  /** What a question without an id of its own is named after (the first 8 of the session id by default). */
  shortId?(sessionId: string): string;
  /** What the CLI calls its session id ("session id" by default). */
  readonly sessionNoun?: string;
}

const DEFAULT_MAX_CHECKPOINTS = 20;

/** An agent's run through the driver: its failures reported, its attempt framed (cli-session.ts), its session loop. */
export function runCli<E, A, S extends SessionState>(adapter: CliAdapter<E, A, S>, context: WorkerContext): Promise<void> {
  return runCliSession(adapter.name, context, adapter.state, (reporter, open) => session(adapter, context, reporter, open));
}

/** What one run of the CLI came to. */
type Outcome = ({ ok: true } | ({ ok: false; timedOut?: boolean } & RunFailure)) & { sessionId?: string; text: string; usage?: Usage; started: boolean };

async function session<E, A, S extends SessionState>(
  adapter: CliAdapter<E, A, S>,
  context: WorkerContext,
  reporter: Reporter,
  open: OpenSession<S>,
): Promise<void> {
  const attempt = await adapter.prepare(context, open);
  try {
    await attemptRuns(adapter, context, reporter, open, attempt);
  } finally {
    await adapter.release?.(attempt);
  }
}

/** The attempt's runs of the CLI, from its first prompt to the plan finished, failed or stopped at a question. */
async function attemptRuns<E, A, S extends SessionState>(
  adapter: CliAdapter<E, A, S>,
  context: WorkerContext,
  reporter: Reporter,
  open: OpenSession<S>,
  attempt: A,
): Promise<void> {
  const { name, options } = adapter;
  const { git, history, store, bridge } = open;
  const budget = new WorkBudget(context.task.timeout_minutes);
  const save = (state: S) => adapter.state.write(context.logDir, state);
  const saveSession = (sessionId: string, more: Partial<SessionState> = {}) => save({ ...adapter.carry?.(attempt, sessionId), sessionId, ...more } as S);
  const first = await firstPrompt(context, reporter, open, save, adapter.keep?.bind(adapter), adapter.gitReadOnly === true || context.sandbox !== undefined);
  if (!first) return;
  let next: CliTurn = first.resume === undefined && adapter.nameSession ? { ...first, named: adapter.nameSession() } : first;
  if (adapter.firstTurn && next.resume !== undefined) next = await adapter.firstTurn(next, attempt, open);

  const maxCheckpoints = options.maxCheckpoints ?? DEFAULT_MAX_CHECKPOINTS;
  // What each run of the CLI in this attempt used; the messages carry the total.
  const runs: (Usage | undefined)[] = [];
  // Counted over every run of the CLI in this attempt, like the usage.
  const facts = new StreamFacts();
  const failed = (error: string, retryable = false, timedOut = false, environment = false) =>
    reporter.failed(error, retryable, { timedOut, environment, usage: totalUsage(runs), agent: facts.facts() });
  const { limit, cap } = spendLimitOf(adapter, context);
  const unpriced = cap === undefined ? undefined : adapter.unpriced?.(context);
  if (unpriced?.refuse) return failed(unpriced.message);
  if (unpriced) await reporter.progress(unpriced.message);
  for (let asked = 0; ; asked++) {
    // Saved before the run where it is known: a run cut off before its first event still names it.
    const known = next.resume ?? next.named;
    if (known !== undefined) await saveSession(known);
    // What is left of the cap after this attempt's earlier runs.
    if (cap !== undefined) next = { ...next, leftUsd: cap - (totalUsage(runs)?.costUsd ?? 0) };
    const turn = await runOnce(adapter, context, reporter, store, budget, attempt, next, facts);
    runs.push(turn.usage);
    if (turn.sessionId) await saveSession(turn.sessionId);
    // Most CLIs report what a run used only as it ends: the budget is checked then.
    const spent = totalUsage(runs)?.costUsd;
    const over = limit && spent !== undefined ? overBudget(limit, spent, name) : undefined;
    if (over) return failed(`${over}: stopped`);
    // Asked through harness_worker_await where nobody can wait: the session stops at the question and is resumed with the answer.
    if (bridge.waiting && turn.sessionId && turn.started) return saveSession(turn.sessionId, { checkpoint: bridge.waiting });
    if (!turn.ok) return failed(turn.error, turn.retryable, turn.timedOut, turn.environment);
    if (bridge.failure !== undefined) return failed(`${name} reported task_failed: ${bridge.failure}`);
    const reported = await reportInsights(reporter, turn.text);
    const line = findCheckpointLine(reported);
    if ('error' in line) return failed(`${name} asked for a person in a form the worker cannot read: ${line.error}`);
    // A plan that needs a person stops for one whatever the agent did: a checkpoint it foresees and
    // the session finished without asking is asked now, and its answer goes back to the session.
    const unasked = line.found || !adapter.asksForeseen ? undefined : unansweredPlannedCheckpoint(context, store);
    if (!line.found && (unasked === undefined || !turn.sessionId)) {
      // Without a session to give the answers back to, the foreseen checkpoints are passed before the plan is finished.
      const skipped = unasked && (await passPlannedCheckpoints(context, reporter, store, 'all'));
      if (skipped) return failed(skipped.error, skipped.retryable);
      const text = reported.trim() || bridge.summary || '';
      const usage = adapter.summary.of === 'run' ? turn.usage : totalUsage(runs);
      return finishWholePlan(context, git, history, reporter, summaryOf(name, text, usage, adapter.summary.tokens), totalUsage(runs), facts.facts());
    }
    if (!turn.sessionId) return failed(`${name} asked for a person but reported no ${adapter.sessionNoun ?? 'session id'} to continue`);
    if (asked >= maxCheckpoints) return failed(`${name} stopped at more than ${maxCheckpoints} checkpoints; the plan needs splitting or clearer decisions`);
    const request = line.found ? line.request : undefined;
    const checkpoint = await stoppedAt(adapter, reporter, turn.sessionId, asked, request, unasked);
    await saveSession(turn.sessionId, { checkpoint, ...(request?.default !== undefined ? { default: request.default } : {}) });
    const gate = await passCheckpoint(context, reporter, store, checkpoint, request?.default);
    if (!gate.ok) return failed(gate.error, gate.retryable);
    next = { prompt: answerPrompt(checkpoint, gate.answer), resume: turn.sessionId };
  }
}

/** The attempt's spend limit (the budget's, or the plan's own budget) and the cap it puts on this plan. */
function spendLimitOf<E, A, S extends SessionState>(adapter: CliAdapter<E, A, S>, context: WorkerContext): { limit?: SpendLimit; cap?: number } {
  const { options } = adapter;
  const limit = options.spendLimit ?? (options.budgetUsd === undefined ? undefined : { plan: context.plan.id, planUsd: options.budgetUsd });
  return { limit, cap: limit ? spendCap(limit) : undefined };
}

/** The question a run stopped at: the one the agent asked (its `asked`-th), or else the foreseen one it did not ask, which harness asks. */
async function stoppedAt<E, A, S extends SessionState>(
  adapter: CliAdapter<E, A, S>,
  reporter: Reporter,
  sessionId: string,
  asked: number,
  request: CheckpointRequest | undefined,
  unasked: Checkpoint | undefined,
): Promise<Checkpoint> {
  const { name } = adapter;
  if (request) {
    // Without an id of its own the question belongs to this session only: a new session's question is a new one.
    const short = adapter.shortId ? adapter.shortId(sessionId) : sessionId.slice(0, 8);
    const checkpoint: Checkpoint = { id: request.id ?? `${short}-${asked + 1}`, kind: request.kind, prompt: request.prompt, source: name };
    if (request.options) checkpoint.options = request.options;
    return checkpoint;
  }
  const checkpoint = unasked!;
  await reporter.progress(`${name} finished without asking checkpoint ${checkpoint.id}, which the plan foresees: harness asks it`);
  return checkpoint;
}

/** One run of the CLI: a new session, or a resumed one, and how it ended. */
async function runOnce<E, A, S extends SessionState>(
  adapter: CliAdapter<E, A, S>,
  context: WorkerContext,
  reporter: Reporter,
  store: OpenSession<S>['store'],
  budget: WorkBudget,
  attempt: A,
  turn: CliTurn,
  facts: StreamFacts,
): Promise<Outcome> {
  const { name, options } = adapter;
  const env = await adapter.env(agentEnv(context, store), attempt);
  const run = await adapter.startRun({ context, attempt, env, turn, facts });
  const maxTurns = adapter.turnLimit ? options.maxTurns : undefined;
  // The driver's own stop, at the turn limit of a CLI that holds none.
  const stop = new AbortController();
  let started = turn.resume !== undefined;
  const root = context.task.worktree;
  const start = await inSandbox(
    context,
    name,
    { command: options.executable ?? name, args: adapter.args(turn, attempt, env), cwd: root, env },
    adapter.writes?.(attempt),
  );
  const proc = await budget.spend(() =>
    runProcess({
      ...start,
      ...(adapter.stdin ? { input: turn.prompt } : {}),
      signal: AbortSignal.any([context.signal, stop.signal]),
      timeoutMs: budget.remainingMs(),
      logFile: join(context.logDir, `${name}.log`),
      pidFile: join(context.logDir, PID_FILE),
      onLine: async (text, stream) => {
        if (stream !== 'stdout') return;
        for (const event of adapter.parse(text)) {
          started = true;
          run.add(event);
          if (maxTurns !== undefined && (run.turns ?? 0) > maxTurns && !stop.signal.aborted) stop.abort();
          const message = adapter.describe(event, root);
          if (message !== undefined) await reporter.progress(message);
          const call = adapter.toolCall?.(event);
          if (call) await reporter.tool(call);
        }
      },
    }),
  );
  const stopped = stop.signal.aborted;
  const usage = await run.usage(stopped);
  const sessionId = run.sessionId ?? turn.resume ?? turn.named;
  const base = { ...(sessionId !== undefined ? { sessionId } : {}), text: run.text, ...(usage ? { usage } : {}), started };
  const failure = endOf(adapter, context, run, proc, stopped);
  return failure ? { ok: false, ...failure, ...base } : { ok: true, ...base };
}

/** How a run ended, when it failed; the order is the one at the top of this module. */
function endOf<E, A, S extends SessionState>(
  adapter: CliAdapter<E, A, S>,
  context: WorkerContext,
  run: CliRun<E>,
  proc: ProcessResult,
  stopped: boolean,
): (RunFailure & { timedOut?: boolean }) | undefined {
  const { name } = adapter;
  // The same brief would reach the same limit again: not retried.
  if (stopped && !context.signal.aborted) return { retryable: false, error: adapter.turnLimit!(run.turns ?? 0) };
  if (proc.aborted) return { retryable: true, error: `${name} was aborted: ${abortReason(context.signal)}` };
  if (proc.timedOut)
    return {
      retryable: false,
      timedOut: true,
      error: `${name} was stopped: plan ${context.plan.id} used up its timeout_minutes (${context.task.timeout_minutes})`,
    };
  if (proc.error && !run.finished) {
    const missing = (proc.error as NodeJS.ErrnoException).code === 'ENOENT';
    const { product, npm } = adapter.install;
    const hint = missing ? ` (is ${product} installed and on PATH?${npm ? ` npm install -g ${npm}` : ''})` : '';
    return { retryable: false, error: `${name} could not run: ${proc.error.message}${hint}`, ...(missing ? { environment: true } : {}) };
  }
  // A stop at the usage limit is a pause to wait out (the worker reads the reset from its reason), not the plan's failure.
  const short = run.stopped(proc);
  if (short) return short;
  if (!run.finished)
    return { retryable: true, error: `${name} exited with ${proc.code === null ? `signal ${proc.signal}` : `code ${proc.code}`} and no result${tailOf(proc)}` };
  return run.failure(proc);
}

/** The last lines of a process's output, for a message (empty when it printed nothing). */
export function tailOf(proc: ProcessResult): string {
  return proc.tail.length > 0 ? `\n${proc.tail.slice(-10).join('\n')}` : '';
}

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

/** The agent's words, clipped, and what it used: `(claude: 3 turns, $0.12)`. */
function summaryOf(name: string, text: string, usage: Usage | undefined, tokens = false): string {
  const words = text.trim();
  const clipped = words.length > 2000 ? `${words.slice(0, 1999)}…` : words;
  const stats = [
    usage?.turns !== undefined ? `${usage.turns} turns` : '',
    tokens && usage?.inputTokens !== undefined && usage.outputTokens !== undefined ? `${usage.inputTokens + usage.outputTokens} tokens` : '',
    usage?.costUsd !== undefined ? `$${usage.costUsd.toFixed(2)}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return stats ? `${clipped}${clipped ? '\n\n' : ''}(${name}: ${stats})` : clipped;
}
