import { codexTelemetryArgs } from './telemetry.js';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { cliTimeZone, codexLimitOf } from '../engine/core/agents/codex-limit.js';
import {
  codexToolCall,
  codexTurns,
  describeCodexEvent,
  isAction,
  isMessage,
  parseCodexLine,
  rolloutUsage,
  runUsage,
  usageSince,
  type CodexEvent,
  type CodexUsage,
  type TokenPrice,
} from '../engine/core/agents/codex-stream.js';
import type { StreamFacts } from '../engine/core/agents/stream-facts.js';
import type { Agent, WorkerContext } from '../engine/core/agents/agent.js';
import type { Usage } from '../engine/core/protocol/messages.js';
import { readTextIfExists } from '../machine/files.js';
import { runCli, type CliAdapter, type CliAgentOptions, type CliRun, type CliTurn, type RunFailure, type RunScope } from './cli-driver.js';
import type { OpenSession, SessionState } from './cli-session.js';
import { CODEX_STATE, codexHome, codexRolloutFiles } from './codex-session.js';
import type { ReportBridge } from './mcp/report-bridge.js';
import { MCP_SERVER_NAME } from './mcp/report-tools.js';
import type { ProcessResult } from './process.js';

/** Codex's sandbox modes (`-s`, `sandbox_mode`), as 0.171.0 lists them. */
export const CODEX_SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
export type CodexSandbox = (typeof CODEX_SANDBOX_MODES)[number];

export interface CodexAgentOptions extends CliAgentOptions {
  /**
   * sandbox_mode for the commands the agent runs: "workspace-write" by default (the worktree
   * writable, no network), "danger-full-access" on a runner, which is a throwaway machine.
   */
  sandbox?: CodexSandbox;
  /** The most turns (messages and actions, as harness counts them) one run of the CLI may take; the run is stopped there. */
  maxTurns?: number;
  /** What a million tokens cost: Codex reports tokens, and the cost is worked out from them. Without it no cost is known. */
  price?: TokenPrice;
  /** More arguments for `codex exec` (and `codex exec resume`), passed as they are, e.g. ["-c", "model_reasoning_effort=\"high\""]. */
  extraArgs?: string[];
}

/** What 0.171.0 says when the API refuses the credential, or none is there: the machine's setup, not the plan. */
const AUTH_FAILURE = /unexpected status 40[13]\b|Missing environment variable: `[A-Z_]+`|Not logged in|no Codex credentials were found/;

/**
 * The OpenAI Codex CLI, headless: `codex exec --json … -` in the plan's worktree, the brief on
 * stdin. Its JSONL becomes progress_update messages; the reporting channel is harness's MCP
 * server, given as `-c mcp_servers.harness={…}` with its tools approved (Codex refuses an MCP
 * call that needs approval when approval_policy is "never"), and --ignore-user-config keeps the
 * user's config.toml, with its own servers, out. A final HARNESS_CHECKPOINT line, or
 * harness_worker_await where nobody can wait, stops at a checkpoint; the answer continues the
 * same thread (`codex exec resume <thread id> -`). The session loop is the driver's
 * (cli-driver.ts); this adapter holds what is Codex's: the server in `-c` flags, the brief on
 * stdin, the turn limit harness holds for it, tokens priced, its limit and sign-in words.
 */
export class CodexAgent implements Agent, CliAdapter<CodexEvent, ReportBridge> {
  readonly name = 'codex';
  readonly state = CODEX_STATE;
  readonly install = { product: 'the Codex CLI', npm: '@openai/codex' };
  readonly stdin = true;
  readonly summary = { of: 'attempt' as const };
  readonly asksForeseen = false;
  readonly sessionNoun = 'thread id';

  constructor(readonly options: CodexAgentOptions = {}) {}

  /**
   * Codex's workspace-write (and read-only) sandbox mounts the worktree's git directory — the
   * `.git/worktrees/<plan>` its `.git` file points to included — read-only, by design (a hook
   * written there would run outside it): `git commit` fails with "index.lock: Read-only file
   * system". Only danger-full-access, on a runner, lets it commit; elsewhere harness commits.
   */
  get gitReadOnly(): boolean {
    return (this.options.sandbox ?? 'workspace-write') !== 'danger-full-access';
  }

  run(context: WorkerContext): Promise<void> {
    return runCli(this, context);
  }

  prepare(_context: WorkerContext, open: OpenSession<SessionState>): Promise<ReportBridge> {
    return Promise.resolve(open.bridge);
  }

  async env(base: Record<string, string | undefined>): Promise<Record<string, string | undefined>> {
    // 0.171.0 refuses a CODEX_HOME that does not exist ("Error finding codex home: CODEX_HOME points to …"); ~/.codex it makes itself.
    if (base.CODEX_HOME) await mkdir(base.CODEX_HOME, { recursive: true });
    return base;
  }

