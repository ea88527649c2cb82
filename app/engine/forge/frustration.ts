import { planPhase } from '../core/spec/model.js';
import type { SignalDraft } from '../knowledge/documents/loop.js';
import { deriveTags } from '../knowledge/signals/signal-tags.js';
import { checkpointOf } from './checkpoint-markers.js';
import { changesAnything, describeTarget, type Command } from './command.js';
import { parseCommand } from './parse-command.js';

/**
 * People's frustration, read off a plan issue's or spec PR's thread when a `/harness` command
 * arrives (docs/design.md, Knowledge): the same command again, an answer that contradicts the
 * one given before to the same question, a retry of a plan already retried. Commands that only
 * read (status, help) are never frustration; bots are never people.
 */

/** A comment of the thread, oldest first, as the gateway lists them. */
export interface ThreadComment {
  id: number;
  body: string;
  author: string;
  authorType: string;
  createdAt: string;
}

export interface FrustrationInput {
  command: Command;
  /** The comment that carries the command, and who wrote it. */
  comment: { id: number; author: string; url?: string };
  /** Every comment of the thread (the command's own is left out here). */
  thread: readonly ThreadComment[];
  /** The spec the thread is about, when it is known. */
  spec?: string;
  /** Where, in words: "plan issue #14", "pull request #3". */
  place: string;
}

interface Earlier {
  comment: ThreadComment;
  command: Command;
}

function planOf(command: Command): string | undefined {
  switch (command.name) {
    case 'retry':
    case 'abort':
    case 'respond':
      return command.plan;
    case 'execute':
    case 'verify':
      return command.target.kind === 'plan' ? command.target.plan : undefined;
    default:
      return undefined;
  }
}

function same(a: Command, b: Command): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function quote(command: Command): string {
  switch (command.name) {
    case 'execute':
    case 'verify':
      return `/harness ${command.name} ${describeTarget(command.target)}`;
    case 'retry':
    case 'abort':
      return `/harness ${command.name} ${command.plan}`;
    case 'respond':
      return `/harness respond ${command.plan} ${command.answer}`;
    case 'spike':
      return `/harness spike "${command.question}"`;
    default:
      return `/harness ${command.name}`;
  }
}

function severity(times: number): SignalDraft['severity'] {
  return times >= 4 ? 'high' : times === 3 ? 'medium' : 'low';
}

/** The frustration a command shows, or undefined when it shows none. */
export function frustrationSignal(input: FrustrationInput): SignalDraft | undefined {
  const { command } = input;
  if (!changesAnything(command)) return undefined;
  const people = input.thread.filter((c) => c.authorType !== 'Bot' && c.id !== input.comment.id);
  const earlier: Earlier[] = people.flatMap((c) => {
    const parsed = parseCommand(c.body);
    return parsed !== undefined && !(parsed instanceof Error) ? [{ comment: c, command: parsed }] : [];
  });
  const plan = planOf(command);
  const base = {
    ...(input.spec === undefined ? {} : { spec: input.spec }),
    ...(plan === undefined ? {} : { phase: planPhase(plan), plan }),
  };
  const who = `@${input.comment.author}`;
  const tags = deriveTags({ words: ['frustration', command.name] });

  if (command.name === 'respond') {
    // The same plan answered differently, with no new question asked in between: the answer is overridden, not a new one.
    const previous = earlier.filter((e) => e.command.name === 'respond' && e.command.plan === command.plan).at(-1);
    if (previous?.command.name === 'respond' && previous.command.answer.trim().toLowerCase() !== command.answer.trim().toLowerCase()) {
      const asked = input.thread.some((c) => c.authorType === 'Bot' && c.createdAt > previous.comment.createdAt && checkpointOf(c.body)?.plan === command.plan);
      if (!asked) {
        return {
          type: 'frustration',
          severity: 'medium',
          ...base,
          tags,
          happened: `${who} answered plan ${command.plan} "${command.answer}" on ${input.place}, where @${previous.comment.author} had answered "${previous.command.answer}" to the same question.`,
          context: `Earlier: \`${quote(previous.command)}\` (${previous.comment.createdAt}). Now: \`${quote(command)}\`.`,
          cause: 'The first answer did not have the effect wanted, or the question was unclear enough to be answered twice.',
          metadata: { reason: 'contradicting-answer', comment: input.comment.id, earlier: previous.comment.id },
        };
      }
    }
  }

  const repeats = earlier.filter((e) => same(e.command, command));
  if (repeats.length === 0) return undefined;
  const times = repeats.length + 1;
  const first = repeats[0]!;
  if (command.name === 'retry') {
    return {
      type: 'frustration',
      severity: times >= 3 ? 'high' : 'medium',
      ...base,
      tags: deriveTags({ words: ['frustration', 'retry'] }),
      happened: `${who} retried plan ${command.plan} on ${input.place} for the ${ordinal(times)} time: a retry of a retry.`,
      context: `The first \`${quote(command)}\` was by @${first.comment.author} at ${first.comment.createdAt}; ${repeats.length} before this one.`,
      cause: 'Retrying did not fix what fails: the plan, its checks or the agent needs to change, not the number of tries.',
      metadata: { reason: 'repeated-retry', times, comment: input.comment.id, earlier: repeats.map((r) => r.comment.id) },
    };
  }
  return {
    type: 'frustration',
    severity: severity(times),
    ...base,
    tags,
    happened: `${who} wrote \`${quote(command)}\` on ${input.place} for the ${ordinal(times)} time.`,
    context: `The first was by @${first.comment.author} at ${first.comment.createdAt}; ${repeats.length} before this one.`,
    cause: 'The earlier request did not do what was wanted, or its answer did not make clear that it did.',
    metadata: { reason: 'repeated-command', times, comment: input.comment.id, earlier: repeats.map((r) => r.comment.id) },
  };
}

function ordinal(n: number): string {
  return n === 2 ? 'second' : n === 3 ? 'third' : `${n}th`;
}
