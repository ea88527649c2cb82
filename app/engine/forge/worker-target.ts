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
