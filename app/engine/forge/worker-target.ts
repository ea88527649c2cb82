import { PLAN_ID, SPEC_ID } from '../core/spec/schema.js';
import { phaseCheck, planBranch, planCheck } from './names.js';

/**
 * What one worker run is for: a plan, or the verification of a phase. The worker workflow
 * takes both through its `plan` input (a phase as `phase-PP`), and the same word names the
 * branch (`harness/<spec>/<plan>` or `harness/<spec>/phase-PP`) and the run's title.
 */
export type WorkerTarget = { kind: 'plan'; spec: string; plan: string } | { kind: 'phase'; spec: string; phase: string };

const PHASE_INPUT = /^phase-(\d{2,})$/;

/** The worker's `plan` input: the plan id, or `phase-PP`. */
export function targetInput(target: WorkerTarget): string {
  return target.kind === 'plan' ? target.plan : `phase-${target.phase}`;
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
  if (!SPEC_ID.test(spec)) return undefined;
  if (PLAN_ID.test(rest)) return { kind: 'plan', spec, plan: rest };
  const phase = PHASE_INPUT.exec(rest);
  return phase ? { kind: 'phase', spec, phase: phase[1]! } : undefined;
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
