import type { Context } from 'probot';
import { answerComment, USAGE_LIMIT_CHECKPOINT } from '../../engine/forge/checkpoint-markers.js';
import { resumeClaimRef } from '../../engine/forge/claims.js';
import { parseMarker, withMarkerRecord } from '../../engine/forge/plan-issue.js';
import type { IssueRecord } from '../../gateway/issues.js';
import { appGateway } from '../app-gateway.js';
import type { BaseHead } from './dispatch.js';

/**
 * Plans paused at the model's usage limit whose reset time has come, resumed by a scheduling
 * round (docs/github-flow.md, 3). The worker records the pause on the plan issue's marker line
 * (`status=checkpoint` and `resume_at=`, outside the hash), so a round sees it in the issue list
 * it reads anyway: no state of the App's own and no extra read. Before that time a round leaves
 * the plan alone; after it, the first round to create the pause's claim ref (resumeClaimRef)
 * resumes it: of two racing rounds GitHub answers one 201 and the other 422, so the plan is
 * dispatched once. The labels are not asked: anyone with the triage role can take
 * `status:checkpoint` off. The winner answers the pause's checkpoint with `continue` (what the
 * resumed worker passes to the agent's session), dispatches the worker with `resume`, and
 * records the plan running with the reset time cleared, in one write of the body, then the
 * label. A dispatch that fails gives the claim back, for the next round to try again. Returns
 * the plans resumed and the issues as they are after.
 */
export async function resumePaused(
  context: Context,
  spec: string,
  issues: readonly IssueRecord[],
  base: string,
  baseHead: () => Promise<BaseHead>,
  now: Date,
): Promise<{ resumed: string[]; issues: IssueRecord[] }> {
  const github = appGateway(context);
  const resumed: string[] = [];
  const out: IssueRecord[] = [];
  for (const issue of issues) {
    const marker = parseMarker(issue.body);
    if (
      marker?.spec !== spec ||
      marker.status !== 'checkpoint' ||
      marker.verified !== undefined ||
      !marker.resumeAt ||
      marker.resumeAt.getTime() > now.getTime()
    ) {
      out.push(issue);
      continue;
    }
    const claim = resumeClaimRef(spec, marker.plan, marker.resumeAt);
    if ((await github.createClaimRef(claim, (await baseHead()).sha)) === 'exists') {
      context.log.info(`${spec}/${marker.plan}: another round resumed it after its usage limit reset`);
      out.push(issue);
      continue;
    }
    await github.comment(issue.number, answerComment(marker.plan, USAGE_LIMIT_CHECKPOINT, 'continue'));
    try {
      await github.dispatchWorker(base, { spec, plan: marker.plan, resume: true });
    } catch (e) {
      // Without a worker the plan must stay paused, for the next round to try again.
      await github
        .deleteClaimRef(claim)
        .catch((undo: unknown) => context.log.error(`${claim}: could not give the resume claim back after a failed dispatch: ${String(undo)}`));
      throw e;
    }
    const written = await github.setStatus({ ...issue, body: withMarkerRecord(issue.body ?? '', 'resume_at', undefined) }, 'running');
    context.log.info(`${spec}/${marker.plan}: its usage limit reset at ${marker.resumeAt.toISOString()}; resumed`);
    resumed.push(marker.plan);
    out.push({ ...issue, ...written });
  }
  return { resumed, issues: out };
}
