import { claudeTelemetry } from './telemetry.js';
import { toolCallOf, type ToolCall } from '../engine/core/agents/stream-json.js';
import {
  describeClaudeEvent,
  parseClaudeLine,
  resultFailure,
  usageLimitFailure,
  usageOf,
  type ClaudeEvent,
  type ClaudeRateLimit,
  type ClaudeResult,
} from '../engine/core/agents/claude-stream.js';
import type { StreamFacts } from '../engine/core/agents/stream-facts.js';
import type { Agent, WorkerContext } from '../engine/core/agents/agent.js';
import type { Usage } from '../engine/core/protocol/messages.js';
import { runCli, type CliAdapter, type CliAgentOptions, type CliRun, type CliTurn, type RunFailure, type RunScope } from './cli-driver.js';
import type { OpenSession, SessionState } from './cli-session.js';
import type { ProcessResult } from './process.js';
import { CLAUDE_STATE } from './claude-session.js';
import { CLAUDE_TOOL_NAMES } from './mcp/report-tools.js';

export interface ClaudeAgentOptions extends CliAgentOptions {
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
}

/** What Claude Code (2.1.332) prints, and exits 1, when bypassPermissions is asked for as root outside a declared sandbox. */
const ROOT_REFUSAL = '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons';

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
 *
 * The session loop is the driver's (cli-driver.ts); this is Claude Code's adapter to it: the MCP
 * config file, the arguments, the stream, the cost it reports, its limit and refusal words.
 */
export class ClaudeAgent implements Agent, CliAdapter<ClaudeEvent, string> {
  readonly name = 'claude';
  readonly state = CLAUDE_STATE;
  readonly install = { product: 'Claude Code' };
  // Claude Code reports the cost and turns of each run in its result: the summary gives the last run's.
  readonly summary = { of: 'run' as const };
  readonly asksForeseen = true;

  constructor(readonly options: ClaudeAgentOptions = {}) {}

  run(context: WorkerContext): Promise<void> {
    return runCli(this, context);
  }

  /** The MCP config naming harness's reporting server: the attempt's set-up. */
  prepare(context: WorkerContext, open: OpenSession<SessionState>): Promise<string> {
    return open.bridge.writeConfig(context.logDir);
  }

  env(base: Record<string, string | undefined>): Record<string, string | undefined> {
    return { ...base, ...this.rootSandbox(), ...claudeTelemetry(base) };
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

  args(next: CliTurn, mcpConfig: string): string[] {
    const o = this.options;
    const args = ['-p', next.prompt, '--output-format', 'stream-json', '--verbose'];
    if (next.resume) args.push('--resume', next.resume);
    // Only harness's reporting server: a repository's own .mcp.json (or the user's settings) adds none to the worker's agent.
    args.push('--mcp-config', mcpConfig, '--strict-mcp-config');
    args.push('--permission-mode', o.permissionMode ?? 'acceptEdits');
    // Headless Claude Code asks permission for an MCP tool like any other: the reporting channel's are always allowed.
    args.push('--allowedTools', [...(o.allowedTools ?? []), ...CLAUDE_TOOL_NAMES].join(','));
    if (o.maxTurns !== undefined) args.push('--max-turns', String(o.maxTurns));
    // Claude Code stops itself at --max-budget-usd: what is left of the cap after this attempt's earlier runs.
    // Whole cents down (1 - 0.8 is 0.1999…), and at least one: Claude Code refuses a budget that is not above zero.
    if (next.leftUsd !== undefined) args.push('--max-budget-usd', String(Math.max(0.01, Math.floor(next.leftUsd * 100 + 1e-6) / 100)));
    if (o.model) args.push('--model', o.model);
    args.push(...(o.extraArgs ?? []));
    return args;
  }

  readonly parse = parseClaudeLine;
  readonly describe = describeClaudeEvent;
  // harness's reporting tools (mcp__harness__*) report for themselves.
  toolCall(event: ClaudeEvent): ToolCall | undefined {
    return toolCallOf(event, (name) => name.startsWith('mcp__harness__'));
  }

  startRun({ facts }: RunScope<string>): Promise<CliRun<ClaudeEvent>> {
    return Promise.resolve(new ClaudeRun(facts));
  }
}

/** One run of Claude Code: its session, its closing result, and the stream's last word on the usage limits. */
class ClaudeRun implements CliRun<ClaudeEvent> {
  sessionId: string | undefined;
  private result: ClaudeResult | undefined;
  private limit: ClaudeRateLimit | undefined;

  constructor(private readonly facts: StreamFacts) {}

  add(event: ClaudeEvent): void {
    this.facts.add(event);
    if (event.type === 'init') this.sessionId = event.sessionId;
    if (event.type === 'rate_limit') this.limit = event;
    if (event.type === 'result') {
      this.result = event;
      this.sessionId = event.sessionId ?? this.sessionId;
    }
  }

  get finished(): boolean {
    return this.result !== undefined;
  }

  get text(): string {
    return this.result?.result ?? '';
  }

  /** Claude's stream-json carries the cost only in its closing result. */
  usage(): Usage | undefined {
    return this.result && usageOf(this.result);
  }

  stopped(run: ProcessResult): RunFailure | undefined {
    if (this.result === undefined && run.tail.some((l) => l.includes(ROOT_REFUSAL))) {
      return {
        retryable: false,
        error: `claude refused to run: "${ROOT_REFUSAL}" — the job runs as root (a self-hosted runner or a container: job); run it as another user, or set IS_SANDBOX=1 for the step if the machine is a throwaway sandbox`,
      };
    }
    const limited = usageLimitFailure(this.result, this.limit);
    return limited ? { retryable: true, error: limited } : undefined;
  }

  failure(): RunFailure | undefined {
    return this.result && resultFailure(this.result);
  }
}

export { answerPrompt } from './cli-session.js';

/** The session state of a plan's logDir (empty when there is none). */
export function readClaudeState(logDir: string): Promise<SessionState> {
  return CLAUDE_STATE.read(logDir);
}

/** Seed a logDir with a session to continue: a runner restoring a checkpoint taken on another runner. */
export function seedClaudeState(logDir: string, state: SessionState): Promise<void> {
  return CLAUDE_STATE.seed(logDir, state);
}
