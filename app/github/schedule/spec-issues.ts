import type { Context } from 'probot';
import { planIssueView, type IssueLike } from '../../engine/forge/plan-issue-view.js';
import { LABEL_PLAN, specLabel } from '../../engine/forge/names.js';
import { listIssuesWithLabels, type IssueRecord } from '../resources/issues.js';

/** A spec's plan issues, open and closed: one list call (labels `harness:plan,spec:<id>`), 100 a page. */
export function specIssues(context: Context, spec: string): Promise<IssueRecord[]> {
  return listIssuesWithLabels(context.octokit, context.repo(), [LABEL_PLAN, specLabel(spec)]);
}

/** The engine's view of an issue record (GitHub's own field names). */
export function issueLike(issue: IssueRecord): IssueLike {
  return { number: issue.number, title: issue.title, body: issue.body, state: issue.state, state_reason: issue.stateReason, labels: issue.labels };
}

/** The issue of one plan among a spec's issues: the oldest whose marker names it, as planRound picks. */
export function findPlanIssue(issues: readonly IssueRecord[], spec: string, plan: string): IssueRecord | undefined {
  return [...issues]
    .sort((a, b) => a.number - b.number)
    .find((i) => {
      const view = planIssueView(issueLike(i));
      return view?.spec === spec && view.plan === plan;
    });
}
