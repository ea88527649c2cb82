import type { Context } from 'probot';
import type { RoundResult } from './round.js';

/**
 * After a round, the spec PR's sticky status comment (`<!-- harness:status <spec> -->`) is
 * to be refreshed when what it shows changed (docs/github-flow.md, 3).
 *
 * CALL SITE, NOT WIRED: the spec-PR part's `refreshStatusComment(octokit, repo, pull, spec,
 * issues)` (app/github/spec-pr/status-comment.ts) renders from a full `Spec` and needs the
 * spec PR's number. A round has neither: its events (a worker run, a check run, a plan PR)
 * do not name the spec PR, and the plan issues it reads carry no PR number; reading the
 * spec back from the repository would cost a request per file. Wiring it needs the spec PR's
 * number recorded where a round already looks (the plan issues' marker line, as
 * `blocked_by=` is) and a rendering from the plan issues alone. Until then the comment shows
 * what the last spec-PR sync wrote, and each plan issue's label is the live status.
 */
export async function refreshStatus(context: Context, round: RoundResult): Promise<void> {
  if (round.dispatched.length + round.relabelled.length > 0) context.log.debug(`${round.spec}: statuses changed; the spec PR's status comment is not refreshed by rounds yet`);
}
