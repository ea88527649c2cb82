import { PLAN_ID, SPEC_ID } from '../core/spec/schema.js';
import { phaseCheck, planBranch, planCheck } from './names.js';

/**
 * What one worker run is for: a plan, or the verification of a phase. The worker workflow
 * takes both through its `plan` input (a phase as `phase-PP`), and the same word names the
 * branch (`harness/<spec>/<plan>` or `harness/<spec>/phase-PP`) and the run's title.
 */
export type PlanOrPhase = { kind: 'plan'; plan: string } | { kind: 'phase'; phase: string };

/** A target with its spec, as the App names runs, branches and check runs. */
export type WorkerTarget = PlanOrPhase & { spec: string };

const PHASE_INPUT = /^phase-(\d{2,})$/;

/** The worker's `plan` input: the plan id, or `phase-PP` (of a target with its spec or without). */
export function targetInput(target: WorkerTarget | PlanOrPhase): string {
  return target.kind === 'plan' ? target.plan : `phase-${target.phase}`;
}

/** The worker's `plan` input read back, checked: a plan id or `phase-PP`. */
export function parseTargetInput(input: string): PlanOrPhase | undefined {
  if (PLAN_ID.test(input)) return { kind: 'plan', plan: input };
  const phase = PHASE_INPUT.exec(input);
  return phase ? { kind: 'phase', phase: phase[1]! } : undefined;
}

export function targetBranch(target: WorkerTarget): string {
  return planBranch(target.spec, targetInput(target));
}

export function targetCheck(target: WorkerTarget): string {
  return target.kind === 'plan' ? planCheck(target.plan) : phaseCheck(target.phase);
}

/** The check run's `external_id`, which is how a `check_run` event names its spec. */
export function targetExternalId(target: WorkerTarget): string {
  return `${target.spec}/${targetInput(target)}`;
}

/** The worker workflow's `run-name` (templates/workflows/harness-worker.yml), which `workflow_run` carries as `display_title`. */
export function workerRunTitle(target: WorkerTarget): string {
  return `harness ${targetExternalId(target)}`;
}

/** `<spec>/<plan>` or `<spec>/phase-PP`, checked, from whatever carries it. */
export function parseTargetId(text: string | null | undefined): WorkerTarget | undefined {
  const slash = (text ?? '').indexOf('/');
  if (slash === -1) return undefined;
  const spec = text!.slice(0, slash);
  const rest = text!.slice(slash + 1);
  const target = SPEC_ID.test(spec) ? parseTargetInput(rest) : undefined;
  return target && { ...target, spec };
}

export function parseWorkerRunTitle(title: string | null | undefined): WorkerTarget | undefined {
  const m = /^harness (\S+)$/.exec(title ?? '');
  return m ? parseTargetId(m[1]) : undefined;
}

/** A plan or phase branch; knowledge branches (`harness/knowledge/…`) and anything else give undefined. */
export function parseTargetBranch(ref: string | null | undefined): WorkerTarget | undefined {
  const m = /^harness\/(.+)$/.exec(ref ?? '');
  return m ? parseTargetId(m[1]) : undefined;
}

/**
 * A spike's worker run. The worker workflow checks out `harness/<spec>/<plan>`, and a spike's
 * branch is `harness/knowledge/spike/<slug>` (knowledgeBranch): so a spike is dispatched with
 * the spec input `knowledge` and the plan input `spike/<slug>`, which name its branch the way a
 * plan's name its own, title its run `harness knowledge/spike/<slug>`, and need no change to a
 * repository's copy of the workflow. No spec id can be `knowledge` (SPEC_ID), so nothing else
 * reads these inputs as a plan.
 */
export interface SpikeTarget {
  kind: 'spike';
  slug: string;
}

export const SPIKE_SPEC_INPUT = 'knowledge';
const SPIKE_PLAN_INPUT = /^spike\/([a-z0-9]+(?:-[a-z0-9]+)*)$/;

/** The worker's `spec` and `plan` inputs for a spike. */
export function spikeInputs(slug: string): { spec: string; plan: string } {
  return { spec: SPIKE_SPEC_INPUT, plan: `spike/${slug}` };
}

/** The inputs read back as a spike, or undefined when they name a plan or a phase (or nothing valid). */
export function parseSpikeInputs(spec: string, plan: string): SpikeTarget | undefined {
  const m = spec === SPIKE_SPEC_INPUT ? SPIKE_PLAN_INPUT.exec(plan) : null;
  return m ? { kind: 'spike', slug: m[1]! } : undefined;
}

/** The run's title for a spike, as the workflow's `run-name` makes it from the inputs. */
export function spikeRunTitle(slug: string): string {
  const inputs = spikeInputs(slug);
  return `harness ${inputs.spec}/${inputs.plan}`;
}

export function parseSpikeRunTitle(title: string | null | undefined): SpikeTarget | undefined {
  const m = /^harness ([^/\s]+)\/(\S+)$/.exec(title ?? '');
  return m ? parseSpikeInputs(m[1]!, m[2]!) : undefined;
}
