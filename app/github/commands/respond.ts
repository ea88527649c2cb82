import { answerComment, checkpointOf } from '../../engine/forge/checkpoint-markers.js';
import type { Command } from '../../engine/forge/command.js';
import { baseBranch, resolveSpec, type Invocation } from './invocation.js';
import { findPlan, setStatus } from './plan-issues.js';

/**
 * `/harness respond <PP-NN> <answer…>` and the Approve button (docs/github-flow.md, 7): the
 * answer goes on the plan issue under the marker of the checkpoint it answers (the latest
 * question a bot asked there), the plan is `status:running` again and the worker is
 * dispatched to resume. Only a plan at `status:checkpoint` is answered, which also makes a
 * repeated answer (or a button pressed twice) a no-op rather than a second worker.
 */
export async function respond(inv: Invocation, command: Extract<Command, { name: 'respond' }>): Promise<string> {
  const choice = await resolveSpec(inv, command.spec, (spec) => `/harness respond ${spec}/${command.plan} ${command.answer}`);
  if (!choice.ok) return `I could not run that: ${choice.message}.`;
  const { spec } = choice;
  const found = await findPlan(inv, spec, command.plan);
  if (typeof found === 'string') return `I could not run that: ${found}.`;
  const { view } = found;
  if (view.status !== 'checkpoint') {
    return `${spec} plan ${view.plan} (#${view.number}) is ${view.status ?? 'not queued'}, not waiting at a checkpoint: there is nothing to answer.`;
  }

  // Only a bot's question counts: a marker is just text, and anyone may comment.
  const asked = (await inv.github.comments(view.number))
    .filter((c) => c.authorType === 'Bot')
    .map((c) => checkpointOf(c.body))
    .filter((q) => q?.plan === view.plan)
    .at(-1);
  if (!asked) return `${spec} plan ${view.plan} (#${view.number}) is at a checkpoint, but I found no checkpoint question on its issue to answer.`;

  await inv.github.comment(view.number, answerComment(view.plan, asked.checkpoint, command.answer));
  await setStatus(inv, view, 'running');
  await inv.github.dispatchWorker(await baseBranch(inv), { spec, plan: view.plan, resume: true });
  return `Answered checkpoint \`${asked.checkpoint}\` of ${spec} plan ${view.plan} (#${view.number}) for @${inv.actor}; the worker resumes from what is committed on the plan branch.`;
}
