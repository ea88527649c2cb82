import { planIssueView, type PlanIssueView } from '../../engine/forge/plan-issue-view.js';
import { scopePlans } from '../../engine/forge/scope-plans.js';
import { LABEL_PLAN, specLabel } from '../../engine/forge/names.js';
import { listIssuesWithLabels, type IssueRecord } from '../resources/issues.js';
import type { Invocation } from './invocation.js';

/** A spec's plan issues as read, and the commands' view of them. */
export interface PlanIssues {
  views: PlanIssueView[];
  records: IssueRecord[];
}

/**
 * A spec's plan issues, open and closed, in one paginated list call (labels `harness:plan`
 * and `spec:<id>`, state all), the same read a scheduling round makes.
 */
export async function planIssues(inv: Invocation, spec: string): Promise<PlanIssues> {
  const records = await listIssuesWithLabels(inv.octokit, inv.repo, [LABEL_PLAN, specLabel(spec)]);
  const views = records
    .map((r) => planIssueView({ number: r.number, title: r.title, body: r.body, state: r.state, state_reason: r.stateReason, labels: r.labels }))
    .filter((v): v is PlanIssueView => v !== undefined && v.spec === spec);
  return { views, records };
}

/**
 * The issues as they are after this command's label changes, for the scheduling round it
 * starts: handing them over saves the round reading them again.
 */
export function issuesNow(issues: PlanIssues): IssueRecord[] {
  const labels = new Map(issues.views.map((v) => [v.number, v.labels]));
  return issues.records.map((r) => ({ ...r, labels: labels.get(r.number) ?? r.labels }));
}

/**
 * One plan's issue: the one the command was written on (or whose check run's button was
 * pressed) when it is that plan's, which saves the list call, else from the spec's list. A
 * plan the spec does not have (or no longer has) gives the message to answer with, naming
 * the plans it does have.
 */
export async function findPlan(inv: Invocation, spec: string, plan: string): Promise<{ view: PlanIssueView; issues?: PlanIssues } | string> {
  const { place } = inv;
  const here = place.kind === 'issue' || place.kind === 'check' ? place.plan : undefined;
  if (here && here.spec === spec && here.plan === plan) return place.kind === 'check' && place.issues ? { view: here, issues: place.issues } : { view: here };
  const issues = await planIssues(inv, spec);
  const scoped = scopePlans(spec, issues.views, { kind: 'plan', plan });
  return scoped.ok ? { view: scoped.plans[0]!, issues } : scoped.message;
}
