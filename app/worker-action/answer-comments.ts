import { answerOf } from '../engine/forge/checkpoint-markers.js';
import type { IssueComment } from './worker-forge.js';

/**
 * Answers to checkpoints, as the app writes them on a plan issue (docs/github-flow.md, step 7,
 * engine/commands/checkpoint-markers.ts answerComment): the marker
 * `<!-- harness:answer <plan> <checkpoint-id> -->` on the first line, then the answer as given.
 */
export interface GivenAnswer {
  checkpoint: string;
  answer: string;
  by: string;
  /** When the comment was written (ISO-8601). */
  at: string;
}


/**
 * Anyone may comment on an issue and a marker is only text, so only comments that the app
 * (a bot) or a person with write access wrote count as answers: otherwise a passer-by could
 * approve a human check.
 */
const TRUSTED_ASSOCIATIONS = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);

export function isTrusted(comment: IssueComment): boolean {
  return comment.authorType === 'Bot' || TRUSTED_ASSOCIATIONS.has(comment.association);
}

/** The answers given to a plan's checkpoints, by checkpoint id; a later answer replaces an earlier one. */
export function answerComments(comments: readonly IssueComment[], plan: string): Map<string, GivenAnswer> {
  const answers = new Map<string, GivenAnswer>();
  const ordered = [...comments].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id - b.id);
  for (const comment of ordered) {
    const given = answerOf(comment.body);
    if (!given || given.plan !== plan || !isTrusted(comment) || given.answer === '') continue;
    answers.set(given.checkpoint, { checkpoint: given.checkpoint, answer: given.answer, by: comment.author, at: comment.createdAt });
  }
  return answers;
}
