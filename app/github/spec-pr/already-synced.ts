import { issuesIntact } from '../../engine/forge/issues-intact.js';
import { SPEC_CHECK } from '../../engine/forge/names.js';
import { parseSpecCheckId } from '../../engine/forge/spec-check-id.js';
import type { Gateway } from '../../gateway/gateway.js';

/**
 * Is there nothing to do for this head commit? A completed `harness / spec` check run on it
 * (its `external_id` names the specs it covered) means this very commit's specs were
 * validated and synced, since a commit's content never changes; and the specs' issues
 * still being exactly as harness wrote them means nobody has changed them since. That is a
 * redelivered webhook or a reopened PR: one read for the check runs and one per spec asking
 * whether any of its issues was updated since that check completed (else the issues are
 * listed and compared), and no write.
 */
export async function alreadySynced(github: Gateway, headSha: string): Promise<boolean> {
  const latest = (await github.checkRuns(headSha, SPEC_CHECK))[0];
  if (latest?.status !== 'completed') return false;
  const entries = parseSpecCheckId(latest.externalId);
  if (!entries) return false;
  for (const { spec } of entries) {
    // Nothing updated since the sync completed: its issues are as it left them, without listing them all.
    if (latest.completedAt !== undefined && !(await github.specIssuesChangedSince(spec, latest.completedAt))) continue;
    if (!issuesIntact(spec, (await github.planIssues(spec)).listed)) return false;
  }
  return true;
}
