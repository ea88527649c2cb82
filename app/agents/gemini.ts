import { geminiTelemetry } from './telemetry.js';
import { toolCallOf, type ToolCall } from '../engine/core/agents/stream-json.js';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  describeGeminiEvent,
  FinalText,
  geminiResultFailure,
  geminiUsage,
  parseGeminiLine,
  TurnCounter,
  type GeminiEvent,
  type GeminiResult,
  type TokenPrice,
} from '../engine/core/agents/gemini-stream.js';
import { geminiLimitOf, geminiLimitReason } from '../engine/core/agents/gemini-limit.js';
import type { StreamFacts } from '../engine/core/agents/stream-facts.js';
import type { Usage } from '../engine/core/protocol/messages.js';
import type { Agent, WorkerContext } from '../engine/core/agents/agent.js';
import { runCli, tailOf, type CliAdapter, type CliAgentOptions, type CliRun, type CliTurn, type RunFailure, type RunScope } from './cli-driver.js';
import type { OpenSession } from './cli-session.js';
import type { ProcessResult } from './process.js';
import { readTextIfExists } from '../machine/files.js';
import type { ReportBridge } from './mcp/report-bridge.js';
import { MCP_SERVER_NAME } from './mcp/report-tools.js';
import { GEMINI_STATE, geminiHome, geminiSessionFiles, type GeminiState } from './gemini-session.js';

export interface GeminiAgentOptions extends CliAgentOptions {
  /**
   * --approval-mode: "auto_edit" by default (edits are approved; of shell commands only the plan's
   * checks' and git's, by the policy harness writes), "yolo" on a runner that is isolated anyway,
   * "default" or "plan" (read-only).
   */
  approvalMode?: string;
  /** The model's turns in each run of the CLI: its `model.maxSessionTurns` setting. */
  maxTurns?: number;
  /** -m, e.g. "gemini-2.5-pro"; the CLI's own choice ("auto") otherwise. */
  model?: string;
  /** Gemini CLI reports tokens but no cost: dollars per million input and output tokens make its cost. */
  price?: TokenPrice;
}

/** Gemini CLI 0.61.0's exit code for a FatalAuthenticationError (no key, no login): the machine's setup, not the plan. */
const AUTH_EXIT = 41;

/** harness's policy file in the CLI's home (policies/*.toml are the user tier: above the CLI's defaults). */
const POLICY_FILE = 'harness.toml';

/** git's commands for committing and looking at the work, allowed whatever the plan's checks are. */
const GIT_COMMANDS = ['git add', 'git commit', 'git status', 'git diff', 'git log', 'git show', 'git rm', 'git mv'];

/** The shell commands a plan's agent may run headless: its checks' commands (and their servers'), and git's. */
export function shellPrefixes(context: WorkerContext): string[] {
  const commands = context.plan.mustPass.flatMap((check) => ('command' in check && typeof check.command === 'string' ? [check.command.trim()] : []));
  return [...new Set([...commands.filter((c) => c.length > 0), ...GIT_COMMANDS])];
}

/**
 * The auth type the CLI is told, since harness's home hides the user's settings: theirs when they
 * chose one (security.auth.selectedType in their settings.json); else, with GOOGLE_GEMINI_BASE_URL
 * and GEMINI_API_KEY set, "gemini-api-key" (the base URL is for that auth; 0.61.0 would pick its
 * "gateway" auth for a base URL and refuse it headless: "Invalid auth method selected."); else
 * none, and the CLI picks from the environment as it does for anyone.
 */
export async function authTypeFor(env: Record<string, string | undefined>): Promise<string | undefined> {
  const text = await readTextIfExists(join(env.GEMINI_CLI_HOME || env.HOME || homedir(), '.gemini', 'settings.json'));
  let chosen: unknown;
  try {
    chosen = text === undefined ? undefined : (JSON.parse(text) as { security?: { auth?: { selectedType?: unknown } } }).security?.auth?.selectedType;
  } catch {
    chosen = undefined;
  }
  if (typeof chosen === 'string' && chosen.length > 0) return chosen;
  return env.GOOGLE_GEMINI_BASE_URL && env.GEMINI_API_KEY ? 'gemini-api-key' : undefined;
}

