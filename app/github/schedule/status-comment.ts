import type { Context } from 'probot';
import { withStatus } from '../../engine/forge/with-status.js';
import { parseMarker } from '../../engine/forge/plan-issue.js';
import { specFromIssues } from '../../engine/forge/spec-from-issues.js';
import type { IssueRecord } from '../../gateway/issues.js';
import { appGateway } from '../app-gateway.js';
import { refreshStatusComment } from '../spec-pr/status-comment.js';
import type { RoundResult } from './round.js';

/**
 * After a round, the spec PR's sticky status comment (`<!-- harness:status <spec> -->`) shows
 * the statuses as they are now (docs/github-flow.md, 3). The PR is the one the plan issues
 * record on their marker line (`pr=`); the spec is rebuilt from the issues' bodies, so this
 * costs one read (the PR's comments) and a write only when the comment's text changed.
 */
export async function refreshStatus(context: Context, round: RoundResult, issues: readonly IssueRecord[]): Promise<void> {
  const after = issues.map((issue) => {
    const plan = parseMarker(issue.body)?.plan;
    const dispatched = plan !== undefined && round.dispatched.includes(plan);
    const relabel = round.relabelled.find((r) => r.plan === plan);
    const labels = dispatched ? withStatus(issue.labels, 'running') : relabel ? withStatus(issue.labels, relabel.to) : issue.labels;
    return { ...issue, labels };
  });
  const prs = after.map((i) => parseMarker(i.body)?.pr).filter((n): n is number => n !== undefined);
  if (prs.length === 0) return;
  const spec = specFromIssues(round.spec, after);
  if (!spec) return;
  // Issues synced from later spec PRs keep the first PR's record; the lowest number is that PR.
  await refreshStatusComment(appGateway(context), Math.min(...prs), spec, after);
}
