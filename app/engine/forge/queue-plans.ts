import type { RecordedStatus } from './names.js';
import { comparePlanIds } from '../core/spec/model.js';
import { isRemoved, isSatisfied, type PlanIssueView } from './plan-issue-view.js';

export interface QueueDecision {
  /** Plans to label `status:ready`: every plan they need is verified. */
  ready: PlanIssueView[];
  /** Plans to label `status:blocked`: waiting for what they need. */
  blocked: PlanIssueView[];
  /** Plans left as they are, with the reason: where the App's record says they are. */
  untouched: { view: PlanIssueView; why: RecordedStatus | 'removed' }[];
  /**
   * Plans the blocked ones wait for that nobody has queued: they will not run unless someone
   * executes them too, so the answer names them.
   */
  unqueued: string[];
}

/**
 * `/harness execute` on the scoped plans (docs/github-flow.md, 2): a plan the App has no record
 * of is queued, ready or blocked by its dependencies; a plan with one (queued, running, at a
 * checkpoint, verified or failed, done or removed) is left alone, so running the command twice
 * changes nothing. Only the App's records are read (the marker's `status=`, `verified=` and
 * `removed=`): a status label someone added, or an issue someone closed, changes nothing here.
 */
export function queuePlans(all: readonly PlanIssueView[], scoped: readonly PlanIssueView[]): QueueDecision {
  const byPlan = new Map(all.map((v) => [v.plan, v]));
  const decision: QueueDecision = { ready: [], blocked: [], untouched: [], unqueued: [] };
  for (const view of scoped) {
    const why = recordOf(view);
    if (why !== undefined) decision.untouched.push({ view, why });
    else if (!view.needsUnknown && view.needs.every((d) => byPlan.has(d) && isSatisfied(byPlan.get(d)!))) decision.ready.push(view);
    else decision.blocked.push(view);
  }
  const queued = new Set(decision.ready.concat(decision.blocked).map((v) => v.plan));
  const unqueued = new Set<string>();
  const visit = (plan: string) => {
    const dep = byPlan.get(plan);
    if (queued.has(plan) || unqueued.has(plan) || (dep && recordOf(dep) !== undefined)) return;
    unqueued.add(plan);
    dep?.needs.forEach(visit);
  };
  for (const view of decision.blocked) view.needs.forEach(visit);
  decision.unqueued = [...unqueued].sort(comparePlanIds);
  return decision;
}

/** What the App recorded of a plan, if anything: done, removed, or its recorded status. */
function recordOf(view: PlanIssueView): RecordedStatus | 'removed' | undefined {
  if (isSatisfied(view)) return 'verified';
  if (isRemoved(view)) return 'removed';
  return view.state;
}
