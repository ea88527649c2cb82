import { parseMarker } from './plan-issue.js';

/** A plan issue as the sync reads it from GitHub's issue list. */
export interface TrackedIssue {
  /** Database id: what GitHub's issue dependencies take. */
  id: number;
  number: number;
  title: string;
  body: string | null;
  labels: readonly string[];
  state: 'open' | 'closed';
  stateReason: string | null;
}

/** What the rule looks at: an issue's number, marker (or title) and state (which it leaves to the caller). */
export type MatchableIssue = Pick<TrackedIssue, 'number' | 'title' | 'body' | 'state' | 'stateReason'>;

export interface MatchedIssues<T extends MatchableIssue> {
  /**
   * The issue of each plan, for plans in the spec and plans removed from it: the
   * lowest-numbered one, so that every delivery picks the same. Its state is not asked: the
   * App closes only the later copies as duplicates, and anyone with the triage role can close
   * an issue as a duplicate (or reopen one), which makes no issue the plan's or stop being it.
   */
  byPlan: Map<string, T>;
  /** Open issues of a plan that has one already, which two racing first syncs can leave. */
  duplicates: { issue: T; of: T }[];
  /** Issues listed under the spec's labels that name no plan (marker gone, title changed). */
  unknown: T[];
}

const TITLE_ID = /^\[(\d+-\d+)\] /;

/** Which plan an issue is for: its marker, or, when someone deleted the marker, its title. */
function planOf(specId: string, issue: MatchableIssue): string | undefined {
  const marker = parseMarker(issue.body);
  if (marker) return marker.spec === specId ? marker.plan : undefined;
  return TITLE_ID.exec(issue.title)?.[1];
}

/**
 * Group a spec's listed issues by plan; see MatchedIssues for the rules. This is THE rule for
 * which issue is a plan's: the sync, the scheduling rounds, the commands and the worker all
 * take a plan's issue from it (app/gateway/plan-issues.ts lists and matches once).
 */
export function matchPlanIssues<T extends MatchableIssue>(specId: string, issues: readonly T[]): MatchedIssues<T> {
  const groups = new Map<string, T[]>();
  const unknown: T[] = [];
  for (const issue of issues) {
    const plan = planOf(specId, issue);
    if (plan === undefined) unknown.push(issue);
    else groups.set(plan, [...(groups.get(plan) ?? []), issue]);
  }
  const byPlan = new Map<string, T>();
  const duplicates: { issue: T; of: T }[] = [];
  for (const [plan, group] of groups) {
    const ordered = [...group].sort((a, b) => a.number - b.number);
    const first = ordered[0]!;
    byPlan.set(plan, first);
    for (const extra of ordered.slice(1)) if (extra.state === 'open') duplicates.push({ issue: extra, of: first });
  }
  return { byPlan, duplicates, unknown };
}
