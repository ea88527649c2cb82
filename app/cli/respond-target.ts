import type { Spec } from '../engine/core/spec/model.js';
import { didYouMean } from '../engine/core/spec/suggest.js';
import { phaseSession } from '../runner/run-state.js';
import { UsageError } from './io.js';

/**
 * The session `harness respond` answers: a plan id as it is, a phase as phase-NN. A target
 * in the phase form that names no phase of the spec says so, with the phases there are,
 * rather than suggesting it is not written as a phase.
 */
export function respondTarget(spec: Spec, target: string): string {
  const phase = /^phase-?(\d+)$/i.exec(target)?.[1];
  if (phase !== undefined) {
    const id = phase.padStart(2, '0');
    if (spec.phases.some((p) => p.id === id)) return phaseSession(id);
    throw new UsageError(`${spec.id} has no phase ${id} (its phases: ${spec.phases.map((p) => `phase-${p.id}`).join(', ')})`);
  }
  if (spec.planById.has(target)) return target;
  const ids = [...spec.planById.keys()];
  const near = didYouMean(target, ids);
  throw new UsageError(`"${target}" is not a plan of ${spec.id}${near || ` (its plans: ${ids.join(', ')}; a phase is phase-NN)`}`);
}
