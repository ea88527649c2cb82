/**
 * Who writes a spec's planning documents: the person's choice (`--agent`), else the worker's
 * override (HARNESS_AGENT), else `planning.agent` of .github/harness.yml, else the repository's
 * `agent` unless that is the script agent (which only runs the steps a plan spells out), else Claude.
 */
export function planningAgentName(choice: {
  override?: string | undefined;
  worker?: string | undefined;
  planning?: string | undefined;
  configured?: string | undefined;
}): string {
  const configured = choice.configured === 'script' ? undefined : choice.configured;
  return choice.override ?? (choice.worker === 'script' ? undefined : choice.worker) ?? choice.planning ?? configured ?? 'claude';
}
