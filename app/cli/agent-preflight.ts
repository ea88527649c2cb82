import type { HarnessConfig } from '../engine/core/config/schema.js';
import type { Spec } from '../engine/core/spec/model.js';
import { findExecutable } from '../machine/executable.js';
import { agentsConfig } from '../agents/config.js';
import { AgentConfigError, agentFor } from '../agents/registry.js';

/** How to configure each agent that needs settings, for the message that says they are missing. */
const HOW: Record<string, string> = {
  command: `the command agent runs a command of yours, which .github/harness.yml names; add to .github/harness.yml:
  agents:
    command: { command: "./scripts/agent.sh", protocol: false }
(the plan's brief is the command's stdin; protocol: true if it speaks harness's worker protocol; docs/agents.md)`,
};

/** The agents that are a CLI of their own: what to install when it is missing. */
const CLIS = {
  claude: { product: 'Claude Code', package: '@anthropic-ai/claude-code' },
  codex: { product: 'the Codex CLI', package: '@openai/codex' },
  gemini: { product: 'Gemini CLI', package: '@google/gemini-cli' },
  copilot: { product: 'GitHub Copilot CLI', package: '@github/copilot' },
} as const;

/**
 * Before a run starts anything: every agent it will use can be set up. Found after the
 * first plan started, a missing setting failed that plan and blocked all that depend on it,
 * with the reason only in the plan's status. Returns the message, or undefined when all is well.
 */
export function agentProblem(
  spec: Spec,
  config: HarnessConfig,
  forced: string | undefined,
  where: { path: string | undefined; cwd: string },
): string | undefined {
  const names = forced !== undefined ? [forced] : [...new Set(spec.plans.map((p) => p.agent ?? config.agent))];
  for (const name of names) {
    const who =
      forced !== undefined
        ? `--agent ${name}`
        : `the ${name} agent (${spec.plans
            .filter((p) => (p.agent ?? config.agent) === name)
            .map((p) => p.id)
            .join(', ')})`;
    const problem = oneAgentProblem(name, who, config, where, ['script', 'command']);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * The same for one agent, before a command that has only one (a planning command, a spike)
 * starts a worktree or an agent: `who` names it in the message, `others` are the agents the
 * command could take instead.
 */
export function oneAgentProblem(
  name: string,
  who: string,
  config: HarnessConfig,
  where: { path: string | undefined; cwd: string },
  others: readonly string[],
): string | undefined {
  try {
    agentFor(name, agentsConfig(config));
  } catch (e) {
    if (!(e instanceof AgentConfigError)) throw e;
    return `${who}: ${HOW[name] ?? e.message}`;
  }
  // An agent whose program is not there cannot start: this machine's problem, found before anything counts an attempt at it.
  const cli = CLIS[name as keyof typeof CLIS];
  if (cli) {
    const program = agentsConfig(config)[name as keyof typeof CLIS]?.executable ?? name;
    if (findExecutable(program, where.path, where.cwd) === undefined) {
      const choose = others.filter((o) => o !== name);
      return `${who} cannot start: "${program}" is not ${program.includes('/') ? 'a program that can run' : 'on PATH'}; install ${cli.product} (npm install -g ${cli.package}), set agents.${name}.executable in .github/harness.yml${choose.length > 0 ? `, or choose another agent with --agent (${choose.join(', ')})` : ''}`;
    }
  }
  return undefined;
}

/** Which setting chose a command's one agent, to name it in a message: the option, the command's setting in .github/harness.yml, the repository's agent, or the default. */
export function whoChose(agent: string, chosen: { option: string | undefined; setting: [string | undefined, string]; configured: string | undefined }): string {
  if (chosen.option !== undefined) return `--agent ${agent}`;
  if (chosen.setting[0] === agent) return `the ${agent} agent (${chosen.setting[1]} in .github/harness.yml)`;
  if (chosen.configured === agent) return `the ${agent} agent (agent in .github/harness.yml)`;
  return `the ${agent} agent (the default)`;
}
