import { abandoned, answerClaimRef, takeoverRef } from '../../engine/forge/claims.js';
import { answerComment, checkpointOf } from '../../engine/forge/checkpoint-markers.js';
import type { Command } from '../../engine/forge/command.js';
import { ACTIONS_BOT, writtenBy } from '../../engine/forge/marker-trust.js';
import { planBranch } from '../../engine/forge/names.js';
import { isSatisfied, type PlanIssueView } from '../../engine/forge/plan-issue-view.js';
import { workerRunTitle } from '../../engine/forge/worker-target.js';
import type { CommentRecord } from '../../gateway/comments.js';
import { baseBranch, resolveSpec, type Invocation } from './invocation.js';
import { findPlan, setStatus } from './plan-issues.js';

/**
 * `/harness respond <PP-NN> <answer…>` and the Approve button (docs/github-flow.md, 7): the
 * answer goes on the plan issue under the marker of the checkpoint it answers (the latest
 * question harness asked there), the worker is dispatched to resume and the plan is
 * `status:running` again.
 *
 * Exactly one worker per question, however many presses or deliveries: the first to create
 * the question's claim ref (engine/forge/claims.ts) answers and dispatches, the others find
 * it taken. The plan stays `status:checkpoint` until the dispatch went through, and a
 * dispatch that fails gives the claim back, so the plan is answerable again rather than
 * stranded at `running` with no worker. A claim whose taker died before dispatching (no
 * worker run for the plan, older than the grace period) is taken over.
 */
export async function respond(inv: Invocation, command: Extract<Command, { name: 'respond' }>): Promise<string> {
  const choice = await resolveSpec(inv, command.spec, (spec) => `/harness respond ${spec}/${command.plan} ${command.answer}`);
  if (!choice.ok) return `I could not run that: ${choice.message}.`;
  const { spec } = choice;
  const found = await findPlan(inv, spec, command.plan);
  if (typeof found === 'string') return `I could not run that: ${found}.`;
  const { view } = found;
  // Where the plan is, the App's record says (the worker recorded the checkpoint), never the label.
  if (view.state !== 'checkpoint' || isSatisfied(view)) {
    return `${spec} plan ${view.plan} (#${view.number}) is ${isSatisfied(view) ? 'done' : (view.state ?? 'not queued')}, not waiting at a checkpoint: there is nothing to answer.`;
  }

  const question = await latestQuestion(inv, view);
  if (!question) return `${spec} plan ${view.plan} (#${view.number}) is at a checkpoint, but I found no checkpoint question by harness on its issue to answer.`;
  const { checkpoint } = checkpointOf(question.body)!;
  const branch = planBranch(spec, view.plan);
  const head = await inv.github.branchSha(branch);
  if (head === undefined) {
    return `${spec} plan ${view.plan} (#${view.number}) waits at checkpoint \`${checkpoint}\`, but its branch \`${branch}\` is gone, so no worker can resume it: retry the plan to start it afresh.`;
  }

  const ref = answerClaimRef(spec, view.plan, question.id);
  const note = `harness: answering checkpoint ${checkpoint} of ${spec}/${view.plan} for @${inv.actor}, then dispatching its worker`;
  let claim = await inv.github.takeClaim(ref, head, note, inv.now());
  if (!claim.won) {
    const running = await workerRunning(inv, spec, view.plan);
    if (running !== undefined || !abandoned(claim.record?.at, inv.now())) {
      // The dispatch went through and the delivery died before the label: the label follows the worker.
      if (running !== undefined) await setStatus(inv, view, 'running');
      return `Checkpoint \`${checkpoint}\` of ${spec} plan ${view.plan} (#${view.number}) is answered already${running !== undefined ? ` and its worker is resuming (run ${running})` : ', and its worker is being dispatched'}: nothing more to do.`;
    }
    inv.log.warn(`${spec}/${view.plan}: the answer claim ${ref} (${claim.record?.note ?? 'no note'}) has no worker behind it; taking it over`);
    // Only the one delivery that takes this claim over (as found) deletes and retakes it.
    const mine = claim.record !== undefined && (await inv.github.takeOver(takeoverRef(spec, view.plan, `answer-${question.id}`, claim.record.id), head));
    if (mine) {
      await inv.github.deleteClaimRef(ref);
      claim = await inv.github.takeClaim(ref, head, note, inv.now());
    }
    if (!claim.won)
      return `Checkpoint \`${checkpoint}\` of ${spec} plan ${view.plan} (#${view.number}) is being answered by another request right now: nothing more to do.`;
  }

  // The answer is the person's text: a harness marker in it (a reply marker, say) must not become one in the App's comment.
  await inv.github.comment(view.number, answerComment(view.plan, checkpoint, command.answer.replace(/<!--/g, '&lt;!--')));
  try {
    await inv.github.dispatchWorker(await baseBranch(inv), { spec, plan: view.plan, resume: true });
  } catch (e) {
    // No worker: the plan stays at its checkpoint and the claim goes, so the next answer (or the button again) dispatches.
    await inv.github
      .deleteClaimRef(ref)
      .catch((undo: unknown) => inv.log.error(`${ref}: could not give the answer claim back after a failed dispatch: ${String(undo)}`));
    throw e;
  }
  await setStatus(inv, view, 'running');
  return `Answered checkpoint \`${checkpoint}\` of ${spec} plan ${view.plan} (#${view.number}) for @${inv.actor}; the worker resumes from what is committed on the plan branch.`;
}

/**
 * The latest checkpoint question on the plan issue that harness asked: a comment by the App's
 * own bot (the token's identity) or by GitHub Actions' bot (a worker without the App's token).
 * A marker typed by anyone else, person or bot, is only text.
 */
async function latestQuestion(inv: Invocation, view: PlanIssueView): Promise<CommentRecord | undefined> {
  const candidates = (await inv.github.comments(view.number)).filter((c) => c.authorType === 'Bot' && checkpointOf(c.body)?.plan === view.plan);
  if (candidates.length === 0) return undefined;
  const authors = [await inv.github.selfLogin(), ACTIONS_BOT];
  return candidates.filter((c) => writtenBy(c, authors)).at(-1);
}

/** The id of a worker run for the plan that has not finished, if there is one. */
async function workerRunning(inv: Invocation, spec: string, plan: string): Promise<number | undefined> {
  const title = workerRunTitle({ kind: 'plan', spec, plan });
  return (await inv.github.unfinishedWorkerRuns()).find((r) => r.displayTitle === title)?.id;
}
