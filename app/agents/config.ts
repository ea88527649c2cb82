import type { HarnessConfig } from '../engine/core/config/schema.js';
import type { CliAgentOptions } from './cli-driver.js';
import type { AgentsConfig } from './registry.js';

/** The settings every CLI agent has, as `.github/harness.yml` spells them. */
interface CliAgentConfig {
  executable?: string | undefined;
  max_turns?: number | undefined;
  model?: string | undefined;
  extra_args?: string[] | undefined;
}

/** A CLI agent's common settings in the form the workers take: only those that are set. */
function cliOptions(c: CliAgentConfig): CliAgentOptions {
  return {
    ...(c.executable === undefined ? {} : { executable: c.executable }),
    ...(c.max_turns === undefined ? {} : { maxTurns: c.max_turns }),
    ...(c.model === undefined ? {} : { model: c.model }),
    ...(c.extra_args === undefined ? {} : { extraArgs: c.extra_args }),
  };
}

/** The agents settings of `.github/harness.yml` in the form the workers take. */
export function agentsConfig(config: HarnessConfig): AgentsConfig {
  const out: AgentsConfig = {};
  const c = config.agents.claude;
  if (c) {
    out.claude = cliOptions(c);
    if (c.permission_mode !== undefined) out.claude.permissionMode = c.permission_mode;
    if (c.allowed_tools !== undefined) out.claude.allowedTools = c.allowed_tools;
  }
  const g = config.agents.gemini;
  if (g) {
    out.gemini = cliOptions(g);
    if (g.approval_mode !== undefined) out.gemini.approvalMode = g.approval_mode;
    if (g.price !== undefined) out.gemini.price = { inputPerMTok: g.price.input_per_million, outputPerMTok: g.price.output_per_million };
  }
  const p = config.agents.copilot;
  if (p) {
    out.copilot = cliOptions(p);
    if (p.allowed_tools !== undefined) out.copilot.allowedTools = p.allowed_tools;
    if (p.price) {
      const { input_per_million: inputPerMillion, output_per_million: outputPerMillion, per_premium_request: perPremiumRequest } = p.price;
      out.copilot.price = {
        ...(inputPerMillion === undefined ? {} : { inputPerMillion }),
        ...(outputPerMillion === undefined ? {} : { outputPerMillion }),
        ...(perPremiumRequest === undefined ? {} : { perPremiumRequest }),
      };
    }
  }
  const x = config.agents.codex;
  if (x) {
    out.codex = cliOptions(x);
    if (x.sandbox !== undefined) out.codex.sandbox = x.sandbox;
    if (x.price !== undefined) {
      out.codex.price = { inputPerMillion: x.price.input_per_million, outputPerMillion: x.price.output_per_million };
      if (x.price.cached_input_per_million !== undefined) out.codex.price.cachedInputPerMillion = x.price.cached_input_per_million;
    }
  }
  if (config.agents.command) out.command = { command: config.agents.command.command, protocol: config.agents.command.protocol };
  return out;
}
