import { PLAN_ID, SPEC_ID } from '../engine/core/spec/schema.js';
import { AGENT_NAMES, type AgentName } from '../workers/registry.js';
import { HarnessError } from '../engine/core/error.js';

/** What the worker is asked to do: one plan, or the verification of one phase. */
export type WorkerTarget = { kind: 'plan'; plan: string } | { kind: 'phase'; phase: string };

/** The action's inputs, read once and checked (action.yml documents them). */
export interface WorkerInputs {
  spec: string;
  target: WorkerTarget;
  /** The branch already holds steps an earlier run committed. */
  resume: boolean;
  token: string;
  /** Overrides the plan's `agent:` and the config's `agent`. */
  agent?: AgentName;
  /** Overrides `specs_root` of .github/harness.yml. */
  specsRoot?: string;
}

export class WorkerInputError extends HarnessError {}

const PHASE_TARGET = /^phase-(\d{2,})$/;

/** Read the inputs through `get` (core.getInput on a runner: trimmed, "" when absent). */
export function parseInputs(get: (name: string) => string): WorkerInputs {
  const spec = get('spec');
  if (!SPEC_ID.test(spec)) throw new WorkerInputError(`input spec: "${spec}" is not a spec id like SPC-002`);
  const plan = get('plan');
  const phase = PHASE_TARGET.exec(plan);
  let target: WorkerTarget;
  if (phase) target = { kind: 'phase', phase: phase[1]! };
  else if (PLAN_ID.test(plan)) target = { kind: 'plan', plan };
  else throw new WorkerInputError(`input plan: "${plan}" is neither a plan id like 03-02 nor a phase like phase-03`);
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
  const specsRoot = get('specs-root');
  if (specsRoot) inputs.specsRoot = specsRoot;
  return inputs;
}
