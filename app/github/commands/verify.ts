import { targetToken, type Command } from '../../engine/forge/command.js';
import { scopePlans } from '../../engine/forge/scope-plans.js';
import { planBranch } from '../../engine/forge/names.js';
import { targetInput } from '../../engine/forge/worker-target.js';
import { baseBranch, resolveSpec, type Invocation } from './invocation.js';
import { findPlan, planIssues } from './plan-issues.js';

/**
 * `/harness verify <PP|PP-NN>`: the worker runs the plan's (or the phase's) verification
 * again on its branch (`resume: "true"`); the run's completion reports the result as any run
 * does (docs/github-flow.md, 5). The plan or phase must be the spec's.
 */
export async function verify(inv: Invocation, command: Extract<Command, { name: 'verify' }>): Promise<string> {
  const { target } = command;
  const choice = await resolveSpec(inv, command.spec, (spec) => `/harness verify ${spec}/${targetToken(target)}`);
  if (!choice.ok) return `I could not run that: ${choice.message}.`;
  const { spec } = choice;

  if (target.kind === 'plan') {
    const found = await findPlan(inv, spec, target.plan);
    if (typeof found === 'string') return `I could not run that: ${found}.`;
  } else {
    const scoped = scopePlans(spec, (await planIssues(inv, spec)).views, target);
    if (!scoped.ok) return `I could not run that: ${scoped.message}.`;
  }

  const plan = targetInput(target.kind === 'plan' ? { kind: 'plan', spec, plan: target.plan } : { kind: 'phase', spec, phase: target.phase });
  const ref = await baseBranch(inv);
  await inv.github.dispatchWorker(ref, { spec, plan, resume: true });
  const what = target.kind === 'plan' ? `plan ${target.plan}` : `phase ${target.phase}`;
  return `Verifying ${what} of ${spec} again: the worker is dispatched on \`${ref}\` and resumes \`${planBranch(spec, plan)}\`. Its check run shows the result.`;
}