/**
 * Gemini CLI, headless: `gemini -p <brief> --output-format stream-json --skip-trust
 * --approval-mode <mode> --allowed-mcp-server-names harness` in the plan's worktree, with
 * GEMINI_CLI_HOME set to a home of harness's own whose settings.json names the harness MCP
 * server. The stream becomes progress; a final HARNESS_CHECKPOINT line or a question through
 * harness_worker_await becomes a checkpoint, and the answer continues the same session
 * (`--resume <id>`, or `--session-file` for a session restored from another runner). The session
 * loop is the driver's (cli-driver.ts); this adapter holds what is Gemini CLI's: its home and
 * settings, the restored session's file, tokens priced, its sign-in exit and quota words.
 */
export class GeminiAgent implements Agent, CliAdapter<GeminiEvent, string, GeminiState> {
  readonly name = 'gemini';
  readonly state = GEMINI_STATE;
  readonly install = { product: 'Gemini CLI', npm: '@google/gemini-cli' };
  readonly summary = { of: 'run' as const, tokens: true };
  readonly asksForeseen = false;

  constructor(readonly options: GeminiAgentOptions = {}) {}

  run(context: WorkerContext): Promise<void> {
    return runCli(this, context);
  }

  keep(saved: GeminiState): Partial<GeminiState> {
    return saved.restored ? { restored: true } : {};
  }

  /** The CLI's home for this checkout, its settings and shell policy written: the attempt's set-up. */
  async prepare(context: WorkerContext, open: OpenSession<GeminiState>): Promise<string> {
    const env = { ...process.env, ...context.env };
    const home = geminiHome(context.task.worktree, env);
    await this.writeSettings(home, open.bridge, await authTypeFor(env));
    await this.writePolicy(home, shellPrefixes(context));
    return home;
  }

  /** The settings hold the run's reporting token: gone when the attempt ends (the sessions stay, to be resumed). */
  async release(home: string): Promise<void> {
    await rm(join(home, '.gemini', 'settings.json'), { force: true });
    await rm(join(home, '.gemini', 'policies', POLICY_FILE), { force: true });
  }

  /** A session restored from the branch is continued from its file, not by id (resumeOf). */
  async firstTurn(turn: CliTurn, home: string, open: OpenSession<GeminiState>): Promise<CliTurn> {
    return { prompt: turn.prompt, ...(await this.resumeOf(home, turn.resume!, open.saved.restored === true)) };
  }

  /** How a saved session continues: by id where the CLI kept it, by its file where a checkpoint put it back. */
  private async resumeOf(home: string, sessionId: string, restored: boolean): Promise<{ resume?: string; sessionFile?: string }> {
    if (!restored) return { resume: sessionId };
    const [file] = await geminiSessionFiles(home, sessionId);
    return file ? { sessionFile: join(home, file) } : { resume: sessionId };
  }

