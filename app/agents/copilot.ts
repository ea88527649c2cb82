import { toolCallOf, type ToolCall } from '../engine/core/agents/stream-json.js';
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  copilotUsage,
  describeCopilotEvent,
  parseCopilotLine,
  usageFileOf,
  usageSince,
  type CopilotError,
  type CopilotEvent,
  type CopilotPrice,
  type CopilotResult,
} from '../engine/core/agents/copilot-stream.js';
import { copilotLimitFailure } from '../engine/core/agents/copilot-limit.js';
import type { StreamFacts } from '../engine/core/agents/stream-facts.js';
import type { Usage } from '../engine/core/protocol/messages.js';
import type { Agent, WorkerContext } from '../engine/core/agents/agent.js';
import { runCli, tailOf, type CliAdapter, type CliAgentOptions, type CliRun, type CliTurn, type RunFailure, type RunScope } from './cli-driver.js';
import type { OpenSession, SessionState } from './cli-session.js';
import type { CopilotCounted, CopilotState } from './copilot-session.js';
import type { ProcessResult } from './process.js';
import { COPILOT_STATE } from './copilot-session.js';
import { readTextIfExists } from '../machine/files.js';
import { MCP_SERVER_NAME } from './mcp/report-tools.js';

export interface CopilotAgentOptions extends CliAgentOptions {
  /**
   * --allow-tool patterns (e.g. "shell(npm test)", "write"): only these run without a person
   * (the harness server's tools always do). Without them, --allow-all-tools: headless Copilot
   * runs no tool that needs a permission otherwise.
   */
  allowedTools?: string[];
  /** Top-level turns (assistant.turn_start) one run of the CLI may take; the CLI has no flag for it, so the worker stops it. */
  maxTurns?: number;
  /** What harness counts Copilot's usage at: the CLI reports tokens and premium requests, no cost. */
  price?: CopilotPrice;
  /** US dollars: a run of the CLI that brings the attempt's cost (at price) over it fails the plan (budget_usd). */
  budgetUsd?: number;
}

const MCP_FILE = 'copilot-mcp.json';
/** Where --usage-output-file writes, in a folder of its own under logDir: the one place outside its home the CLI writes (the sandbox lets it). */
const USAGE_FILE = join('copilot', 'copilot-usage.json');
/** What Copilot CLI 1.0.102 prints on stderr, and exits 1, when it finds no credential. */
export const COPILOT_NO_AUTH = 'No authentication information found.';
/** What Copilot CLI 1.0.102 says, and exits 1, when the token it found is a classic personal access token (even with a provider of the user's own). */
export const COPILOT_CLASSIC_REFUSED = 'Classic Personal Access Tokens (ghp_) are not supported by Copilot';
/** The variables Copilot CLI takes a token from, in its order; GITHUB_TOKEN is the worker's own, never the agent's. */
const TOKEN_VARS = ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN'] as const;
/** A classic personal access token: Copilot CLI refuses to start with one (a fine-grained github_pat_, or an OAuth gho_/ghu_, it takes). */
const CLASSIC_TOKEN = /^ghp_/;

/**
 * GitHub Copilot CLI, headless: `copilot -p <brief> --output-format json` in the plan's worktree
 * (flags read in @github/copilot 1.0.102; see copilot-stream.ts for its events). Its events
 * become progress_update messages; the harness reporting server is added with
 * --additional-mcp-config, and a question asked through it (or a final HARNESS_CHECKPOINT line)
 * stops the run; the answer continues the same session (`--resume=<id>`). A new session is given
 * its id up front (`--session-id`), so that a run cut off before its first event can be named.
 * The session loop is the driver's (cli-driver.ts); this adapter holds what is Copilot CLI's: the
 * server's config file, the turn limit harness holds for it, usage from a file, priced, its
 * limit and sign-in words.
 */
/** The attempt's files: the MCP config naming harness's server, and where the CLI writes a run's usage; what of the session's usage is counted. */
interface CopilotFiles {
  mcpConfig: string;
  usagePath: string;
  /** The session's usage file as last counted (kept in copilot.json: a resumed session's file holds its totals). */
  counted?: CopilotCounted;
  /** The variables whose classic token was left out of the CLI's environment, for the message when it then cannot sign in. */
  classic?: string[];
}

export class CopilotAgent implements Agent, CliAdapter<CopilotEvent, CopilotFiles, CopilotState> {
  readonly name = 'copilot';
  readonly state = COPILOT_STATE;
  readonly install = { product: 'GitHub Copilot CLI', npm: '@github/copilot' };
  readonly summary = { of: 'attempt' as const };
  readonly asksForeseen = true;

