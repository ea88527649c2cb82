import type { Context } from 'probot';
import { planBranch, statusLabel } from '../../engine/forge/names.js';
import { isSatisfied, looksSatisfied, planIssueView } from '../../engine/forge/plan-issue-view.js';
import { planTextFromBody, VERIFIED_BY_SPEC, withMarkerRecord } from '../../engine/forge/plan-issue.js';
import { parsePlan } from '../../engine/core/spec/plan.js';
import { PLAN_READING } from '../../engine/importers/dialects.js';
import type { IssueRecord } from '../../gateway/issues.js';
import { appGateway } from '../app-gateway.js';
import { issueLike } from '../../gateway/issues.js';

/**
 * What says a plan is done (docs/github-flow.md, 3). GitHub lets the triage role close an
 * issue and add labels, so "closed as completed with status:verified" is a mirror anyone with
 * that role can paint. What only the App and writers can produce is the plan PR's merge
 * (merging needs write access) and the issue's body (only its author, the App, and writers
 * can edit it): when a plan PR merges, the App writes the PR's number on the marker line
 * (`verified=`), and work the spec marks `completed:` is recorded as `verified=spec` by the
 * sync. A plan is satisfied only with that record (isSatisfied).
 */

/** The body of a plan issue with the App's record that the plan PR `pull` merged. */
export function withMergeRecord(body: string | null, pull: number): string {
  return withMarkerRecord(body ?? '', 'verified', String(pull));
}

/**
 * The evidence for a plan that looks done but carries no record: `completed:` in the plan
 * text the App wrote into the body, or a merged pull request from the plan's branch (one
 * read, GET /pulls?head=<owner>:harness/<spec>/<plan>&state=closed). A branch of this
 * repository, which only writers can push; a fork's is never listed.
 */
async function evidence(context: Context, spec: string, issue: IssueRecord, plan: string, phase: string): Promise<string | undefined> {
  const text = planTextFromBody(issue.body);
  if (text !== undefined && parsePlan(`${plan}-PLAN.md`, text, phase, PLAN_READING).plan?.completed !== undefined) return VERIFIED_BY_SPEC;
  const pulls = await appGateway(context).pullRequests({ head: planBranch(spec, plan), state: 'closed' });
  const merged = pulls.filter((p) => p.mergedAt !== null).sort((a, b) => a.number - b.number)[0];
  return merged === undefined ? undefined : String(merged.number);
}

/**
 * The spec's plan issues with the mirror corrected where it claims more than the evidence:
 * an issue closed as completed with status:verified but no `verified=` record is either
 * recorded (its plan PR did merge, or the spec marks it done: issues from before the record
 * existed, a merge whose delivery was lost) or reopened with status:verified taken off, so
 * that it reads, to people and to every round, as what it is: not done. No request for an
 * issue whose mirror and record agree, which is every issue harness alone wrote.
 */
export async function confirmVerified(context: Context, spec: string, issues: readonly IssueRecord[]): Promise<IssueRecord[]> {
  const github = appGateway(context);
  const out: IssueRecord[] = [];
  for (const issue of issues) {
    const view = planIssueView(issueLike(issue));
    if (!view || view.spec !== spec || !looksSatisfied(view) || isSatisfied(view)) {
      out.push(issue);
      continue;
    }
    const found = await evidence(context, spec, issue, view.plan, view.phase);
    if (found !== undefined) {
      out.push(await github.updateIssue(issue.number, { body: withMarkerRecord(issue.body ?? '', 'verified', found) }));
      continue;
    }
    context.log.warn(`${spec}/${view.plan}: issue #${issue.number} is closed as verified, but no plan PR merged: reopened, status:verified taken off`);
    const reopened = await github.updateIssue(issue.number, { state: 'open' });
    await github.removeLabel(issue.number, statusLabel('verified'));
    out.push({ ...reopened, labels: issue.labels.filter((l) => l !== statusLabel('verified')) });
  }
  return out;
}
