import { planPhase } from '../core/spec/model.js';
import type { SignalDraft } from '../knowledge/documents/loop.js';
import { deriveTags } from '../knowledge/signals/signal-tags.js';

/**
 * Review feedback on a plan's pull request as a `review` signal (docs/design.md, Knowledge):
 * what a person asked of work that had passed its checks is what the checks did not catch.
 * A review that requests changes, and a plan PR closed without merging, each become one signal
 * on the spec's signals PR, with who asked and what they said; reflection reads them as it
 * reads repairs. Pure: the App hands in what the webhook said.
 */

export type ReviewKind = 'changes-requested' | 'closed-unmerged' | 'comment-addressed' | 'reverted';

export interface ReviewInput {
  kind: ReviewKind;
  spec: string;
  plan: string;
  /** The plan PR. */
  pr: { number: number; title: string; url?: string };
  /** Who asked for changes, or closed it. */
  by: string;
  /** What they said: the review's body, or the last comment before the close (empty when none). */
  said: string;
  /** The files the plan's PR changes, when known, for the signal's tags. */
  files?: readonly string[];
  /** The review's, the comment's, the close's or the revert's id (a revert commit's sha): part of the signal's identity. */
  id: number | string;
  /** What answered it: the diff a later push made at the comment's line, or the revert. */
  answer?: { path?: string; line?: number; commit?: string; diff?: string; pr?: number; url?: string };
}

/** The lines of an answering diff quoted at most. */
const DIFF_LINES = 12;

/**
 * The hunk of a file's patch (as GitHub's compare lists it) that changes the given line of the
 * old file, or undefined when none touches it: a review comment at that line was answered by
 * the change. A hunk that only inserts (`-a,0`) touches the line it follows.
 */
export function answeringHunk(patch: string | undefined, line: number): string | undefined {
  if (patch === undefined) return undefined;
  const lines = patch.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(lines[i]!);
    if (!m) continue;
    const start = Number(m[1]);
    const count = m[2] === undefined ? 1 : Number(m[2]);
    const touches = count === 0 ? line === start : line >= start && line < start + count;
    if (!touches) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith('@@'));
    const body = lines.slice(i, end < 0 ? undefined : end);
    return [...body.slice(0, DIFF_LINES + 1), ...(body.length > DIFF_LINES + 1 ? ['…'] : [])].join('\n');
  }
  return undefined;
}

/** What a review says, quoted at most this long: the rest is on the pull request. */
const SAID_MAX = 600;

function clip(text: string): string {
  const t = text.trim();
  return t.length > SAID_MAX ? `${t.slice(0, SAID_MAX - 1)}…` : t;
}

const HAPPENED: Record<ReviewKind, string> = {
  'changes-requested': 'requested changes on',
  'closed-unmerged': 'closed',
  'comment-addressed': 'commented on',
  reverted: 'reverted the merge of',
};

const CAUSE: Record<ReviewKind, string> = {
  'changes-requested': 'The checks do not test what the reviewer asked for, or the brief did not say it.',
  'closed-unmerged': 'The work was not wanted as it was: the plan, its checks or its brief missed what the person expected.',
  'comment-addressed': 'A person asked for a change the checks did not ask for, and a later commit made it: the brief or the checks should have said it.',
  reverted: 'The merged work broke or was not wanted: the checks passed what a person would not keep.',
};

/** The `review` signal of a review that requested changes, a review comment a later push answered, a plan PR closed without merging, or a plan's merge reverted. */
export function reviewSignal(input: ReviewInput): SignalDraft {
  const said = clip(input.said);
  const where = `plan ${input.plan} of ${input.spec} (pull request #${input.pr.number}, "${input.pr.title}")`;
  const quoted = said ? `:\n\n> ${said.replace(/\n/g, '\n> ')}` : ', without a comment.';
  const at = input.answer?.path !== undefined ? ` at \`${input.answer.path}${input.answer.line === undefined ? '' : `:${input.answer.line}`}\`` : '';
  const answer = input.answer;
  const answered =
    input.kind === 'comment-addressed' && answer?.diff !== undefined
      ? `\n\nA later commit${answer.commit ? ` (${answer.commit.slice(0, 7)})` : ''} changed that line:\n\n\`\`\`diff\n${answer.diff.replace(/```/g, "'''")}\n\`\`\``
      : input.kind === 'reverted' && answer?.pr !== undefined
        ? `\n\nThe revert: pull request #${answer.pr}${answer.url ? ` (${answer.url})` : ''}.`
        : input.kind === 'reverted' && answer?.commit !== undefined
          ? `\n\nThe revert: commit ${answer.commit.slice(0, 7)}.`
          : '';
  const happened =
    input.kind === 'closed-unmerged'
      ? `${input.by} closed ${where} without merging it${quoted}`
      : `${input.by} ${HAPPENED[input.kind]} ${where}${at}${quoted}${answered}`;
  return {
    type: 'review',
    severity: input.kind === 'closed-unmerged' || input.kind === 'reverted' ? 'high' : 'medium',
    spec: input.spec,
    phase: planPhase(input.plan),
    plan: input.plan,
    tags: deriveTags({ files: [...(input.files ?? []), ...(input.answer?.path ? [input.answer.path] : [])], words: ['review'] }),
    happened,
    context: `The plan's work had passed its checks: this is what a person found that they did not.${input.pr.url ? ` ${input.pr.url}` : ''}`,
    cause: CAUSE[input.kind],
    metadata: {
      review: input.kind,
      by: input.by,
      pr: input.pr.number,
      id: input.id,
      ...(said ? { asked: said } : {}),
      ...(answer ? { answered: Object.fromEntries(Object.entries(answer).filter(([, v]) => v !== undefined)) } : {}),
    },
  };
}
