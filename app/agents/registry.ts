import type { Agent } from '../engine/core/agents/agent.js';
import { ClaudeAgent, type ClaudeAgentOptions } from './claude.js';
import { CodexAgent, type CodexAgentOptions } from './codex.js';
import { codexSessions } from './codex-session.js';
import { CommandAgent, type CommandAgentOptions } from './command.js';
import { CopilotAgent, type CopilotAgentOptions } from './copilot.js';
import { copilotSessions } from './copilot-session.js';
import { ScriptAgent } from './script.js';
import { HarnessError } from '../engine/core/error.js';
import { claudeSessions } from './claude-session.js';
import { GeminiAgent, type GeminiAgentOptions } from './gemini.js';
import { geminiSessions } from './gemini-session.js';
import type { SessionCarrier } from './session-carrier.js';
import type { SpendLimit } from '../engine/core/run/spend-limit.js';

/** Settings of the agents that have any, by agent name. */
export interface AgentsConfig {
  claude?: ClaudeAgentOptions;
  codex?: CodexAgentOptions;
  command?: CommandAgentOptions;
  gemini?: GeminiAgentOptions;
  copilot?: CopilotAgentOptions;
}

/**
 * The agents' settings with every CLI agent held to `limit` (budget_usd: the plan's and the
 * spec's), in the one place that names them, for `harness run` and the worker alike: a CLI agent
 * left out of a list of its own would spend past its budget (gemini did, locally).
 */
export function withSpendLimit(config: AgentsConfig, limit: SpendLimit | undefined): AgentsConfig {
  if (limit === undefined) return config;
  return {
    ...config,
    claude: { ...config.claude, spendLimit: limit },
    codex: { ...config.codex, spendLimit: limit },
    copilot: { ...config.copilot, spendLimit: limit },
    gemini: { ...config.gemini, spendLimit: limit },
  };
}

export const AGENT_NAMES = ['script', 'claude', 'command', 'codex', 'copilot', 'gemini'] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

export class AgentConfigError extends HarnessError {}

/** The agent a plan asks for (its `agent:`, or the repository default). */
export function agentFor(name: string, config: AgentsConfig = {}): Agent {
  switch (name) {
    case 'script':
      return new ScriptAgent();
    case 'claude':
      return new ClaudeAgent(config.claude);
    case 'codex':
      return new CodexAgent(config.codex);
    case 'gemini':
      return new GeminiAgent(config.gemini);
    case 'command':
      if (!config.command?.command.trim()) {
        throw new AgentConfigError('the command agent needs a command to run: configure command: { command: "…" }');
      }
      return new CommandAgent(config.command);
    case 'copilot':
      return new CopilotAgent(config.copilot);
    default:
      throw new AgentConfigError(`unknown agent "${name}"; known agents: ${AGENT_NAMES.join(', ')}`);
  }
}

/** How an agent's session travels with a checkpoint to another runner; none for agents with no session to resume. */
export function sessionCarrierFor(name: string): SessionCarrier | undefined {
  switch (name) {
    case 'claude':
      return claudeSessions;
    case 'gemini':
      return geminiSessions;
    case 'copilot':
      return copilotSessions;
    case 'codex':
      return codexSessions;
    default:
      return undefined;
  }
}