  constructor(readonly options: CopilotAgentOptions = {}) {}

  run(context: WorkerContext): Promise<void> {
    return runCli(this, context);
  }

  // What was counted of the session outlives the session's saves, and its continuing after a checkpoint.
  keep(saved: CopilotState): Partial<CopilotState> {
    return saved.counted ? { counted: saved.counted } : {};
  }

  carry(attempt: CopilotFiles, sessionId: string): Partial<CopilotState> {
    return attempt.counted?.session === sessionId ? { counted: attempt.counted } : {};
  }

  async prepare(context: WorkerContext, open: OpenSession<CopilotState>): Promise<CopilotFiles> {
    const mcpConfig = join(context.logDir, MCP_FILE);
    // Copilot's own form of an MCP server: a "local" one, all of its tools offered. It holds this run's bridge token: logDir, never the checkout.
    await writeFile(
      mcpConfig,
      `${JSON.stringify({ mcpServers: { [MCP_SERVER_NAME]: { type: 'local', ...open.bridge.serverCommand(), tools: ['*'] } } }, null, 2)}\n`,
      { mode: 0o600 },
    );
    const usagePath = join(context.logDir, USAGE_FILE);
    await mkdir(dirname(usagePath), { recursive: true });
    return { mcpConfig, usagePath, ...(open.saved.counted ? { counted: open.saved.counted } : {}) };
  }

  writes({ usagePath }: CopilotFiles): string[] {
    return [dirname(usagePath)];
  }

  // Copilot is given the id of a new session (--session-id), and continues one by it (--resume).
  nameSession(): string {
    return randomUUID();
  }

  env(base: Record<string, string | undefined>, attempt: CopilotFiles): Record<string, string | undefined> {
    attempt.classic = classicTokenVars(base);
    return copilotEnv(base);
  }

  readonly parse = parseCopilotLine;
  readonly describe = describeCopilotEvent;
  // harness's reporting server's tools report for themselves.
  toolCall(event: CopilotEvent): ToolCall | undefined {
    return toolCallOf(event, (_, server) => server === 'harness');
  }

  async startRun({ attempt, turn, facts }: RunScope<CopilotFiles>): Promise<CliRun<CopilotEvent>> {
    await rm(attempt.usagePath, { force: true });
    return new CopilotRun(facts, (turn.resume ?? turn.named)!, attempt, this.options);
  }

  turnLimit(): string {
    return `copilot stopped at its turn limit (${this.options.maxTurns} turns; agents.copilot.max_turns)`;
  }

  unpriced(context: WorkerContext): { message: string; refuse: boolean } | undefined {
    const p = this.options.price;
    if (p !== undefined && (p.inputPerMillion !== undefined || p.outputPerMillion !== undefined || p.perPremiumRequest !== undefined)) return undefined;
    return {
      refuse: true,
      message: `plan ${context.plan.id} has a budget (budget_usd) but Copilot CLI reports no cost: set agents.copilot.price in .github/harness.yml (e.g. price: { input_per_million: 3, output_per_million: 15 }) so harness can count it`,
    };
  }

