import type { Spec } from '../core/spec/model.js';
import type { PlanningCommand } from './planning-command.js';

/**
 * What a planning command is about, for surfacing the lessons, skills and genes its agent
 * should know: the spec's title and SPEC.md for the commands about the whole spec; for a
 * phase's commands also the phase's title, goal and checks, and its plans' titles and files
 * (which is what a lesson's `applies_to` globs match); the goal of a phase being added. The
 * same knowledge reaches the agent that plans the work as reaches the agents that do it. (The
 * shape of the knowledge loop's SurfaceSubject; planning does not depend on that layer.)
 */
export function planningSurfaceSubject(command: PlanningCommand, spec: Spec, specText: string | undefined): { text: string; files: string[] } {
  const text = [spec.title, specText ?? ''];
  const files: string[] = [];
  if ('phase' in command) {
    const phase = spec.phases.find((p) => p.id === command.phase);
    if (phase) {
      text.push(phase.title, phase.goal ?? '', ...phase.mustPass.map((c) => [c.id, c.description ?? ''].join(' ')));
      for (const id of phase.plans) {
        const plan = spec.planById.get(id);
        if (!plan) continue;
        text.push(plan.title, ...plan.truths);
        files.push(...plan.filesModified, ...plan.filesRead);
      }
    }
  }
  if (command.name === 'add-phase') text.push(command.goal);
  return { text: text.filter((t) => t !== '').join('\n'), files: [...new Set(files)] };
}
