import type { Pattern } from './reflect.js';
import type { SignalType } from '../documents/schema.js';
import { firstLine } from '../signals/signal-record.js';

/** A lesson's prose: its title (for lists and pull requests) and its three sections. */
export interface LessonText {
  title: string;
  lesson: string;
  when: string;
  recommendation: string;
}

/** What each type of signal says happened, as the lesson's verb. */
const KEEPS: Readonly<Record<SignalType, string>> = {
  struggle: 'keeps going wrong the same way',
  stuck: 'keeps getting stuck on the same step',
  repair: 'keeps needing repairs before it verifies',
  timeout: 'keeps running out of time',
  deviation: 'keeps going beyond what its plan declared',
  config: 'keeps running with other settings than the configured ones',
  frustration: 'keeps drawing the same corrections from people',
  interrupted: 'keeps being stopped by a person',
  pattern: 'keeps using the same approach',
  innovation: 'keeps finding the same improvement',
  completion: 'keeps completing',
  use: 'keeps applying the same knowledge',
};

/** Excerpts quoted from the evidence stay short enough to read in a brief. */
const EXCERPT_MAX = 220;

function list(words: readonly string[], last = 'and'): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} ${last} ${words.at(-1)}`;
}

/** A first line in quotes, its closing full stop left to the sentence around it. */
function quote(text: string): string {
  const line = (firstLine(text, EXCERPT_MAX) ?? '').replace(/\.$/, '');
  return `"${line.replace(/"/g, "'")}"`;
}

/** The causes the signals give, the most central signal's first, each said once. */
function causes(pattern: Pattern): string[] {
  const ordered = [pattern.representative, ...pattern.signals.filter((s) => s !== pattern.representative)];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const s of ordered) {
    const cause = s.text?.cause.trim() ?? '';
    const key = cause.toLowerCase().replace(/\W+/g, ' ').trim();
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(cause);
  }
  return out;
}

export function titleOf(pattern: Pattern): string {
  const type = pattern.type[0]!.toUpperCase() + pattern.type.slice(1);
  return `${type}: ${pattern.terms.slice(0, 3).join(', ') || pattern.tags.slice(0, 3).join(', ') || 'a recurring pattern'}`;
}

/**
 * A lesson stated from its evidence alone, for when no agent writes it: the words the signals
 * share, the excerpt of the signal closest to the pattern's centre, the places it happened and
 * the causes the signals give. It says only what the evidence says; the note that no agent
 * wrote it goes with it (draftNote).
 */
export function harnessDraft(pattern: Pattern): LessonText {
  const words = pattern.terms.slice(0, 4);
  const subject = words.length > 0 ? `Work involving ${list(words)}` : 'This work';
  const rep = pattern.representative;
  // A failure's own words (what the agent's error said) tell more than harness's framing of it.
  const said = rep.signal.metadata?.said;
  const excerpt = quote(typeof said === 'string' && said.trim() !== '' ? said : rep.text?.happened || rep.summary || '');
  const lesson = `${subject} ${KEEPS[pattern.type]}, in ${pattern.places.length} places so far: ${excerpt}.`;

  const types = [...new Set(pattern.signals.map((s) => s.signal.type))];
  const tagged = pattern.tags.length > 0 ? `, or tagged ${list(pattern.tags.map((t) => `\`${t}\``), 'or')}` : '';
  const when =
    `Plans whose work involves ${list(pattern.terms, 'or') || 'what the evidence below describes'} (the words these ${types.join(' and ')} signals share)${tagged}. ` +
    `Seen in ${list(pattern.places)}.`;

  const found = causes(pattern).slice(0, 2);
  const recommendation =
    found.length > 0
      ? `Plan for it before the work starts. The signals name ${found.length === 1 ? 'this cause' : 'these causes'}: ${found.map(quote).join('; and ')}. ` +
        'Deal with it in the plan itself (a task, or a must_pass check that catches it early), and read in the evidence below what each run tried.'
      : 'The signals name no cause. Before such a plan starts, read what happened in each (below) and write into the plan how to avoid it.';
  return { title: titleOf(pattern), lesson, when, recommendation };
}

/** The line under the evidence that says who wrote the lesson. */
export function draftNote(reason: string): string {
  return `_Drafted by harness from this evidence, not written by an agent: ${reason}. Sharpen the lesson and the recommendation before merging._`;
}

export function agentNote(agent: string): string {
  return `_Written by the reflector agent (${agent}) from this evidence, which harness chose._`;
}
