import { HarnessError } from '../engine/core/error.js';
import { SPEC_ID } from '../engine/core/spec/schema.js';
import { parseSpikeInputs, parseTargetInput, SPIKE_SPEC_INPUT, type PlanOrPhase, type SpikeTarget } from '../engine/forge/worker-target.js';
import { parsePlanningInput, parseResearchInput, type PlanningTarget, type ResearchTarget } from '../engine/planning/planning-target.js';
import { AGENT_NAMES, type AgentName } from '../agents/registry.js';

/** The action's inputs, read once and checked (action.yml documents them). */
export interface WorkerInputs {
  /** The spec id; `knowledge` for a spike. */
  spec: string;
  /** One plan, the verification of one phase, or a spike (spec `knowledge`, plan `spike/<slug>`). */
  target: PlanOrPhase | SpikeTarget | PlanningTarget | ResearchTarget;
  /** The branch already holds steps an earlier run committed. */
  resume: boolean;
  token: string;
  /**
   * The App's installation token, minted in the workflow from the App's secrets: when given, the
   * worker calls GitHub and pushes with it, and the plan's check run is the App's.
   */
  appToken?: string;
  /** The App's slug, whose bot (`<slug>[bot]`) is the only bot whose answers count. */
  appSlug?: string;
  /** Overrides the plan's `agent:` and the config's `agent`. */
  agent?: AgentName;
  /** Overrides `specs_root` of .github/harness.yml. */
  specsRoot?: string;
  /** Plans that may run at once under the same token (input `running`): the live check run's writes share the limits with them. */
  running?: number;
}

export class WorkerInputError extends HarnessError {}

/** Read the inputs through `get` (core.getInput on a runner: trimmed, "" when absent). */
export function parseInputs(get: (name: string) => string): WorkerInputs {
  const spec = get('spec');
  const plan = get('plan');
  const spike = parseSpikeInputs(spec, plan);
  if (!spike && spec === SPIKE_SPEC_INPUT)
    throw new WorkerInputError(`input plan: "${plan}" is not a spike like spike/<name>, which spec "${SPIKE_SPEC_INPUT}" asks for`);
  if (!spike && !SPEC_ID.test(spec)) throw new WorkerInputError(`input spec: "${spec}" is not a spec id like SPC-002 (nor "${SPIKE_SPEC_INPUT}", for a spike)`);
  const target = spike ?? parseTargetInput(plan) ?? parsePlanningInput(plan) ?? parseResearchInput(plan);
  if (!target)
    throw new WorkerInputError(
      `input plan: "${plan}" is neither a plan id like 03-02 nor a phase like phase-03 (nor a planning job, planning/<pull>/<comment>, nor research ahead, research-03)`,
    );
  const resume = get('resume').toLowerCase();
  if (!['', 'true', 'false'].includes(resume)) throw new WorkerInputError(`input resume: "${resume}" is neither "true" nor "false"`);
  const token = get('token');
  if (!token) throw new WorkerInputError('input token is empty: pass a token that may read issues and open pull requests (the default is github.token)');
  const inputs: WorkerInputs = { spec, target, resume: resume === 'true', token };
  const agent = get('agent');
  if (agent) {
    if (!(AGENT_NAMES as readonly string[]).includes(agent)) throw new WorkerInputError(`input agent: "${agent}" is not one of ${AGENT_NAMES.join(', ')}`);
    inputs.agent = agent as AgentName;
  }
  const appToken = get('app-token');
  if (appToken) inputs.appToken = appToken;
  const appSlug = get('app-slug');
  if (appSlug) {
    if (!/^[a-z0-9][a-z0-9-]*$/i.test(appSlug)) throw new WorkerInputError(`input app-slug: "${appSlug}" is not a GitHub App slug like harness-bot`);
    inputs.appSlug = appSlug;
  }
  const running = get('running');
  if (running) {
    if (!/^[1-9]\d{0,5}$/.test(running))
      throw new WorkerInputError(`input running: "${running}" is not a count of plans like 64 (1 or more; empty when the worker runs alone)`);
    inputs.running = Number(running);
  }
  const specsRoot = get('specs-root');
  if (specsRoot) inputs.specsRoot = specsRoot;
  return inputs;
}