  args(next: CliTurn, { mcpConfig, usagePath }: CopilotFiles): string[] {
    const o = this.options;
    const args = ['-p', next.prompt, '--output-format', 'json', next.resume ? `--resume=${next.resume}` : `--session-id=${next.named}`];
    // Only harness's server besides the user's own mcp-config.json: not the built-in GitHub server, which would act with the Copilot token.
    args.push('--additional-mcp-config', `@${mcpConfig}`, '--disable-builtin-mcps');
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

/** One run of Copilot CLI: its turns, its last message, a session.error and the closing line. */
class CopilotRun implements CliRun<CopilotEvent> {
  // Named up front: the stream never says another.
  readonly sessionId = undefined;
  text = '';
  turns = 0;
  private error: CopilotError | undefined;
  private result: CopilotResult | undefined;

  constructor(
    private readonly facts: StreamFacts,
    private readonly session: string,
    private readonly attempt: CopilotFiles,
    private readonly options: CopilotAgentOptions,
  ) {}

  add(event: CopilotEvent): void {
    if (event.type === 'init') this.facts.add({ type: 'init', sessionId: event.sessionId ?? this.session, ...(event.model ? { model: event.model } : {}) });
    if (event.type === 'tool_use' || event.type === 'tool_result') this.facts.add(event);
    if (event.type === 'text' && event.text.trim()) this.text = event.text;
    if (event.type === 'error') this.error = event;
    if (event.type === 'result') this.result = event;
    if (event.type === 'turn') this.turns++;
  }

  get finished(): boolean {
    return this.result !== undefined;
  }

  async usage(stopped: boolean): Promise<Usage> {
    const file = usageFileOf((await readTextIfExists(this.attempt.usagePath)) ?? '');
    // A resumed session's file holds its totals: this run is what they grew by since they were last counted.
    const before = this.attempt.counted?.session === this.session ? this.attempt.counted : undefined;
    const run = file && usageSince(file, before);
    if (file)
      this.attempt.counted = {
        session: this.session,
        ...(file.inputTokens === undefined ? {} : { inputTokens: file.inputTokens }),
        ...(file.outputTokens === undefined ? {} : { outputTokens: file.outputTokens }),
        ...(file.premiumRequests === undefined ? {} : { premiumRequests: file.premiumRequests }),
      };
    // The turns the CLI was stopped in are counted as the ones it was allowed: the one over the limit never ran.
    return copilotUsage(stopped ? this.options.maxTurns! : this.turns, run, this.options.price);
  }

  stopped(run: ProcessResult): RunFailure | undefined {
    // A stop at the rate limit or quota is a pause to wait out (the worker reads the reset from this reason), not the plan's failure.
    const limited = copilotLimitFailure(this.error, new Date());
    if (limited) return { retryable: true, error: limited };
    const refused = this.result === undefined ? run.tail.find((l) => l.includes(COPILOT_NO_AUTH) || l.includes(COPILOT_CLASSIC_REFUSED)) : undefined;
    if (this.error?.errorType === 'authentication' || refused !== undefined) {
      const words = this.error?.message ?? refused!.replace(/^Error:\s*/, '').trim();
      return { retryable: false, environment: true, error: `copilot could not sign in: ${words} — ${credentialAdvice(this.attempt.classic ?? [])}` };
    }
    return undefined;
  }

  failure(run: ProcessResult): RunFailure | undefined {
    const { error, result } = this;
    if (!error && (result?.exitCode ?? run.code) === 0) return undefined;
    const why = error ? `${error.errorType}: ${error.message}` : `exit code ${result?.exitCode ?? run.code}`;
    return { retryable: error?.errorType !== 'context_limit', error: `copilot failed (${why})${error ? '' : tailOf(run)}` };
  }
}

/**
 * The agent's environment less what must not reach it: the job's GITHUB_TOKEN (Copilot CLI would
 * sign in with it, and the agent's commands would hold it), a classic personal access token in
 * COPILOT_GITHUB_TOKEN or GH_TOKEN (1.0.102 refuses to start with one, even with a provider of the
 * user's own, where it needs no token; without it the CLI signs in with the next token, or its own
 * login), and COPILOT_ALLOW_ALL, whose "true" also trusts the checkout's own MCP servers and hooks.
 */
export function copilotEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const out = { ...env };
  delete out.GITHUB_TOKEN;
  delete out.COPILOT_ALLOW_ALL;
  for (const name of classicTokenVars(env)) delete out[name];
  return out;
}

/** The variables Copilot CLI reads a token from that hold a classic personal access token. */
function classicTokenVars(env: Record<string, string | undefined>): string[] {
  return TOKEN_VARS.filter((name) => CLASSIC_TOKEN.test(env[name] ?? ''));
}

/** What to give Copilot CLI to sign in with: which variables harness looked at, which it left out, and the kind of token. */
function credentialAdvice(classic: readonly string[]): string {
  const left =
    classic.length > 0
      ? `; ${classic.join(' and ')} held a classic personal access token (ghp_…), which Copilot refuses, so harness left ${classic.length > 1 ? 'them' : 'it'} out`
      : '';
  return (
    `harness looked at ${TOKEN_VARS.join(' and ')} (never GITHUB_TOKEN, the job's own)${left}. ` +
    'Copilot needs a fine-grained personal access token (github_pat_…) of a user with a Copilot seat, with the Copilot Requests permission, ' +
    'in COPILOT_GITHUB_TOKEN (a secret of its own), or an OAuth token (gho_…, ghu_…: copilot login, gh auth login), ' +
    'or a provider of your own (COPILOT_PROVIDER_BASE_URL)'
  );
}

/** The session state of a plan's logDir (empty when there is none). */
export function readCopilotState(logDir: string): Promise<SessionState> {
  return COPILOT_STATE.read(logDir);
}
