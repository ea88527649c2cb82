import type { HarnessConfig } from '../engine/core/config/schema.js';
import type { AgentsConfig } from './registry.js';

/** The agents settings of `.github/harness.yml` in the form the workers take. */
export function agentsConfig(config: HarnessConfig): AgentsConfig {
  const out: AgentsConfig = {};
  const c = config.agents.claude;
  if (c) {
    out.claude = {};
    if (c.executable !== undefined) out.claude.executable = c.executable;
    if (c.permission_mode !== undefined) out.claude.permissionMode = c.permission_mode;
    if (c.allowed_tools !== undefined) out.claude.allowedTools = c.allowed_tools;
    if (c.max_turns !== undefined) out.claude.maxTurns = c.max_turns;
    if (c.model !== undefined) out.claude.model = c.model;
    if (c.extra_args !== undefined) out.claude.extraArgs = c.extra_args;
  }
  const g = config.agents.gemini;
  if (g) {
    out.gemini = {};
    if (g.executable !== undefined) out.gemini.executable = g.executable;
    if (g.approval_mode !== undefined) out.gemini.approvalMode = g.approval_mode;
    if (g.max_turns !== undefined) out.gemini.maxTurns = g.max_turns;
    if (g.model !== undefined) out.gemini.model = g.model;
    if (g.extra_args !== undefined) out.gemini.extraArgs = g.extra_args;
    if (g.price !== undefined) out.gemini.price = { inputPerMTok: g.price.input_per_million, outputPerMTok: g.price.output_per_million };
  }
  const p = config.agents.copilot;
  if (p) {
    out.copilot = {};
    if (p.executable !== undefined) out.copilot.executable = p.executable;
    if (p.allowed_tools !== undefined) out.copilot.allowedTools = p.allowed_tools;
    if (p.max_turns !== undefined) out.copilot.maxTurns = p.max_turns;
    if (p.model !== undefined) out.copilot.model = p.model;
    if (p.extra_args !== undefined) out.copilot.extraArgs = p.extra_args;
    if (p.price) {
      const { input_per_million: inputPerMillion, output_per_million: outputPerMillion, per_premium_request: perPremiumRequest } = p.price;
      out.copilot.price = { ...(inputPerMillion === undefined ? {} : { inputPerMillion }), ...(outputPerMillion === undefined ? {} : { outputPerMillion }), ...(perPremiumRequest === undefined ? {} : { perPremiumRequest }) };
    }
  }
  const x = config.agents.codex;
  if (x) {
    out.codex = {};
    if (x.executable !== undefined) out.codex.executable = x.executable;
    if (x.sandbox !== undefined) out.codex.sandbox = x.sandbox;
    if (x.max_turns !== undefined) out.codex.maxTurns = x.max_turns;
    if (x.model !== undefined) out.codex.model = x.model;
    if (x.price !== undefined) {
      out.codex.price = { inputPerMillion: x.price.input_per_million, outputPerMillion: x.price.output_per_million };
      if (x.price.cached_input_per_million !== undefined) out.codex.price.cachedInputPerMillion = x.price.cached_input_per_million;
    }
    if (x.extra_args !== undefined) out.codex.extraArgs = x.extra_args;
  }
  if (config.agents.command) out.command = { command: config.agents.command.command, protocol: config.agents.command.protocol };
  return out;
}
