/** Who runs a spike, and why the one asked for cannot. */

export interface SpikeAgentChoice {
  /** Chosen for this spike by the person (`harness spike --agent`). */
  override?: string | undefined;
  /** `knowledge.spike.agent` of .github/harness.yml. */
  spike?: string | undefined;
  /** The worker's `agent` input (the HARNESS_AGENT variable), which overrides every plan's agent. */
  worker?: string | undefined;
  /** `agent` of .github/harness.yml: the repository's agent. */
  configured?: string | undefined;
}

/**
 * The spike's agent: the person's choice, else the one configured for spikes, else the
 * worker's, else the repository's, else Claude. A spike is the configured one's to draft,
 * and the most specific setting wins.
 */
export function spikeAgentName(choice: SpikeAgentChoice): string {
  return choice.override ?? choice.spike ?? choice.worker ?? choice.configured ?? 'claude';
}

/** Why an agent cannot run a spike, or undefined when it can. */
export function spikeAgentRefusal(agent: string): string | undefined {
  if (agent !== 'script') return undefined;
  return (
    'the script agent cannot run a spike: it runs the shell steps a plan spells out, and a spike has none until an agent drafts its ' +
    'hypothesis and experiment. Use claude or command: harness spike --agent claude, or knowledge: { spike: { agent: claude } } in .github/harness.yml'
  );
}
