import type { Context, Probot } from 'probot';
import { parseTargetBranch } from '../../engine/forge/worker-target.js';
import { reviewSignal } from '../../engine/forge/review-signal.js';
import { captureFromApp } from '../commands/signals.js';
import { invocation } from '../commands/invocation.js';

/** The review events: a review requesting changes on a plan's pull request. */
export function reviewSignals(app: Probot): void {
  app.on('pull_request_review.submitted', onReviewSubmitted);
}

/**
 * A review that requests changes on a plan's pull request, by a person (docs/design.md,
 * Knowledge): a `review` signal on the spec's signals PR, with who asked and what they said.
 * Other reviews (approved, commented), pull requests that are not a plan's, and plan branches
 * in forks are none of the loop's.
 */
async function onReviewSubmitted(context: Context<'pull_request_review.submitted'>): Promise<void> {
  const { review, pull_request: pr } = context.payload;
  if (review.state !== 'changes_requested' || review.user?.type === 'Bot') return;
  const target = parseTargetBranch(pr.head.ref);
  if (target?.kind !== 'plan') return;
  if (pr.head.repo?.full_name !== context.payload.repository.full_name) return;
  const by = review.user?.login ?? context.payload.sender.login;
  const inv = invocation(context, by, { kind: 'pull', number: pr.number });
  const draft = reviewSignal({ kind: 'changes-requested', spec: target.spec, plan: target.plan, pr: { number: pr.number, title: pr.title, url: review.html_url }, by, said: review.body ?? '', id: review.id });
  await captureFromApp(inv, { spec: target.spec, drafts: [draft], what: `changes requested on plan PR #${pr.number}`, origin: `review:${review.id}` });
}

/**
 * A plan's pull request closed without merging, by a person (docs/design.md, Knowledge): the
 * work had passed its checks and was not wanted as it was. It becomes a `review` signal on the
 * spec's signals PR, with who closed it and their last comment on it before the close. harness
 * closing its own PRs (a retry) is not a review. Never blocking: what cannot be read or filed is
 * logged, and the claims are released all the same.
 */
export async function noteClosedUnmerged(context: Context<'pull_request.closed'>, target: { spec: string; plan: string }): Promise<void> {
  const { pull_request: pr, sender } = context.payload;
  if (sender.type === 'Bot') return;
  const inv = invocation(context, sender.login, { kind: 'pull', number: pr.number });
  let said = '';
  try {
    const closedAt = pr.closed_at ?? new Date(0).toISOString();
    const theirs = (await inv.github.comments(pr.number)).filter((c) => c.author === sender.login && c.createdAt <= closedAt);
    said = theirs.at(-1)?.body ?? '';
  } catch (e) {
    context.log.warn(`plan PR #${pr.number} closed unmerged: its comments could not be read (${(e as Error).message}); the review signal quotes none`);
  }
  const draft = reviewSignal({ kind: 'closed-unmerged', spec: target.spec, plan: target.plan, pr: { number: pr.number, title: pr.title, url: pr.html_url }, by: sender.login, said, id: pr.id });
  await captureFromApp(inv, { spec: target.spec, drafts: [draft], what: `plan PR #${pr.number} closed without merging`, origin: `review:pr-${pr.number}-closed` });
}
