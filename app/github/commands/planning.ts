import type { Command } from '../../engine/forge/command.js';
import { isPlanningName, planningWords, type PlanningRequest } from '../../engine/planning/planning-command.js';
import { PLANNING_CHECK, planningBranch, planningExternalId, planningInput } from '../../engine/planning/planning-target.js';
import { GitHubError } from '../../gateway/github-error.js';
import { resolveSpec, type Invocation } from './invocation.js';

export function isPlanningCommand(command: Command): command is PlanningRequest {
  return isPlanningName(command.name);
}

/**
 * A planning command on a spec PR (docs/github-flow.md, 10): the job is claimed by creating
 * `harness/<spec>/planning/<pr>/<comment>` at the PR's head (a redelivered or repeated comment
 * finds it taken), the `harness / planning` check run is opened on that head, and the worker is
 * dispatched on the PR's base with the plan input `planning/<pr>/<comment>`. The worker reads
 * the command back from the comment, writes and checks the documents, pushes them to the PR's
 * branch and answers in the conversation. Authorisation and forks are refusal.ts's, before this.
 */
export async function planning(inv: Invocation, command: PlanningRequest, commentId: number | undefined): Promise<string> {
  const words = planningWords(command);
  if (inv.place.kind !== 'pull' || commentId === undefined) {
    return `I could not run that: \`${words}\` works on a spec pull request, where its documents are committed for review; write it there.`;
  }
  const choice = await resolveSpec(inv, command.spec, (spec) => `/harness ${command.name} ${spec}${'phase' in command ? `/${command.phase}` : ''}`);
  if (!choice.ok) return `I could not run that: ${choice.message}.`;
  const { spec } = choice;
  const pull = await inv.github.pullRequest(inv.place.number);
  const head = await inv.github.branchSha(pull.headRef);
  if (head === undefined) return `I could not run that: the branch \`${pull.headRef}\` of this pull request is gone.`;

  const target = { pull: pull.number, comment: commentId };
  const branch = planningBranch(spec, target);
  if ((await inv.github.createBranch(branch, head)) === 'exists') {
    return `\`${words}\` for this comment is started already (\`${branch}\`); its answer comes here when it ends.`;
  }
  const check = await inv.github.createCheckRun({
    name: PLANNING_CHECK,
    head_sha: head,
    status: 'queued',
    external_id: planningExternalId(spec, target),
    output: {
      title: `${words}: queued`,
      summary: `\`${words}\` for ${spec}, asked by @${inv.actor}: the worker writes the documents, checks them and commits them to \`${pull.headRef}\`.`,
    },
  });
  try {
    await inv.github.dispatchWorker(pull.baseRef, { spec, plan: planningInput(target), resume: false });
  } catch (e) {
    if (!(e instanceof GitHubError)) throw e;
    await inv.github.updateCheckRun(check.id, {
      status: 'completed',
      conclusion: 'failure',
      output: { title: `${words}: not started`, summary: e.explanation },
    });
    await inv.github.deleteBranch(branch);
    return `I could not start \`${words}\`: ${e.explanation}. Nothing was changed; once that is fixed, write the command again.`;
  }
  return `Started \`${words}\` for ${spec}: the worker (on \`${pull.baseRef}\`) writes the documents, checks them with harness's validator, commits them to \`${pull.headRef}\` and answers here with what it wrote and what to look at.`;
}
