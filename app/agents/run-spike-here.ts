import { join } from 'node:path';
import type { Clock } from '../engine/core/clock.js';
import { formatProblem } from '../engine/core/spec/problem.js';
import { parseSpikeInstructions, SPIKE_INSTRUCTIONS } from '../engine/knowledge/spikes/spike-instructions.js';
import type { Progress } from '../engine/lifecycle/ports.js';
import { runSpike, type SpikeOutcome } from '../engine/lifecycle/run-spike.js';
import { secretValues } from '../machine/content-safety.js';
import { readTextIfExists } from '../machine/files.js';
import { loadTemplate } from '../machine/templates.js';
import { agentFor, type AgentsConfig } from './registry.js';
import { SpikeCheckout } from './spike-checkout.js';

export interface SpikeHere {
  /** The checkout of the spike's branch, absolute. */
  root: string;
  /** The spike's folder, repository-relative. */
  folder: string;
  agent: string;
  agents: AgentsConfig;
  /** Added to the environment of the agent's processes (and of git, for an identity). */
  env: Record<string, string>;
  /** Outside the checkout: the agent's logs and the stage journal. */
  logDir: string;
  /** Other directories of this machine that stand for the project (the person's checkout), made ${PROJECT_ROOT} in what is committed. */
  roots?: readonly string[];
  progress: Progress;
  clock: Clock;
  signal?: AbortSignal;
}

/**
 * A spike on a checkout of its branch, the same for `harness spike` and for the worker on a
 * runner: the agent's instructions (the repository's .github/harness/agents/spike.md, else the
 * shipped templates/agents/spike.md), the record templates, the checkout that keeps the agent
 * to the folder and makes every committed file safe, and the lifecycle (runSpike).
 */
export async function runSpikeHere(options: SpikeHere): Promise<SpikeOutcome> {
  const own = await readTextIfExists(join(options.root, SPIKE_INSTRUCTIONS.override));
  const file = own === undefined ? `templates/${SPIKE_INSTRUCTIONS.shipped}` : SPIKE_INSTRUCTIONS.override;
  const parsed = parseSpikeInstructions(file, own ?? (await loadTemplate(SPIKE_INSTRUCTIONS.shipped)));
  if (!parsed.ok) {
    return {
      kind: 'failed',
      reason: `the spike agent's instructions in ${file} cannot be used; fix them${own === undefined ? '' : ', or delete the file to use the shipped ones'}`,
      problems: parsed.problems.map((p) => formatProblem(p)),
      leftovers: [],
      discarded: [],
      redactions: [],
      dropped: [],
      retries: [],
      commits: [],
    };
  }
  const checkout = new SpikeCheckout(options.root, {
    journal: join(options.logDir, 'stage.json'),
    safety: { roots: [options.root, ...(options.roots ?? []), options.logDir], secrets: secretValues({ ...process.env, ...options.env }) },
    env: options.env,
  });
  return runSpike(
    {
      folder: options.folder,
      agent: options.agent,
      instructions: parsed.instructions,
      templates: {
        hypothesis: await loadTemplate('spike/HYPOTHESIS.md'),
        experiment: await loadTemplate('spike/EXPERIMENT.md'),
        decision: await loadTemplate('spike/DECISION.md'),
      },
      env: options.env,
      logDir: options.logDir,
      signal: options.signal,
    },
    { agent: (name) => agentFor(name, options.agents), workspace: checkout, progress: options.progress, clock: options.clock },
  );
}
