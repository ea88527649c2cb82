import type { Context } from 'probot';
import { recordedStatus, statusLabel } from '../../engine/forge/names.js';
import { planIssueView } from '../../engine/forge/plan-issue-view.js';
import { withMarkerRecord } from '../../engine/forge/plan-issue.js';
import { issueLike, type IssueRecord } from '../../gateway/issues.js';
import { appGateway } from '../app-gateway.js';

/**
 * Plan issues from before the App recorded each plan's status on its marker line (`status=`):
 * a plan queued, running or at a checkpoint then has its status label and nothing else, and the
 * scheduler, which decides from the record alone, would leave it where it is for ever. The label
 * is taken for the record only when the App itself applied it, as the issue's history says (its
 * last `labeled` event for that label names the App's bot); a label someone with the triage role
 * painted stays a view. One read of the history per such issue, once: the record written, the
 * issue is like any other. Verified plans are confirmed by their merged PR instead
 * (verified-record.ts).
 */
export async function adoptLegacyStatuses(context: Context, spec: string, issues: readonly IssueRecord[]): Promise<IssueRecord[]> {
  const github = appGateway(context);
  const out: IssueRecord[] = [];
  for (const issue of issues) {
    const view = planIssueView(issueLike(issue));
    const legacy =
      view &&
      view.spec === spec &&
      view.open &&
      view.state === undefined &&
      view.verified === undefined &&
      view.removed === undefined &&
      view.shown !== undefined &&
      view.shown !== 'verified';
    if (!legacy) {
      out.push(issue);
      continue;
    }
    const label = statusLabel(view.shown!);
    const last = (await github.issueEvents(issue.number)).filter((e) => e.event === 'labeled' && e.label === label).at(-1);
    if (last?.actor === undefined || last.actor !== (await github.selfLogin())) {
      out.push(issue);
      continue;
    }
    context.log.info(
      `${spec}/${view.plan}: issue #${issue.number} has ${label}, which the App applied before it recorded statuses: recorded as status=${recordedStatus(view.shown!)}`,
    );
    out.push(await github.updateIssue(issue.number, { body: withMarkerRecord(issue.body ?? '', 'status', recordedStatus(view.shown!)) }));
  }
  return out;
}
