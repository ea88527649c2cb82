import type { Spec } from '../core/spec/model.js';
import { PHASE_COMMANDS, planningWords, type PlanningCommand } from './planning-command.js';

/**
 * Why a planning command cannot start on this spec, or undefined when it can: a phase command
 * needs its phase in the roadmap, since the phase's goal and checks are what it plans from.
 */
export function planningPrecondition(command: PlanningCommand, spec: Spec): string | undefined {
  if (!PHASE_COMMANDS.has(command.name) || !('phase' in command)) return undefined;
  if (spec.phases.some((p) => p.id === command.phase)) return undefined;
  const known = spec.phases.map((p) => p.id);
  if (known.length === 0) return `\`${planningWords(command)}\`: ${spec.id} has no roadmap yet; write one first with create-roadmap`;
  return `\`${planningWords(command)}\`: ${spec.id}'s roadmap has no phase ${command.phase} (it has ${known.join(', ')}); add one with add-phase "<goal>"`;
}
