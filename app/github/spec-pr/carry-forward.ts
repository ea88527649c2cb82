import { issuesIntact } from '../../engine/forge/issues-intact.js';
import { SPEC_CHECK } from '../../engine/forge/names.js';
import { parseSpecCheckId } from '../../engine/forge/spec-check-id.js';
import type { CheckConclusion } from '../../gateway/check-runs.js';
import type { Gateway } from '../../gateway/gateway.js';
import { CHECK_RUN_TEXT_MAX } from '../../gateway/limits.js';
import type { TouchedSpec } from './touched-specs.js';

/**
 * A push that leaves every spec the PR changes exactly as it was at the previous head (the
 * base branch merged in, a change elsewhere in the PR): the previous head's `harness /
 * spec` check run names the spec trees it covered, and trees are content-addressed, so
 * when they are the same trees and the plan issues are still as harness left them, the
 * result carries over to the new commit with one write, instead of the spec being read
 * again file by file. Only a clean result carries (no annotations to copy): anything else
 * goes the full way.
 */
export async function carryForward(
  github: Gateway,
  { before, head, touched }: { before: string; head: string; touched: readonly TouchedSpec[] },
): Promise<boolean> {
  const previous = (await github.checkRuns(before, SPEC_CHECK))[0];
  if (previous?.status !== 'completed' || previous.conclusion !== 'success' || previous.output.annotationsCount > 0) return false;
  const entries = parseSpecCheckId(previous.externalId);
  const trees = new Set(touched.map((t) => t.tree));
  if (!entries || entries.length !== trees.size || !entries.every((e) => trees.has(e.tree))) return false;
  for (const { spec } of entries) {
    if (!issuesIntact(spec, (await github.planIssues(spec)).listed)) return false;
  }
  const summary = `The specs are as they were at ${before.slice(0, 7)}, which harness validated and synced: nothing new to write.\n\n${previous.output.summary ?? ''}`;
  await github.createCheckRun({
    name: SPEC_CHECK,
    head_sha: head,
    status: 'completed',
    conclusion: previous.conclusion as CheckConclusion,
    external_id: previous.externalId!,
    output: { title: previous.output.title ?? 'Unchanged', summary: summary.slice(0, CHECK_RUN_TEXT_MAX) },
  });
  return true;
}
