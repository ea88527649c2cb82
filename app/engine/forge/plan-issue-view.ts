import { isStatusLabel, STATUS_VALUES, type StatusValue } from './names.js';
import { dependsOnFromBody, parseMarker } from './plan-issue.js';
import { comparePlanIds, planPhase } from '../core/spec/model.js';

/** What the commands need of a plan issue, read from its marker, labels and state alone. */
export interface PlanIssueView {
  number: number;
  spec: string;
  plan: string;
  title: string;
  phase: string;
  /**
   * The plans it needs, from what the App wrote in the body (dependsOnFromBody), never from the
   * `needs:` labels, which mirror it and anyone with the triage role can change.
   */
  needs: string[];
  /** The body says nothing of what the plan needs (no **Depends on** line, no plan text): it cannot start. */
  needsUnknown?: true;
  /** Every label's name, people's included. */
  labels: string[];
  /** The status label; none while the plan is planned but not queued. */
  status?: StatusValue;
  open: boolean;
  /** GitHub's state_reason: `completed` when the plan PR merged, `not_planned` when the plan left the spec. */
  stateReason?: string;
  /** The App's record that the plan is done (the marker's `verified=`): the merged plan PR's number, or `spec`. */
  verified?: string;
}

export interface IssueLike {
  number: number;
  title: string;
  body?: string | null;
  state?: string;
  state_reason?: string | null;
  labels?: readonly (string | { name?: string | null })[];
}

export function labelNames(issue: Pick<IssueLike, 'labels'>): string[] {
  return (issue.labels ?? []).map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter((n) => n !== '');
}

/** The view of an issue harness made for a plan; undefined for any other issue. */
export function planIssueView(issue: IssueLike): PlanIssueView | undefined {
  const marker = parseMarker(issue.body);
  if (!marker) return undefined;
  const labels = labelNames(issue);
  const needs = dependsOnFromBody(issue.body);
  const status = labels
    .filter(isStatusLabel)
    .map((l) => l.slice('status:'.length))
    .find((s): s is StatusValue => (STATUS_VALUES as readonly string[]).includes(s));
  const view: PlanIssueView = {
    number: issue.number,
    spec: marker.spec,
    plan: marker.plan,
    title: issue.title.replace(/^\[[^\]]*\]\s*/, ''),
    labels,
    // The plan id names its phase (PP-NN); a `phase:` label is only its mirror.
    phase: planPhase(marker.plan),
    needs: [...(needs ?? [])].sort(comparePlanIds),
    open: issue.state !== 'closed',
  };
  if (needs === undefined) view.needsUnknown = true;
  if (status !== undefined) view.status = status;
  if (issue.state_reason) view.stateReason = issue.state_reason;
  if (marker.verified !== undefined) view.verified = marker.verified;
  return view;
}

/**
 * What the labels and the state say: closed as completed with `status:verified`. Anyone with
 * the triage role can make an issue say so; see isSatisfied.
 */
export function looksSatisfied(view: PlanIssueView): boolean {
  return !view.open && view.stateReason === 'completed' && view.status === 'verified';
}

/**
 * A dependency is satisfied when its issue looks it (docs/github-flow.md, 3) and carries the
 * App's record of why (`verified=` on the marker line: the merged plan PR, or `completed:` in
 * the spec). The record is in the body, which only the App and writers can edit: a triager
 * who closes an issue and labels it verified satisfies nothing (verified-record.ts undoes it).
 */
export function isSatisfied(view: PlanIssueView): boolean {
  return looksSatisfied(view) && view.verified !== undefined;
}

/** A plan taken out of the spec: its issue is closed as not planned, never deleted. */
export function isRemoved(view: PlanIssueView): boolean {
  return !view.open && view.stateReason === 'not_planned';
}
