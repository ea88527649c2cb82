import { secretValues } from '../machine/content-safety.js';
import { leakReason, scanCommits } from '../machine/push-scan.js';

/**
 * The scan before a runner pushes a plan's commits (push-scan.ts), as GitHub's push protection
 * does: the commits since `base` (where the plan left the spec's base, which also holds the
 * writers' `.harness/secrets-allow`), checked out at `root`. Why the push must not happen, with
 * the file and line of each finding and never the value; undefined when nothing was found.
 */
export async function pushGuard(root: string, base: string, branch: string): Promise<{ reason: string; evidence: string } | undefined> {
  const findings = await scanCommits(root, { base, head: 'HEAD', allowFrom: base }, secretValues(process.env));
  const reason = leakReason(findings, `pushed to ${branch}`, `the spec's base branch`);
  return reason === undefined ? undefined : { reason, evidence: findings.map((f) => `${f.where}: ${f.rule}`).join('\n') };
}
