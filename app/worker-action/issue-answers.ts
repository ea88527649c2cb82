import type { Checkpoint } from '../engine/core/protocol/messages.js';
import { answerOf, checkpointMarker, checkpointOf } from '../engine/forge/checkpoint-markers.js';
import { ISSUE_BODY_LIMIT } from '../engine/forge/limits.js';
import type { Answers } from '../engine/lifecycle/ports.js';
import type { CommentRecord } from '../gateway/comments.js';

/**
 * The plan issue as the place where a job asks and people answer (docs/github-flow.md, step 7):
 * the question is a comment with `<!-- harness:checkpoint <plan> <id> -->` on its first line,
 * the answer one with `<!-- harness:answer <plan> <id> -->` (engine/forge/checkpoint-markers.ts).
 */

/** An answer on the issue, by checkpoint id. */
export interface GivenAnswer {
  checkpoint: string;
  answer: string;
  by: string;
  /** When the comment was written (ISO-8601). */
  at: string;
}

/**
 * Anyone may comment on an issue and a marker is only text, so only comments that the App or
 * a person with write access wrote count as answers: otherwise a passer-by could approve a
 * human check. Of bots, only the App: another bot (a dependency updater, a workflow's
 * github-actions) answers for nobody. `appLogin` names the App's bot; without it, any bot
 * counts, as before the worker knew the App's name.
 */
const TRUSTED_ASSOCIATIONS = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);

export function isTrusted(comment: CommentRecord, appLogin?: string): boolean {
  if (comment.authorType === 'Bot') return appLogin === undefined || comment.author === appLogin;
  return TRUSTED_ASSOCIATIONS.has(comment.association);
}

/** The answers given to a plan's checkpoints, by checkpoint id; a later answer replaces an earlier one. */
export function answerComments(comments: readonly CommentRecord[], plan: string, appLogin?: string): Map<string, GivenAnswer> {
  const answers = new Map<string, GivenAnswer>();
  const ordered = [...comments].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id - b.id);
  for (const comment of ordered) {
    const given = answerOf(comment.body);
    if (!given || given.plan !== plan || !isTrusted(comment, appLogin) || given.answer === '') continue;
    answers.set(given.checkpoint, { checkpoint: given.checkpoint, answer: given.answer, by: comment.author, at: comment.createdAt });
  }
  return answers;
}

/**
 * The answers port of a job: what was answered on the issue before the job started, and no
 * waiting (a job cannot wait hours for a person; it ends, and the answer dispatches the next).
 */
export function issueAnswers(given: ReadonlyMap<string, GivenAnswer>): Answers {
  return {
    given: (checkpoint) => given.get(checkpoint),
    ask: () => Promise.resolve(undefined),
  };
}

/** Room for the lines around the prompt. */
const PROMPT_BUDGET = ISSUE_BODY_LIMIT - 2_000;

/** The question on the plan issue: the marker the app answers to, the prompt, the options and how to answer. */
export function checkpointComment(plan: string, checkpoint: Checkpoint): string {
  const cut = checkpoint.prompt.length > PROMPT_BUDGET ? `${checkpoint.prompt.slice(0, PROMPT_BUDGET)}\n…(cut)` : checkpoint.prompt;
  // An agent writes the prompt: a harness marker in it must not become one in the comment.
  const prompt = cut.replace(/<!--/g, '&lt;!--');
  const from = checkpoint.source ? `, from "${checkpoint.source}"` : '';
  const lines = [
    checkpointMarker(plan, checkpoint.id),
    `**Plan ${plan} waits for a person** at checkpoint \`${checkpoint.id}\` (${checkpoint.kind}${from}).`,
    '',
    ...prompt.split('\n').map((l) => `> ${l}`.trimEnd()),
    '',
  ];
  if (checkpoint.kind === 'verification') {
    lines.push(
      `Approve with \`/harness respond ${plan} approve\` (or the Approve button of the plan's check run), or reject with \`/harness respond ${plan} reject <why>\`.`,
    );
  } else {
    if (checkpoint.options && checkpoint.options.length > 0) lines.push(`Options: ${checkpoint.options.map((o) => `\`${o}\``).join(', ')}`, '');
    lines.push(`Answer with \`/harness respond ${plan} <answer>\`.`);
  }
  lines.push('The worker then runs again from what is committed on the plan branch.');
  return `${lines.join('\n')}\n`;
}

/**
 * Is this question on the issue already, still unanswered? True when the last checkpoint
 * comment for the plan asks it and no answer to it came since: a re-run of the same job then
 * asks nobody twice, while a question asked again after a retry is posted again.
 */
export function alreadyAsked(comments: readonly CommentRecord[], plan: string, checkpoint: string, answers: ReadonlyMap<string, GivenAnswer>): boolean {
  const asked = comments.filter((c) => checkpointOf(c.body)?.plan === plan && isTrusted(c));
  const last = asked.at(-1);
  if (!last || checkpointOf(last.body)!.checkpoint !== checkpoint) return false;
  const answer = answers.get(checkpoint);
  return answer === undefined || Date.parse(answer.at) < Date.parse(last.createdAt);
}