  args(next: CliTurn, bridge: ReportBridge, env: Record<string, string | undefined> = {}): string[] {
    const o = this.options;
    const args = ['exec', ...(next.resume ? ['resume'] : []), '--json'];
    // Only harness's reporting server: the user's config.toml (and the servers in it) is not read; auth still is.
    args.push('--ignore-user-config');
    // Nobody is there to approve: a command the sandbox refuses fails back to the model; the reporting tools need no approval.
    args.push('-c', 'approval_policy="never"', '-c', `sandbox_mode="${o.sandbox ?? 'workspace-write'}"`);
    // required: 0.171.0 does not wait for a server that is slow to start (the reporting server takes a second or two) and
    // leaves its tools out of the run; a required one it waits for, and it ends the run if the server cannot start.
    const server = bridge.serverCommand();
    args.push(
      '-c',
      `mcp_servers.${MCP_SERVER_NAME}=${toml({ command: server.command, args: server.args, env: server.env, required: true, default_tools_approval_mode: 'approve' })}`,
    );
    // Its own traces to harness's collector, under the plan's span (agents/telemetry.ts).
    args.push(...codexTelemetryArgs(env));
    if (o.model) args.push('-m', o.model);
    args.push(...(o.extraArgs ?? []));
    if (next.resume) args.push(next.resume);
    // The brief on stdin: a long one does not fit an argument, and stays out of the process list.
    args.push('-');
    return args;
  }

  readonly parse = parseCodexLine;
  readonly describe = describeCodexEvent;
  readonly toolCall = codexToolCall;

  async startRun({ context, env, turn, facts }: RunScope<ReportBridge>): Promise<CliRun<CodexEvent>> {
    // A resumed thread's usage counts its earlier runs too: this run's is what it adds.
    const before = turn.resume ? await threadUsage(env, turn.resume) : undefined;
    return new CodexRun(facts, before, this.options.price, () => context.now(), cliTimeZone(env));
  }

  // Codex has no turn limit of its own: the run is stopped at the first turn past max_turns.
  turnLimit(turns: number): string {
    return `codex stopped at its turn limit (max_turns ${this.options.maxTurns}; the run was stopped at turn ${turns})`;
  }

  unpriced(): { message: string } | undefined {
    return this.options.price
      ? undefined
      : { message: 'a budget is set, but agents.codex.price is not: Codex reports tokens and no cost, so the budget cannot be held' };
  }

  // Thread ids are UUIDv7: their first characters are a time, alike from one thread to the next.
  shortId(threadId: string): string {
    return threadId.slice(-8);
  }
}

/** One run of `codex exec`: its thread, its last message, the thread's usage at the end, how a turn failed. */
class CodexRun implements CliRun<CodexEvent> {
  sessionId: string | undefined;
  text = '';
  private actions = 0;
  private messages = 0;
  private total: CodexUsage | undefined;
  private failed: string | undefined;
  private lastError: string | undefined;

  constructor(
    private readonly facts: StreamFacts,
    private readonly before: CodexUsage | undefined,
    private readonly price: TokenPrice | undefined,
    private readonly now: () => Date,
    private readonly timeZone: string,
  ) {}

  add(event: CodexEvent): void {
    countFacts(this.facts, event);
    if (event.type === 'thread') this.sessionId = event.threadId;
    if (event.type === 'item' && event.phase === 'completed' && event.item.kind === 'agent_message') this.text = event.item.text;
    if (event.type === 'turn_completed') this.total = event.usage;
    if (event.type === 'turn_failed') this.failed = event.message;
    if (event.type === 'error') this.lastError = event.message;
    if (isAction(event)) this.actions++;
    if (isMessage(event)) this.messages++;
  }

  get turns(): number {
    return codexTurns(this.actions, this.messages);
  }

  get finished(): boolean {
    return this.total !== undefined || this.failed !== undefined;
  }

  usage(): Usage | undefined {
    // Nothing seen is nothing known: a run stopped before its first step reports no usage.
    if (this.total === undefined && this.turns === 0) return undefined;
    return runUsage(this.turns, this.total && usageSince(this.total, this.before), this.price);
  }

  stopped(run: ProcessResult): RunFailure | undefined {
    const said = this.failed ?? (this.total === undefined ? [this.lastError ?? '', ...run.tail].join('\n') : undefined);
    if (said === undefined) return undefined;
    const limit = codexLimitOf(said, this.now(), this.timeZone);
    if (limit)
      return {
        retryable: true,
        error: `codex stopped at the model's usage limit: ${limit.evidence}${limit.resetsAt ? ` (resets ${limit.resetsAt.toISOString()})` : ''}`,
      };
    const auth = AUTH_FAILURE.exec(said);
    if (auth)
      return {
        retryable: false,
        environment: true,
        error: `codex could not reach the model: ${clip(firstLineWith(said, auth[0]), 300)} — set CODEX_API_KEY (an OpenAI API key) for the agent, or run codex login`,
      };
    return undefined;
  }

  failure(): RunFailure | undefined {
    return this.failed === undefined ? undefined : { retryable: true, error: `codex failed: ${clip(this.failed, 500)}` };
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
    item.kind === 'command_execution'
      ? { name: 'Bash', input: { command: item.command }, failed: item.status !== 'completed' }
      : item.kind === 'file_change'
        ? { name: 'Edit', input: { changes: item.changes }, failed: item.status !== 'completed' }
        : item.kind === 'mcp_tool_call'
          ? { name: `${item.server}.${item.tool}`, input: item.arguments, failed: item.status !== 'completed' }
          : item.kind === 'web_search'
            ? { name: 'WebSearch', input: { query: item.query }, failed: false }
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

function firstLineWith(text: string, needle: string): string {
  return (
    text
      .split('\n')
      .find((l) => l.includes(needle))
      ?.trim() ?? needle
  );
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The session state of a plan's logDir (empty when there is none). */
export function readCodexState(logDir: string): Promise<SessionState> {
  return CODEX_STATE.read(logDir);
}
