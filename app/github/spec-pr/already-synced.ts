import type { Context } from 'probot';
import { issuesIntact } from '../../engine/forge/issues-intact.js';
import { LABEL_PLAN, SPEC_CHECK, specLabel } from '../../engine/forge/names.js';
import { parseSpecCheckId } from '../../engine/forge/spec-check-id.js';
import { listCheckRuns } from '../resources/check-runs.js';
import { listIssuesWithLabels } from '../resources/issues.js';

type Octokit = Context['octokit'];

/**
 * Is there nothing to do for this head commit? A completed `harness / spec` check run on it
 * (its `external_id` names the specs it covered) means this very commit's specs were
 * validated and synced, since a commit's content never changes; and the specs' issues
 * still being exactly as harness wrote them means nobody has changed them since. That is a
 * redelivered webhook or a reopened PR: one read for the check runs and one per spec for
 * its issues, and no write.
 */
export async function alreadySynced(octokit: Octokit, repo: { owner: string; repo: string }, headSha: string): Promise<boolean> {
  const latest = (await listCheckRuns(octokit, repo, headSha, SPEC_CHECK))[0];
  if (latest?.status !== 'completed') return false;
  const entries = parseSpecCheckId(latest.externalId);
  if (!entries) return false;
  for (const { spec } of entries) {
    if (!issuesIntact(spec, await listIssuesWithLabels(octokit, repo, [LABEL_PLAN, specLabel(spec)]))) return false;
  }
  return true;
}
