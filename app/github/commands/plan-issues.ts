import { recordedStatus, type StatusValue } from '../../engine/forge/names.js';
import { planIssueView, type PlanIssueView } from '../../engine/forge/plan-issue-view.js';
import { scopePlans } from '../../engine/forge/scope-plans.js';
import type { IssueRecord } from '../../gateway/issues.js';
import { issueLike } from '../../gateway/issues.js';
import { confirmVerified } from '../schedule/verified-record.js';
import type { Invocation, PlanIssues } from './invocation.js';

export type { PlanIssues } from './invocation.js';

/**
 * A spec's plan issues, open and closed, in one paginated list call (labels `harness:plan`
 * and `spec:<id>`, state all), the same read a scheduling round makes: each plan's issue as
 * the gateway resolves it, so that a command acts on the issue the round schedules.
 */
export async function planIssues(inv: Invocation, spec: string): Promise<PlanIssues> {
  return planIssuesOf(inv, spec, [...(await inv.github.planIssues(spec)).byPlan.values()]);
}

/** Each plan's issue as the caller has them (a sync's answer), as planIssues gives them: no list read. */
export async function planIssuesOf(inv: Invocation, spec: string, issues: readonly IssueRecord[]): Promise<PlanIssues> {
  const records = await confirmVerified(inv.context, spec, issues);
  const views = records.map((r) => planIssueView(issueLike(r))).filter((v): v is PlanIssueView => v !== undefined && v.spec === spec);
  return { views, records };
}

/**
 * The issues as they are after this command's status writes (their records and labels), for
 * the scheduling round it starts: handing them over saves the round reading them again.
 */
export function issuesNow(issues: PlanIssues): IssueRecord[] {
  const views = new Map(issues.views.map((v) => [v.number, v]));
  return issues.records.map((r) => {
    const view = views.get(r.number);
    return view ? { ...r, labels: view.labels, body: view.body } : r;
  });
}

/**
 * One plan's issue: the one the command was written on (or whose check run's button was
 * pressed) when it is that plan's, which saves the list call, else from the spec's list. An
 * issue closed as a duplicate is never the plan's (matchPlanIssues), so a command written on
 * one reads the list too. A plan the spec does not have (or no longer has) gives the message
 * to answer with, naming the plans it does have.
 */
export async function findPlan(inv: Invocation, spec: string, plan: string): Promise<{ view: PlanIssueView; issues?: PlanIssues } | string> {
  const { place } = inv;
  const here = place.kind === 'issue' || place.kind === 'check' ? place.plan : undefined;
  if (here && here.spec === spec && here.plan === plan && here.stateReason !== 'duplicate') {
    return place.kind === 'check' && place.issues ? { view: here, issues: place.issues } : { view: here };
  }
  const issues = await planIssues(inv, spec);
  const scoped = scopePlans(spec, issues.views, { kind: 'plan', plan });
  return scoped.ok ? { view: scoped.plans[0]!, issues } : scoped.message;
}

/** Moves the plan to `status` (the gateway's write: the App's record, then the label); the view follows, for what the command does next. */
export async function setStatus(inv: Invocation, view: PlanIssueView, status: StatusValue): Promise<void> {
  await setStatuses(inv, [{ view, status }]);
}

/** Moves several plans at once (the gateway's setStatuses: one request for many labels where GitHub allows); the views follow. */
export async function setStatuses(inv: Invocation, moves: readonly { view: PlanIssueView; status: StatusValue }[]): Promise<void> {
  if (moves.length === 0) return;
  const written = await inv.github.setStatuses(moves.map(({ view, status }) => ({ issue: view, status })));
  moves.forEach(({ view, status }, i) => {
    view.labels = written[i]!.labels;
    view.body = written[i]!.body;
    view.state = recordedStatus(status);
    view.shown = status;
  });
}
