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

/** At the very start: a marker quoted further down (in a question, say) is no answer. */
const ANSWER = /^\s*<!-- harness:answer (\S+) (\S+) -->[ \t]*\n?/;

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
    const m = ANSWER.exec(comment.body);
    if (!m || m[1] !== plan || !isTrusted(comment)) continue;
    const answer = comment.body.slice(m.index + m[0].length).trim();
    if (answer === '') continue;
    answers.set(m[2]!, { checkpoint: m[2]!, answer, by: comment.author, at: comment.createdAt });
  }
  return answers;
}
