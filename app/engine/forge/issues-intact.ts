import { matchPlanIssues, type TrackedIssue } from './match-issues.js';
import { issueUnchanged } from './plan-issue.js';

/**
 * Are a spec's plan issues exactly as the last sync left them? Each plan's issue still
 * hashes to its marker (nobody edited title, body or harness's labels), no plan has two
 * open issues, and every listed issue names its plan. This, with a completed `harness /
 * spec` check run on the same commit, is what lets a redelivered webhook end after two
 * reads and no write.
 */
export function issuesIntact(specId: string, issues: readonly TrackedIssue[]): boolean {
  const { byPlan, duplicates, unknown } = matchPlanIssues(specId, issues);
  if (duplicates.length > 0 || unknown.length > 0) return false;
  return [...byPlan.values()].every((i) => issueUnchanged(i));
}
