import type { Context, Probot } from 'probot';
import { parseTargetBranch } from '../../engine/forge/worker-target.js';
import { answeringHunk, reviewSignal } from '../../engine/forge/review-signal.js';
import { appGateway } from '../app-gateway.js';
import { captureFromApp } from '../commands/signals.js';
import { invocation, type Invocation } from '../commands/invocation.js';
import { voiceCounts } from './learning-voice.js';

/** The review events: a review requesting changes on a plan's pull request, a push that answers a review comment, a revert of a plan's merge. */
export function reviewSignals(app: Pick<Probot, 'on'>): void {
  app.on('pull_request_review.submitted', onReviewSubmitted);
  app.on('pull_request.synchronize', onPlanPush);
  app.on('pull_request.closed', onRevertMerged);
  app.on('push', onBasePush);
}

/** Commits of one push read for reverts at most. */
const PUSH_COMMITS_MAX = 20;

/**
 * A commit on the default branch that reverts a plan's merge (`Revert "…"`, with git's
 * `This reverts commit <sha>.`): the merged commit's pull request (GET …/commits/{sha}/pulls)
 * is a plan's, merged by that commit, so the plan's work was taken back: a `review` signal with
 * who pushed the revert and what its message says. Only a person whose word counts; once per
 * revert commit.
 */
async function onBasePush(context: Context<'push'>): Promise<void> {
  const { ref, repository, sender, commits } = context.payload;
  if (sender === undefined || ref !== `refs/heads/${repository.default_branch}` || sender.type === 'Bot') return;
  const reverts = commits.slice(0, PUSH_COMMITS_MAX).flatMap((c) => {
    const reverted = /^Revert "[^\n]*"[\s\S]*?\bThis reverts commit ([0-9a-f]{40})\b/.exec(c.message)?.[1];
    return reverted === undefined ? [] : [{ commit: c, reverted }];
  });
  if (reverts.length === 0) return;
  const github = appGateway(context);
  try {
    for (const { commit, reverted } of reverts) {
      const plan = (await github.commitPullRequests(reverted)).find(
        (p) => p.mergedAt !== null && p.mergeCommit === reverted && p.headRepo === repository.full_name && parseTargetBranch(p.headRef)?.kind === 'plan',
      );
      const target = plan && parseTargetBranch(plan.headRef);
      if (!plan || target?.kind !== 'plan') continue;
      const inv = invocation(context, sender.login, { kind: 'pull', number: plan.number });
      if (!(await counts(inv, sender.login, sender.type))) return;
      const said =
        commit.message
          .split('\n')
          .slice(1)
          .filter((l) => !/^This reverts commit [0-9a-f]{40}\.?$/.test(l.trim()))
          .join('\n')
          .trim() || commit.message.split('\n')[0]!;
      const draft = reviewSignal({
        kind: 'reverted',
        spec: target.spec,
        plan: target.plan,
        pr: { number: plan.number, title: plan.title },
        by: sender.login,
        said,
        id: commit.id,
        answer: { commit: commit.id, url: commit.url },
      });
      await captureFromApp(inv, {
        spec: target.spec,
        drafts: [draft],
        what: `plan PR #${plan.number} reverted on ${repository.default_branch}`,
        origin: `review:revert-${commit.id}`,
      });
    }
  } catch (e) {
    context.log.warn(`a push to ${repository.default_branch} reverts a merge: it could not be read (${(e as Error).message}); no review signal`);
  }
}

/** Review comments read back per push at most: the rest wait for the next push (they are filed once, whenever). */
const COMMENTS_MAX = 20;
/** Commits a push's comments were written on, compared with the push at most. */
const COMPARES_MAX = 3;

/** Does this person's word count: the one rule of every learning source (learning-voice.ts). */
async function counts(inv: Invocation, login: string, type: string | undefined): Promise<boolean> {
  return voiceCounts(inv.github, async () => (await inv.config()).permission, { login, type });
}

/**
 * A push to a plan's pull request that changes the line a person's review comment was on
 * (docs/design.md, Knowledge): the comment was addressed, and what they asked with the diff
 * that answered it is a `review` signal. The comments come from GET …/pulls/{n}/comments; each
 * commit they were written on is compared with the pushed head (GET …/compare/{c}...{head}),
 * and a comment whose line a hunk of that file changes is answered. Each comment is filed once
 * (its signal's origin names it), however many pushes follow. Never blocking.
 */
