import type { Context } from 'probot';
import { parseTargetBranch } from '../../engine/forge/worker-target.js';
import { updateIssue, type IssueRecord } from '../resources/issues.js';
import { scheduleRound } from './round.js';
import { findPlanIssue, specIssues } from './spec-issues.js';

/**
 * A plan PR merged (`pull_request` closed, merged, head `harness/<spec>/<plan>`;
 * docs/github-flow.md, 6): its plan issue is closed as completed when GitHub did not do it
 * (`Closes #n` closes issues only for pull requests into the default branch), which is what
 * makes the plan satisfy its dependants; then a round starts them.
 */
export async function onPlanMerged(context: Context<'pull_request.closed'>): Promise<void> {
  const pr = context.payload.pull_request;
  if (!pr.merged) return;
  const target = parseTargetBranch(pr.head.ref);
  if (target?.kind !== 'plan') return;
  // A branch of that name in a fork is not harness's claim: forks never drive the app.
  if (pr.head.repo?.full_name !== context.payload.repository.full_name) return;
  const { octokit } = context;
  const repo = context.repo();
  let issues: IssueRecord[] = await specIssues(context, target.spec);
  const record = findPlanIssue(issues, target.spec, target.plan);
  if (!record) context.log.warn(`${target.spec}/${target.plan}: merged, but no plan issue to close`);
  else if (record.state === 'open') {
    await updateIssue(octokit, repo, record.number, { state: 'closed', state_reason: 'completed' });
    issues = issues.map((i) => (i === record ? { ...i, state: 'closed', stateReason: 'completed' } : i));
  }
  await scheduleRound(context, target.spec, { issues, base: pr.base.ref });
}
