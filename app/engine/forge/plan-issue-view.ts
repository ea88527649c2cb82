import { isStatusLabel, STATUS_VALUES, type RecordedStatus, type StatusValue } from './names.js';
import { dependsOnFromBody, parseMarker } from './plan-issue.js';
import { comparePlanIds, planPhase } from '../core/spec/model.js';

/** What the commands need of a plan issue, read from its marker, labels and state alone (decisions from its marker alone). */
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
  /** The body as read: its marker line holds the App's records, which a status write changes. */
  body: string | null;
  /**
   * Where the plan is, as the App recorded it (the marker's `status=`): what every decision
   * reads. None while the plan is planned but not queued.
   */
  state?: RecordedStatus;
  /**
   * The status label: only the view of `state`, which anyone with the triage role can change.
   * Read to put it back where it disagrees (round-plan.ts), and never to decide.
   */
  shown?: StatusValue;
  /** GitHub's state, a view like the labels: anyone with the triage role can close and reopen an issue. */
  open: boolean;
  /** GitHub's state_reason: `completed` when the plan PR merged, `not_planned` when the plan left the spec. */
  stateReason?: string;
  /** The App's record that the plan is done (the marker's `verified=`): the merged plan PR's number, or `spec`. */
  verified?: string;
  /** The App's record that the plan's phase failed its verification (the marker's `phase_failed=`: the worker run). */
  phaseFailed?: string;
  /** The App's record that the plan left the spec (the marker's `removed=`: the spec PR). */
  removed?: number;
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
  const shown = shownStatus(labels);
  const view: PlanIssueView = {
    number: issue.number,
    spec: marker.spec,
    plan: marker.plan,
    title: issue.title.replace(/^\[[^\]]*\]\s*/, ''),
    labels,
    body: issue.body ?? null,
    // The plan id names its phase (PP-NN); a `phase:` label is only its mirror.
    phase: planPhase(marker.plan),
    needs: [...(needs ?? [])].sort(comparePlanIds),
    open: issue.state !== 'closed',
  };
  if (needs === undefined) view.needsUnknown = true;
  if (marker.status !== undefined) view.state = marker.status;
  if (shown !== undefined) view.shown = shown;
  if (issue.state_reason) view.stateReason = issue.state_reason;
  if (marker.verified !== undefined) view.verified = marker.verified;
  if (marker.phaseFailed !== undefined) view.phaseFailed = marker.phaseFailed;
  if (marker.removed !== undefined) view.removed = marker.removed;
  return view;
}

/** The status a plan issue's labels show (the first `status:` label harness knows), if any. */
export function shownStatus(labels: readonly string[]): StatusValue | undefined {
  return labels
    .filter(isStatusLabel)
    .map((l) => l.slice('status:'.length))
    .find((s): s is StatusValue => (STATUS_VALUES as readonly string[]).includes(s));
}

/**
 * What the labels and the state say: closed as completed with `status:verified`. Anyone with
 * the triage role can make an issue say so; see isSatisfied.
 */
export function looksSatisfied(view: PlanIssueView): boolean {
  return !view.open && view.stateReason === 'completed' && view.shown === 'verified';
}

/**
 * A dependency is satisfied when its issue carries the App's record that it is done
 * (docs/github-flow.md, 3): `verified=` on the marker line, the merged plan PR or `completed:`
 * in the spec. The record is in the body, which only the App and writers can edit; the state
 * and the labels only show it. A triager who closes an issue and labels it verified satisfies
 * nothing (verified-record.ts reopens it), and one who reopens a done plan's issue, or takes
 * `status:verified` off it, holds up nothing.
 */
export function isSatisfied(view: PlanIssueView): boolean {
  return view.verified !== undefined;
}

/**
 * A plan taken out of the spec: its issue is closed as not planned with the App's record of the
 * spec PR that did it (`removed=`), never deleted. An issue someone else closed as not planned is
 * still the plan's.
 */
export function isRemoved(view: PlanIssueView): boolean {
  return view.removed !== undefined;
}

/**
 * Queued: a writer's `/harness execute` (or retry) recorded it, and no worker has taken it
 * yet. What its labels say is not asked.
 */
export function isQueued(view: PlanIssueView): boolean {
  return view.state === 'queued' && !isSatisfied(view) && !isRemoved(view);
}

/** Holding a slot: a worker runs it, or it waits at a checkpoint (as recorded). */
export function isActive(view: PlanIssueView): boolean {
  return !isSatisfied(view) && !isRemoved(view) && (view.state === 'running' || view.state === 'checkpoint');
}

/**
 * The status a plan's label should show, from the App's records alone: `verified` when done,
 * the recorded status otherwise, none before a writer queued it. A queued plan shows `ready` or
 * `blocked`, which the caller decides from what it needs (`queuedAs`).
 */
export function expectedStatus(view: PlanIssueView, queuedAs: 'ready' | 'blocked'): StatusValue | undefined {
  if (isSatisfied(view)) return 'verified';
  if (view.state === 'queued') return queuedAs;
  return view.state;
}
