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

export type ReviewKind = 'changes-requested' | 'closed-unmerged';

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
  /** The review's or the close's id: part of the signal's identity. */
  id: number;
}

/** What a review says, quoted at most this long: the rest is on the pull request. */
const SAID_MAX = 600;

function clip(text: string): string {
  const t = text.trim();
  return t.length > SAID_MAX ? `${t.slice(0, SAID_MAX - 1)}…` : t;
}

/** The `review` signal of a review that requested changes, or of a plan PR closed without merging. */
export function reviewSignal(input: ReviewInput): SignalDraft {
  const said = clip(input.said);
  const where = `plan ${input.plan} of ${input.spec} (pull request #${input.pr.number}, "${input.pr.title}")`;
  const happened =
    input.kind === 'changes-requested'
      ? `${input.by} requested changes on ${where}${said ? `:\n\n> ${said.replace(/\n/g, '\n> ')}` : ', without a comment.'}`
      : `${input.by} closed ${where} without merging it${said ? `:\n\n> ${said.replace(/\n/g, '\n> ')}` : ', without a comment.'}`;
  return {
    type: 'review',
    severity: input.kind === 'closed-unmerged' ? 'high' : 'medium',
    spec: input.spec,
    phase: planPhase(input.plan),
    plan: input.plan,
    tags: deriveTags({ files: [...(input.files ?? [])], words: ['review'] }),
    happened,
    context: `The plan's work had passed its checks: this is what a person found that they did not.${input.pr.url ? ` ${input.pr.url}` : ''}`,
    cause:
      input.kind === 'changes-requested'
        ? 'The checks do not test what the reviewer asked for, or the brief did not say it.'
        : 'The work was not wanted as it was: the plan, its checks or its brief missed what the person expected.',
    metadata: { review: input.kind, by: input.by, pr: input.pr.number, id: input.id, ...(said ? { asked: said } : {}) },
  };
}