  /**
   * The CLI's settings in harness's home for it: the reporting server (trusted: its calls need no
   * approval), the auth type the user chose (their settings are not read otherwise), no usage
   * statistics, and the turn limit.
   */
  private async writeSettings(home: string, bridge: ReportBridge, authType: string | undefined): Promise<void> {
    const dir = join(home, '.gemini');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const settings = {
      mcpServers: { [MCP_SERVER_NAME]: { ...bridge.serverCommand(), trust: true } },
      ...(authType === undefined ? {} : { security: { auth: { selectedType: authType } } }),
      // The user's own settings are not read here: a plan's run sends Google no usage statistics, whatever they chose.
      privacy: { usageStatisticsEnabled: false },
      ...(this.options.maxTurns === undefined ? {} : { model: { maxSessionTurns: this.options.maxTurns } }),
    };
    // It holds this run's bridge token: the user's only, and removed when the attempt ends (release).
    await writeFile(join(dir, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  }

  /**
   * Headless, 0.61.0 refuses every shell command its policy engine would ask a person about, and
   * under auto_edit (the default here) or default that is all of them: the agent could not run
   * the plan's checks or commit. A user policy allows exactly those: the commands of the plan's
   * checks and git's commit commands, nothing else (yolo allows all; plan is read-only).
   */
  private async writePolicy(home: string, prefixes: string[]): Promise<void> {
    const mode = this.options.approvalMode ?? 'auto_edit';
    const dir = join(home, '.gemini', 'policies');
    if (mode !== 'auto_edit' && mode !== 'default') return rm(join(dir, POLICY_FILE), { force: true });
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const rule = [
      "# Written by harness for the plan's run: the commands its checks run, and git to commit.",
      '[[rule]]',
      'toolName = "run_shell_command"',
      `commandPrefix = ${JSON.stringify(prefixes)}`,
      'decision = "allow"',
      'priority = 100',
      `modes = ${JSON.stringify([mode === 'auto_edit' ? 'autoEdit' : 'default'])}`,
      '',
    ];
    await writeFile(join(dir, POLICY_FILE), rule.join('\n'), { mode: 0o600 });
  }

  env(base: Record<string, string | undefined>, home: string): Record<string, string | undefined> {
    return { ...base, GEMINI_CLI_HOME: home, ...geminiTelemetry(base) };
  }

  readonly parse = parseGeminiLine;
  readonly describe = describeGeminiEvent;
  // harness's reporting tool (mcp_harness_*) reports for itself.
  toolCall(event: GeminiEvent): ToolCall | undefined {
    return toolCallOf(event, (name) => name.startsWith('mcp_harness_'));
  }

  startRun({ facts }: RunScope<string>): Promise<CliRun<GeminiEvent>> {
    return Promise.resolve(new GeminiRun(facts, this.options.price));
  }

  // The CLI reports tokens as each run ends; their cost at the configured price is what a budget is checked against.
  unpriced(): { message: string } | undefined {
    return this.options.price === undefined ? { message: 'gemini reports no cost and agents.gemini has no price: budget_usd cannot be checked' } : undefined;
  }

  args(next: CliTurn): string[] {
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

/** One run of Gemini CLI: its session, its turns, the final text and the closing result. */
class GeminiRun implements CliRun<GeminiEvent> {
  sessionId: string | undefined;
  private result: GeminiResult | undefined;
  private readonly counter = new TurnCounter();
  private readonly final = new FinalText();

  constructor(
    private readonly facts: StreamFacts,
    private readonly price: TokenPrice | undefined,
  ) {}

  add(event: GeminiEvent): void {
    if (event.type === 'init' || event.type === 'tool_use' || event.type === 'tool_result') this.facts.add(event);
    this.counter.add(event);
    this.final.add(event);
    if (event.type === 'init') this.sessionId = event.sessionId;
    if (event.type === 'result') this.result = event;
  }

  get finished(): boolean {
    return this.result !== undefined;
  }

  get text(): string {
    return this.final.text;
  }

  usage(): Usage | undefined {
    return this.result || this.counter.turns > 0 ? geminiUsage(this.result, this.counter.turns, this.price) : undefined;
  }

  stopped(run: ProcessResult): RunFailure | undefined {
    if (this.result === undefined && run.code === AUTH_EXIT) {
      // What the CLI said, not what harness guesses: a key may be set and another auth chosen.
      if (run.tail.some((l) => l.includes('Invalid auth method selected'))) {
        return {
          retryable: false,
          environment: true,
          error: `gemini could not authenticate: it said "Invalid auth method selected." — it chose an auth type it cannot use headless (GOOGLE_GEMINI_BASE_URL alone selects its "gateway" auth): set GEMINI_API_KEY beside the base URL, or choose security.auth.selectedType in your ~/.gemini/settings.json${tailOf(run)}`,
        };
      }
      return {
        retryable: false,
        environment: true,
        error: `gemini could not authenticate: set GEMINI_API_KEY (or GOOGLE_GENAI_USE_VERTEXAI with GOOGLE_API_KEY or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION) for the agent${tailOf(run)}`,
      };
    }
    // A stop at the quota is a pause to wait out (the worker reads the reset from this reason), not the plan's failure.
    const limited = this.result?.status === 'error' && this.result.error ? geminiLimitOf(this.result.error.message, new Date()) : undefined;
    return limited ? { retryable: true, error: geminiLimitReason(limited) } : undefined;
  }

  failure(): RunFailure | undefined {
    return this.result && geminiResultFailure(this.result, this.counter.turns);
  }
}
