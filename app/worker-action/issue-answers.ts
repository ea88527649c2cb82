import type { Checkpoint } from '../engine/core/protocol/messages.js';
import { answerOf, checkpointMarker, checkpointOf } from '../engine/forge/checkpoint-markers.js';
import { ISSUE_BODY_LIMIT } from '../engine/forge/limits.js';
import { boundedAnswer } from '../engine/core/agents/quoted-answer.js';
import type { Answers } from '../engine/lifecycle/ports.js';
import type { CommentRecord } from '../gateway/comments.js';
import { permits, type Role } from '../engine/forge/permits.js';
import { questionAuthors, writtenBy } from '../engine/forge/marker-trust.js';

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

/** Who may answer a plan's checkpoints, and how the job finds out. */
export interface AnswerTrust {
  /**
   * The App's bot login: of bots, only its answers count. Without it (a workflow that names no
   * App) no bot's answer counts, since any bot could have written one.
   */
  appLogin?: string;
  /** A person's role on the repository, asked of GitHub (the gateway's role). */
  role: (login: string) => Promise<Role>;
  /** The least role whose answers count: the config's `permission` (write by default). */
  least: Role;
  /** Told when a bot's answer is passed over only because the App's login is unknown: the job says what to set. */
  warn?: (message: string) => void;
}

/**
 * Anyone may comment on an issue and a marker is only text, so only the App's comments and
 * those of people whose role on the repository (asked of GitHub, as the App asks for a
 * command, never read off the comment's author_association, which says MEMBER or COLLABORATOR
 * of read-only people too) meets the configured permission count as answers. Of bots, only the
 * App: another bot (a dependency updater, a workflow's github-actions) answers for nobody.
 */
async function trusted(comment: CommentRecord, trust: AnswerTrust, roles: Map<string, Promise<Role>>): Promise<boolean> {
  if (comment.authorType === 'Bot') return trust.appLogin !== undefined && comment.author === trust.appLogin;
  // Whoever holds a role on the repository is its owner, a member or a collaborator: of everyone else GitHub need not be asked.
  if (!MAY_HOLD_A_ROLE.has(comment.association)) return false;
  let role = roles.get(comment.author);
  if (!role) roles.set(comment.author, (role = trust.role(comment.author)));
  return permits(await role, trust.least);
}

const MAY_HOLD_A_ROLE = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);

/** A question on the issue is one harness posted: the App's bot, or the worker's GitHub Actions bot, never another. */
function isQuestion(comment: CommentRecord, plan: string, appLogin: string | undefined): boolean {
  return writtenBy(comment, questionAuthors(appLogin)) && checkpointOf(comment.body)?.plan === plan;
}

/**
 * The answers given to a plan's checkpoints, by checkpoint id; a later answer replaces an
 * earlier one. An answer counts only after its question was asked: one planted before would
 * otherwise let a plan that must stop for a person go through without one.
 */
export async function answerComments(comments: readonly CommentRecord[], plan: string, trust: AnswerTrust): Promise<Map<string, GivenAnswer>> {
  const answers = new Map<string, GivenAnswer>();
  const roles = new Map<string, Promise<Role>>();
  const asked = new Map<string, number>();
  const ordered = [...comments].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id - b.id);
  for (const comment of ordered) {
    if (isQuestion(comment, plan, trust.appLogin)) {
      const id = checkpointOf(comment.body)!.checkpoint;
      if (!asked.has(id)) asked.set(id, Date.parse(comment.createdAt));
      continue;
    }
    const given = answerOf(comment.body);
    if (!given || given.plan !== plan || given.answer === '') continue;
    const question = asked.get(given.checkpoint);
    if (question === undefined || Date.parse(comment.createdAt) < question) continue;
    if (!(await trusted(comment, trust, roles))) {
      if (comment.authorType === 'Bot' && trust.appLogin === undefined) {
        trust.warn?.(
          `the answer to checkpoint ${given.checkpoint} by @${comment.author} does not count: this job does not know the App's login, so no bot's answer counts (give the worker the App's secrets, or set the repository variable HARNESS_APP_SLUG to the App's slug)`,
        );
      }
      continue;
    }
    answers.set(given.checkpoint, { checkpoint: given.checkpoint, answer: boundedAnswer(given.answer), by: comment.author, at: comment.createdAt });
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
export function alreadyAsked(
  comments: readonly CommentRecord[],
  plan: string,
  checkpoint: string,
  answers: ReadonlyMap<string, GivenAnswer>,
  appLogin?: string,
): boolean {
  const asked = comments.filter((c) => isQuestion(c, plan, appLogin));
  const last = asked.at(-1);
  if (!last || checkpointOf(last.body)!.checkpoint !== checkpoint) return false;
  const answer = answers.get(checkpoint);
  return answer === undefined || Date.parse(answer.at) < Date.parse(last.createdAt);
}
