import type { Command } from '../../engine/forge/command.js';
import { planBranch } from '../../engine/forge/names.js';
import { scheduleRound } from '../schedule/round.js';
import { resolveSpec, roundBase, type Invocation } from './invocation.js';
import { findPlan, issuesNow, setStatus } from './plan-issues.js';

/**
 * `/harness retry <PP-NN>` and the Retry button (docs/github-flow.md, 8): a failed plan starts
 * afresh. Its branch is deleted, because creating the branch is the scheduler's claim on the
 * plan; the plan is `status:ready` again and a scheduling round picks it up. Only a failed
 * plan is retried: anything else is running, waiting or done, and retrying it would lose work.
 */
export async function retry(inv: Invocation, command: Extract<Command, { name: 'retry' }>): Promise<string> {
  const choice = await resolveSpec(inv, command.spec, (spec) => `/harness retry ${spec}/${command.plan}`);
  if (!choice.ok) return `I could not run that: ${choice.message}.`;
  const { spec } = choice;
  const found = await findPlan(inv, spec, command.plan);
  if (typeof found === 'string') return `I could not run that: ${found}.`;
  const { view } = found;
  if (view.status !== 'failed') {
    const now = view.status === undefined ? 'not queued (run it with execute)' : view.status;
    return `${spec} plan ${view.plan} (#${view.number}) is ${now}, not failed: retry only starts a failed plan again.`;
  }

  const branch = planBranch(spec, view.plan);
  const deleted = await inv.github.deleteBranch(branch);
  await setStatus(inv, view, 'ready');
  await scheduleRound(inv.context, spec, { config: await inv.config(), ...(found.issues ? { issues: issuesNow(found.issues) } : {}), ...(await roundBase(inv)) });
  return [
    `Retrying ${spec} plan ${view.plan} (#${view.number}): ${deleted === 'deleted' ? `its branch \`${branch}\` is deleted` : `its branch \`${branch}\` was already gone`} and the plan is ready again.`,
    'A scheduling round starts it as soon as a slot is free.',
  ].join(' ');
}
