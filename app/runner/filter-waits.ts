import type { Spec } from '../engine/core/spec/model.js';
import type { ScheduleState } from '../engine/core/schedule/state.js';

export interface RunFilter {
  plan?: string;
  phase?: string;
}

/** "--plan 02-01" or "--phase 02", as the person typed it. */
export function filterText(filter: RunFilter): string {
  return filter.plan !== undefined ? `--plan ${filter.plan}` : `--phase ${filter.phase}`;
}

/**
 * Why plans a limited run (--plan, --phase) was asked for did not run: one line each, naming
 * the dependency not verified yet (and its state), the failure that blocks it, (a failed plan, or a phase that failed its verification). Empty when every plan in the filter ran or is done.
 */
export function filterWaits(spec: Spec, state: ScheduleState, filter: RunFilter, reasons: ReadonlyMap<string, string>, specArg: string): string[] {
  if (filter.plan === undefined && filter.phase === undefined) return [];
  const inFilter = (id: string) =>
    (filter.plan === undefined || filter.plan === id) && (filter.phase === undefined || spec.planById.get(id)!.phase === filter.phase);
  const lines: string[] = [];
  for (const plan of spec.plans) {
    if (!inFilter(plan.id)) continue;
    const status = state.plan(plan.id);
    if (status === 'blocked') {
      lines.push(`${plan.id} cannot start: ${reasons.get(plan.id) ?? 'a plan it depends on failed'}; fix that, then harness run ${specArg} --retry`);
      continue;
    }
    if (status !== 'pending' && status !== 'ready') continue;
    const waiting = plan.dependsOn.filter((d) => state.plan(d) !== 'verified');
    const outside = waiting.filter((d) => !inFilter(d));
    if (outside.length > 0) {
      const deps = outside.map((d) => `${d} (${state.plan(d)})`).join(', ');
      const first = outside[0]!;
      lines.push(
        `${plan.id} cannot start yet: it depends on ${deps}, which ${filterText(filter)} leaves out; run ${outside.length === 1 ? 'it' : 'them'} first (harness run ${specArg} --plan ${first}) or run without ${filterText(filter)}`,
      );
      continue;
    }
    if (waiting.length > 0) lines.push(`${plan.id} cannot start yet: it waits for ${waiting.map((d) => `${d} (${state.plan(d)})`).join(', ')}`);
  }
  return lines;
}