async function onPlanPush(context: Context<'pull_request.synchronize'>): Promise<void> {
  const { pull_request: pr, after } = context.payload;
  const target = parseTargetBranch(pr.head.ref);
  if (target?.kind !== 'plan' || pr.head.repo?.full_name !== context.payload.repository.full_name) return;
  // No review comment on the pull request (GitHub counts them in the payload): nothing to read.
  if ((pr as { review_comments?: number }).review_comments === 0) return;
  const inv = invocation(context, context.payload.sender.login, { kind: 'pull', number: pr.number });
  try {
    const comments = (await inv.github.reviewComments(pr.number))
      .filter((c) => c.side === 'RIGHT' && c.originalLine !== null && c.originalCommit !== after)
      .slice(-COMMENTS_MAX);
    const commits = [...new Set(comments.map((c) => c.originalCommit))].slice(-COMPARES_MAX);
    const drafts = [];
    for (const commit of commits) {
      const files = new Map((await inv.github.comparedFiles(commit, after)).map((f) => [f.path, f.patch]));
      for (const c of comments.filter((x) => x.originalCommit === commit)) {
        const diff = answeringHunk(files.get(c.path), c.originalLine!);
        if (diff === undefined || !(await counts(inv, c.author, c.authorType))) continue;
        drafts.push({
          id: c.id,
          draft: reviewSignal({
            kind: 'comment-addressed',
            spec: target.spec,
            plan: target.plan,
            pr: { number: pr.number, title: pr.title, url: c.url },
            by: c.author,
            said: c.body,
            id: c.id,
            answer: { path: c.path, line: c.originalLine!, commit: after, diff },
          }),
        });
      }
    }
    for (const { id, draft } of drafts) {
      await captureFromApp(inv, {
        spec: target.spec,
        drafts: [draft],
        what: `review comment on plan PR #${pr.number} addressed`,
        origin: `review:comment-${id}`,
      });
    }
  } catch (e) {
    context.log.warn(`plan PR #${pr.number} pushed: its review comments could not be read (${(e as Error).message}); no review signal from them`);
  }
}

/** `Reverts owner/repo#12` (GitHub's Revert button writes it in the body) or `Reverts #12`, in this repository. */
function revertedPull(text: string, repository: string): number | undefined {
  for (const m of text.matchAll(/\bReverts?\s+(?:([\w.-]+\/[\w.-]+))?#(\d+)\b/gi)) {
    if (m[1] === undefined || m[1].toLowerCase() === repository.toLowerCase()) return Number(m[2]);
  }
  return undefined;
}

/**
 * A merged pull request that reverts a plan's pull request (its title or body says `Reverts
 * #n`, as GitHub's Revert button writes it): the plan's work was taken back, a `review` signal
 * with who merged the revert, what they said, and the revert. Only a person whose word counts.
 */
async function onRevertMerged(context: Context<'pull_request.closed'>): Promise<void> {
  const { pull_request: pr, repository } = context.payload;
  if (!pr.merged || parseTargetBranch(pr.head.ref)?.kind === 'plan') return;
  const number = revertedPull(`${pr.title}\n${pr.body ?? ''}`, repository.full_name);
  if (number === undefined) return;
  const by = pr.merged_by?.login ?? context.payload.sender.login;
  const inv = invocation(context, by, { kind: 'pull', number: pr.number });
  try {
    const reverted = await inv.github.pullRequest(number);
    const target = parseTargetBranch(reverted.headRef);
    if (target?.kind !== 'plan' || reverted.headRepo !== repository.full_name) return;
    if (!(await counts(inv, by, pr.merged_by?.type ?? context.payload.sender.type))) return;
    const said = (pr.body ?? '').replace(/\bReverts?\s+(?:[\w.-]+\/[\w.-]+)?#\d+\b/gi, '').trim() || pr.title;
    const draft = reviewSignal({
      kind: 'reverted',
      spec: target.spec,
      plan: target.plan,
      pr: { number, title: pr.title.replace(/^Revert "(.*)"$/, '$1') },
      by,
      said,
      id: pr.id,
      answer: { pr: pr.number, url: pr.html_url },
    });
    await captureFromApp(inv, {
      spec: target.spec,
      drafts: [draft],
      what: `plan PR #${number} reverted by #${pr.number}`,
      origin: `review:revert-${pr.number}`,
    });
  } catch (e) {
    context.log.warn(`pull request #${pr.number} reverts #${number}: it could not be read (${(e as Error).message}); no review signal`);
  }
}

/**
 * A review that requests changes on a plan's pull request, by a person whose word counts
 * (learning-voice.ts; docs/design.md, Knowledge): a `review` signal on the spec's signals PR, with who asked and what they said.
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
  // A reader's (or anyone's below `permission`) review is theirs to write, not the repository's to learn from.
  if (!(await counts(inv, by, review.user?.type ?? context.payload.sender.type))) {
    context.log.info(`changes requested on plan PR #${pr.number} by ${by}, whose role does not meet the permission: no review signal`);
    return;
  }
  const draft = reviewSignal({
    kind: 'changes-requested',
    spec: target.spec,
    plan: target.plan,
    pr: { number: pr.number, title: pr.title, url: review.html_url },
    by,
    said: review.body ?? '',
    id: review.id,
  });
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
  const draft = reviewSignal({
    kind: 'closed-unmerged',
    spec: target.spec,
    plan: target.plan,
    pr: { number: pr.number, title: pr.title, url: pr.html_url },
    by: sender.login,
    said,
    id: pr.id,
  });
  await captureFromApp(inv, {
    spec: target.spec,
    drafts: [draft],
    what: `plan PR #${pr.number} closed without merging`,
    origin: `review:pr-${pr.number}-closed`,
  });
}
