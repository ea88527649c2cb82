import type { Command } from '../../engine/forge/command.js';
import { keptWorkRef } from '../../engine/forge/claims.js';
import { planBranch } from '../../engine/forge/names.js';
import { scheduleRound } from '../schedule/round.js';
import { resolveSpec, roundBase, type Invocation } from './invocation.js';
import { findPlan, issuesNow, setStatus } from './plan-issues.js';
import { isSatisfied } from '../../engine/forge/plan-issue-view.js';

/**
 * `/harness retry <PP-NN>` and the Retry button (docs/github-flow.md, 8): a failed plan starts
 * afresh. Its branch is deleted, because creating the branch is the scheduler's claim on the
 * plan, its commits kept first under refs/harness/kept/; the plan is queued again (`status=queued`
 * on its marker line, `status:ready` or `blocked` its label) and a scheduling round picks it up.
 * A queued plan gets a round, which releases a claim left by a delivery that died before
 * dispatching. Only a plan the App recorded as failed is retried: anything else is running,
 * waiting or done, and retrying it would lose work; a `status:failed` label someone added is not
 * the record.
 */
export async function retry(inv: Invocation, command: Extract<Command, { name: 'retry' }>): Promise<string> {
  const choice = await resolveSpec(inv, command.spec, (spec) => `/harness retry ${spec}/${command.plan}`);
  if (!choice.ok) return `I could not run that: ${choice.message}.`;
  const { spec } = choice;
  const found = await findPlan(inv, spec, command.plan);
  if (typeof found === 'string') return `I could not run that: ${found}.`;
  const { view } = found;
  // Where the plan is, the App's record says: a label someone changed retries nothing.
  const state = isSatisfied(view) ? 'done' : view.state;
  if (state === 'queued') {
    // A ready plan no round could start: its claim may be one whose delivery died. The round recovers such a claim.
    const round = await scheduleRound(inv.context, spec, {
      config: await inv.config(),
      ...(found.issues ? { issues: issuesNow(found.issues) } : {}),
      ...(await roundBase(inv)),
    });
    return round.dispatched.includes(view.plan)
      ? `${spec} plan ${view.plan} (#${view.number}) was queued and is started now.`
      : `${spec} plan ${view.plan} (#${view.number}) is queued, not failed: a scheduling round starts it as soon as a slot is free (a claim on it is released once it has had no worker for two minutes).`;
  }
  if (state !== 'failed') {
    const now = state === undefined ? 'not queued (run it with execute)' : state;
    return `${spec} plan ${view.plan} (#${view.number}) is ${now}, not failed: retry only starts a failed plan again.`;
  }

  const branch = planBranch(spec, view.plan);
  const kept = await keepWork(inv, spec, view.plan, branch);
  const deleted = await inv.github.deleteBranch(branch);
  await setStatus(inv, view, 'ready');
  await scheduleRound(inv.context, spec, {
    config: await inv.config(),
    ...(found.issues ? { issues: issuesNow(found.issues) } : {}),
    ...(await roundBase(inv)),
  });
  return [
    `Retrying ${spec} plan ${view.plan} (#${view.number}): ${deleted === 'deleted' ? `its branch \`${branch}\` is deleted` : `its branch \`${branch}\` was already gone`} and the plan is ready again.`,
    'A scheduling round starts it as soon as a slot is free.',
    ...(kept ? [`What the branch held is kept at \`${kept}\` (\`git fetch origin ${kept}\` to look at it).`] : []),
  ].join(' ');
}

/**
 * The branch's commits, kept under refs/harness/kept/ before the branch goes: a plan stopped
 * at a checkpoint (aborted, or failed) may hold hours of an agent's work, and starting afresh
 * must not make it unreachable. One read when there is no branch; a branch that holds nothing
 * but what it was claimed at is kept too, which costs one ref and loses nothing.
 */
async function keepWork(inv: Invocation, spec: string, plan: string, branch: string): Promise<string | undefined> {
  const head = await inv.github.branchSha(branch);
  if (head === undefined) return undefined;
  const ref = keptWorkRef(spec, plan, head);
  await inv.github.createClaimRef(ref, head);
  return ref;
}
