import { comparePlanIds } from '../core/spec/model.js';
import type { Target } from './command.js';
import { isRemoved, type PlanIssueView } from './plan-issue-view.js';

export type Scoped = { ok: true; plans: PlanIssueView[] } | { ok: false; message: string };

/** The spec's live plans a target names, in plan order; a target naming nothing is explained. */
export function scopePlans(spec: string, views: readonly PlanIssueView[], target: Target): Scoped {
  const live = views.filter((v) => !isRemoved(v)).sort((a, b) => comparePlanIds(a.plan, b.plan));
  if (live.length === 0) {
    return { ok: false, message: `${spec} has no plan issues yet: they are made when the spec's pull request passes the \`harness / spec\` check` };
  }
  const plans = live.filter((v) => target.kind === 'all' || (target.kind === 'phase' ? v.phase === target.phase : v.plan === target.plan));
  if (plans.length > 0) return { ok: true, plans };
  if (target.kind === 'phase') {
    const phases = [...new Set(live.map((v) => v.phase))].sort();
    return { ok: false, message: `${spec} has no phase ${target.phase}; its phases are ${phases.join(', ')}` };
  }
  return { ok: false, message: `${spec} has no plan ${target.kind === 'plan' ? target.plan : ''}; its plans are ${live.map((v) => v.plan).join(', ')}` };
}
