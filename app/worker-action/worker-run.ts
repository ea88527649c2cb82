import type { HarnessConfig } from '../engine/core/config/schema.js';
import type { Spec } from '../engine/core/spec/model.js';
import type { WorkerInputs } from './inputs.js';
import type { WorkerForge } from './worker-forge.js';
import type { WorkerLog } from './worker-log.js';

/** Everything a worker run is given: the inputs, where it is, and its ports. */
export interface WorkerDeps {
  inputs: Omit<WorkerInputs, 'token'>;
  /** The base branch: the ref the workflow was dispatched on, without refs/heads/. */
  base: string;
  /** The checkout ($GITHUB_WORKSPACE): the plan branch, or for a phase the phase branch at the base head. */
  root: string;
  /** Scratch space outside the checkout ($RUNNER_TEMP): the agent's logs go here. */
  tempDir: string;
  forge: WorkerForge;
  log: WorkerLog;
  /** Added to the environment of the agent, the checks and the servers. */
  env?: Record<string, string>;
  now?: () => Date;
  /** This workflow run on GitHub, for links. */
  runUrl?: string;
}

/** A run once the config and the spec are read. */
export interface WorkerRun extends WorkerDeps {
  config: HarnessConfig;
  /** Notes for the summary: config problems, overrides. */
  notes: string[];
  spec: Spec;
  /** The spec directory, relative to the checkout. */
  specPath: string;
  env: Record<string, string>;
  now: () => Date;
}
