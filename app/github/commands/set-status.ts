import type { PlanIssueView } from '../../engine/forge/plan-issue-view.js';
import { isStatusLabel, statusLabel, type StatusValue } from '../../engine/forge/names.js';
import { withStatus } from '../../engine/forge/with-status.js';
import type { Invocation } from './invocation.js';

/**
 * Moves a plan issue to `status`: the new label is added first (POST …/labels, 200) and the
 * old ones removed after (DELETE …/labels/{name}, 200), so that the issue is never seen without
 * a status, which would read as "not queued". Adding and removing single labels, rather than
 * writing the whole list, leaves labels that someone else changed meanwhile alone. A label
 * already gone (404) is fine. The view follows, for what the command does next.
 */
export async function setStatus(inv: Invocation, view: PlanIssueView, status: StatusValue): Promise<void> {
  const old = view.labels.filter((l) => isStatusLabel(l) && l !== statusLabel(status));
  if (old.length === 0 && view.status === status) return;
  if (!view.labels.includes(statusLabel(status))) {
    await inv.octokit.rest.issues.addLabels({ ...inv.repo, issue_number: view.number, labels: [statusLabel(status)] });
  }
  for (const name of old) {
    try {
      await inv.octokit.rest.issues.removeLabel({ ...inv.repo, issue_number: view.number, name });
    } catch (e) {
      if ((e as { status?: number }).status !== 404) throw e;
    }
  }
  view.labels = withStatus(view.labels, status);
  view.status = status;
}
