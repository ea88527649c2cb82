import type { Context } from 'probot';
import { answerComment, USAGE_LIMIT_CHECKPOINT } from '../../engine/forge/checkpoint-markers.js';
import { statusLabel } from '../../engine/forge/names.js';
import { parseMarker, withMarkerRecord } from '../../engine/forge/plan-issue.js';
import type { IssueRecord } from '../../gateway/issues.js';
import { appGateway } from '../app-gateway.js';

/**
 * Plans paused at the model's usage limit whose reset time has come, resumed by a scheduling
 * round (docs/github-flow.md, 3). The worker records the reset time on the plan issue's
 * marker line (`resume_at=`, outside the hash), so a round sees it in the issue list it reads
 * anyway: no state of the App's own and no extra read. Before that time a round leaves the
 * plan alone; after it, the first round to take the plan's `status:checkpoint` label off
 * resumes it. Taking a label off is the claim: of two racing rounds GitHub answers one 200
 * and the other 404, so the plan is dispatched once (status:running is added first, as in
 * every status write, so the issue is never without a status). The winner answers the
 * pause's checkpoint with `continue` (what the resumed worker passes to the agent's session),
 * dispatches the worker with `resume`, and clears the record. Returns the plans resumed.
 */
export async function resumePaused(context: Context, spec: string, issues: readonly IssueRecord[], base: string, now: Date): Promise<string[]> {
  const github = appGateway(context);
  const resumed: string[] = [];
  const checkpoint = statusLabel('checkpoint');
  const running = statusLabel('running');
  for (const issue of issues) {
    if (issue.state !== 'open' || !issue.labels.includes(checkpoint)) continue;
    const marker = parseMarker(issue.body);
    if (!marker?.resumeAt || marker.resumeAt.getTime() > now.getTime()) continue;
    if (!issue.labels.includes(running)) await github.addLabels(issue.number, [running]);
    if ((await github.removeLabel(issue.number, checkpoint)) === 'absent') {
      context.log.info(`${spec}/${marker.plan}: another round resumed it after its usage limit reset`);
      continue;
    }
    await github.comment(issue.number, answerComment(marker.plan, USAGE_LIMIT_CHECKPOINT, 'continue'));
    try {
      await github.dispatchWorker(base, { spec, plan: marker.plan, resume: true });
    } catch (e) {
      // Without a worker the plan must stay paused, for the next round to try again.
      await github.setStatus({ number: issue.number, labels: [...issue.labels.filter((l) => l !== checkpoint), running] }, 'checkpoint');
      throw e;
    }
    await github.updateIssue(issue.number, { body: withMarkerRecord(issue.body ?? '', 'resume_at', undefined) });
    context.log.info(`${spec}/${marker.plan}: its usage limit reset at ${marker.resumeAt.toISOString()}; resumed`);
    resumed.push(marker.plan);
  }
  return resumed;
}
