import { withMarkerRecord } from '../engine/forge/plan-issue.js';
import type { IssueRecord } from '../gateway/issues.js';
import type { WorkerForge } from './worker-run.js';

/**
 * The plan issue's `resume_at=` record (plan-issue.ts) set to when the model's usage limit
 * resets, for the App's scheduling rounds to resume the plan after it (resume-paused.ts); for
 * any other checkpoint, a record left from an earlier pause is cleared, so that a question
 * for a person is never answered `continue` by a round. One PATCH, only when it changes.
 */
export async function recordResumeAt(forge: Pick<WorkerForge, 'updateIssue'>, issue: IssueRecord, at: Date | undefined): Promise<void> {
  const body = issue.body ?? '';
  const next = withMarkerRecord(body, 'resume_at', at?.toISOString());
  if (next === body) return;
  const updated = await forge.updateIssue(issue.number, { body: next });
  issue.body = updated.body;
}
