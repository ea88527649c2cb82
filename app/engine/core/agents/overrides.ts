/**
 * The one place a repository keeps its own version of any agent's instructions (planner,
 * executor, reflector, skill-judge, spike …): beside its .github/harness.yml, reviewed like it.
 */
export const AGENT_OVERRIDES_DIR = '.github/harness/agents';

export function agentOverridePath(name: string): string {
  return `${AGENT_OVERRIDES_DIR}/${name}.md`;
}
