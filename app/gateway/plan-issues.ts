import { matchPlanIssues, type MatchedIssues } from '../engine/forge/match-issues.js';
import { isStatusLabel, LABEL_PLAN, phaseLabel, specLabel, statusLabel, type StatusValue } from '../engine/forge/names.js';
import { withStatus } from '../engine/forge/with-status.js';
import { listIssuesWithLabels, type IssueRecord } from './issues.js';
import { addLabels, removeLabel } from './labels.js';
import type { GatewayRequest, Repo } from './request.js';

/** A spec's plan issues: every one listed, and each plan's own, duplicates resolved. */
export interface SpecIssues extends MatchedIssues<IssueRecord> {
  /** Every issue under the spec's labels, open and closed, pull requests aside, in GitHub's order. */
  listed: IssueRecord[];
}

/**
 * A spec's plan issues in one paginated list call (labels `harness:plan,spec:<id>`, state
 * all, 100 a page), matched to their plans by THE rule (matchPlanIssues: the
 * lowest-numbered issue not closed as a duplicate), so that the sync, a round, a command
 * and the worker all act on the same issue of a plan. Only issues a bot opened count: the
 * labels need the triage role, but the marker is text anyone with it could type.
 *
 * With `phase`, only that phase's issues (label `phase:PP` too): one page for a phase of up to
 * 100 plans, where a 1,000-plan spec lists ten. A plan's issues (and their duplicates) all
 * carry their phase's label, so the rule picks the same one; a caller that does not find its
 * plan there (someone took the label off) lists the whole spec.
 */
export async function listSpecIssues(request: GatewayRequest, repo: Repo, spec: string, phase?: string): Promise<SpecIssues> {
  // Plan issues are the App's (the spec PR sync opens them): an issue a person or no one opened with the labels and a marker typed in is not a plan's.
  const labels = [LABEL_PLAN, specLabel(spec), ...(phase === undefined ? [] : [phaseLabel(phase)])];
  const listed = (await listIssuesWithLabels(request, repo, labels)).filter((i) => i.authorType === 'Bot');
  return { listed, ...matchPlanIssues(spec, listed) };
}

/**
 * Has any of a spec's plan issues changed since `since` (ISO 8601)? One request: GET
 * /repos/{owner}/{repo}/issues?labels=harness:plan,spec:<id>&state=all&since=<since>&per_page=1,
 * which lists only issues updated at or after that time. No: the issues are as they were then,
 * without listing them (a spec of 1,000 plans is ten pages). An issue deleted outright updates
 * nothing, so a caller that must see deletions lists.
 */
export async function specIssuesChangedSince(request: GatewayRequest, repo: Repo, spec: string, since: string): Promise<boolean> {
  const { data } = await request('GET /repos/{owner}/{repo}/issues', { ...repo, labels: `${LABEL_PLAN},${specLabel(spec)}`, state: 'all', since, per_page: 1 });
  return data.length > 0;
}

/**
 * Moves an issue to `status`, race-safely: the new label is added first (POST …/labels, 200)
 * and the old status labels removed after (DELETE …/labels/{name}, 200), so that the issue
 * is never seen without a status, which would read as "not queued". Adding and removing
 * single labels, rather than writing the whole list, leaves any label someone else changed
 * meanwhile alone; a label already gone (404) is fine. No request when the issue shows that
 * status and no other; no removal when it had none. Returns the labels as they are now.
 */
export async function setStatus(request: GatewayRequest, repo: Repo, issue: { number: number; labels: readonly string[] }, status: StatusValue): Promise<string[]> {
  const label = statusLabel(status);
  if (!issue.labels.includes(label)) await addLabels(request, repo, issue.number, [label]);
  for (const old of issue.labels.filter((l) => isStatusLabel(l) && l !== label)) await removeLabel(request, repo, issue.number, old);
  return withStatus(issue.labels, status);
}

/**
 * Moves an issue from status `from` to `to` only while it is still `from`, as a worker ends
 * its plan (running → verified or failed) long after it read the issue: `to` is added
 * (POST …/labels, whose answer is every label the issue has now), then `from` removed. If the
 * answer shows a status someone set meanwhile (an abort's `failed`, a retry's `ready`), theirs
 * stands: ours is taken off again and `changed` returned. Two requests when nothing moved.
 */
export async function moveStatus(request: GatewayRequest, repo: Repo, issue: number, from: StatusValue, to: StatusValue): Promise<'moved' | 'changed'> {
  const now = await addLabels(request, repo, issue, [statusLabel(to)]);
  const others = now.filter((l) => isStatusLabel(l) && l !== statusLabel(to) && l !== statusLabel(from));
  if (others.length > 0) {
    await removeLabel(request, repo, issue, statusLabel(to));
    return 'changed';
  }
  if (now.includes(statusLabel(from))) await removeLabel(request, repo, issue, statusLabel(from));
  return 'moved';
}
