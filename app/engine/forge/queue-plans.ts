import type { StatusValue } from './names.js';
import { comparePlanIds } from '../core/spec/model.js';
import { isSatisfied, type PlanIssueView } from './plan-issue-view.js';

export interface QueueDecision {
  /** Plans to label `status:ready`: every plan they need is verified. */
  ready: PlanIssueView[];
  /** Plans to label `status:blocked`: waiting for what they need. */
  blocked: PlanIssueView[];
  /** Plans left as they are, with the reason (their status, or closed). */
  untouched: { view: PlanIssueView; why: StatusValue | 'closed' }[];
  /**
   * Plans the blocked ones wait for that nobody has queued: they will not run unless someone
   * executes them too, so the answer names them.
   */
  unqueued: string[];
}

/**
 * `/harness execute` on the scoped plans (docs/github-flow.md, 2): a plan without a status is
 * queued, ready or blocked by its dependencies; a plan with one (queued, running, at a
 * checkpoint, verified or failed) is left alone, so running the command twice changes nothing.
 */
export function queuePlans(all: readonly PlanIssueView[], scoped: readonly PlanIssueView[]): QueueDecision {
  const byPlan = new Map(all.map((v) => [v.plan, v]));
  const decision: QueueDecision = { ready: [], blocked: [], untouched: [], unqueued: [] };
  for (const view of scoped) {
    if (!view.open) decision.untouched.push({ view, why: view.status ?? 'closed' });
    else if (view.status !== undefined) decision.untouched.push({ view, why: view.status });
    else if (!view.needsUnknown && view.needs.every((d) => byPlan.has(d) && isSatisfied(byPlan.get(d)!))) decision.ready.push(view);
    else decision.blocked.push(view);
  }
  const queued = new Set(decision.ready.concat(decision.blocked).map((v) => v.plan));
  const unqueued = new Set<string>();
  const visit = (plan: string) => {
    const dep = byPlan.get(plan);
    if (queued.has(plan) || unqueued.has(plan) || (dep && (dep.status !== undefined || !dep.open))) return;
    unqueued.add(plan);
    dep?.needs.forEach(visit);
  };
  for (const view of decision.blocked) view.needs.forEach(visit);
  decision.unqueued = [...unqueued].sort(comparePlanIds);
  return decision;
}
