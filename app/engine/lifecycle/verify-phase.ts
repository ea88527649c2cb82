import type { Phase, Spec } from '../core/spec/model.js';
import { verifyPhase, type VerificationReport } from '../core/verify/levels.js';
import type { HumanCheckRef } from './answers.js';
import { verificationFailure } from './failure-reason.js';
import type { PhasePorts } from './ports.js';
import { verifyWithPeople } from './verify-with-people.js';

export type PhaseOutcome = ({ kind: 'verified' } | { kind: 'failed'; reason: string }) & {
  report: VerificationReport;
  /** Milliseconds spent in the checks (not waiting for people). */
  verifyMs: number;
};

/** Every human check phase-level verification runs: each plan's (keyed `<plan>/<check>`), then the phase's own. */
export function phaseHumanChecks(spec: Spec, phase: Phase): HumanCheckRef[] {
  const refs: HumanCheckRef[] = [];
  for (const id of phase.plans) {
    for (const check of spec.planById.get(id)?.mustPass ?? []) if (check.type === 'human') refs.push({ key: `${id}/${check.id}`, check, plan: id });
  }
  for (const check of phase.mustPass) if (check.type === 'human') refs.push({ key: check.id, check });
  return refs;
}

/**
 * Phase-level verification on the merged work, the same on this machine and on a runner: every
 * plan's checks again, then the phase's own, human checks answered through the answers port
 * (a plan's approval given on its issue stands for the same check here). A phase has no issue
 * to ask on: a human check nobody can answer yet fails it, and the reason names the check.
 */
export async function verifyPhaseLevel(spec: Spec, phase: Phase, ports: PhasePorts): Promise<PhaseOutcome> {
  await ports.progress.event({ kind: 'verifying', level: 'phase' });
  const { report, verifyMs } = await verifyWithPeople(
    {
      title: `phase-level verification of phase ${phase.id}`,
      humanChecks: phaseHumanChecks(spec, phase),
      run: (verifyPorts, options) => verifyPhase(spec, phase, verifyPorts, options),
    },
    ports,
  );
  return report.status === 'pass' ? { kind: 'verified', report, verifyMs } : { kind: 'failed', reason: verificationFailure(report), report, verifyMs };
}
