import { describeCondition } from '../documents/conditions.js';
import type { Pattern } from './reflect.js';
import type { SignalType } from '../documents/schema.js';
import { sayAddition, type AddedLine } from '../signals/added-lines.js';
import { firstLine, type SignalRecord } from '../signals/signal-record.js';

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
  review: 'keeps drawing the same review from people',
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

/** A list of strings in a signal's metadata, or none. */
function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '') : [];
}

/** A fix as the evidence reports it: the agent's words, where, and the files it changed. */
interface Fix {
  said: string;
  /** The places it was reported in: a repair and the agent's insight of one attempt are one report. */
  places: Set<string>;
  place: string;
  files: string[];
  /** Who says it: the agent, or the passing attempt's diff (its added commands and settings) when the agent said nothing. */
  from: 'agent' | 'diff';
}

/** A repair's recorded additions (metadata.fix.added), as the signal holds them. */
function additionsOf(value: unknown): AddedLine[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((v) => {
    const a = v as Partial<AddedLine> | null;
    return a !== null && typeof a === 'object' && typeof a.file === 'string' && typeof a.line === 'string' && a.line.trim() !== ''
      ? [{ file: a.file, line: a.line }]
      : [];
  });
}

function placeOf(s: SignalRecord): string {
  return [s.signal.spec, s.signal.plan].filter((x) => x !== undefined).join(' ') || s.signal.project;
}

/**
 * The fixes a pattern's evidence reports, the most often reported first: a repair's record of
 * what fixed it (its metadata.fix) and an agent's own account of the fix it made (an insight
 * reported while repairing the failure).
 */
export function fixesOf(pattern: Pattern): Fix[] {
  const byText = new Map<string, Fix>();
  const add = (said: string, s: SignalRecord, files: string[], from: Fix['from'] = 'agent') => {
    const key = said.toLowerCase().replace(/\W+/g, ' ').trim();
    if (key === '') return;
    const found = byText.get(key);
    if (found) {
      found.places.add(placeOf(s));
      found.files = [...new Set([...found.files, ...files])];
    } else byText.set(key, { said, places: new Set([placeOf(s)]), place: placeOf(s), files, from });
  };
  for (const s of pattern.signals) {
    const m = s.signal.metadata ?? {};
    if (s.signal.type === 'repair' && m.fix !== null && typeof m.fix === 'object') {
      const fix = m.fix as Record<string, unknown>;
      const words = strings(fix.said);
      for (const said of words) add(said, s, strings(fix.files));
      // No words of the agent's: the commands and settings its diff added are the fix as the facts show it.
      const added = additionsOf(fix.added);
      if (words.length === 0 && added.length > 0) add(`add ${added.slice(0, 3).map(sayAddition).join(', ')}`, s, strings(fix.files), 'diff');
    } else if (m.repairs === true) {
      const said = firstLine(s.text?.happened ?? s.summary ?? '', EXCERPT_MAX);
      if (said !== undefined) add(said, s, []);
    }
  }
  const fixes = [...byText.values()];
  // What an agent said it did is the fix in its own words; a diff's lines stand in only where no agent said anything.
  const said = fixes.filter((f) => f.from === 'agent');
  return (said.length > 0 ? said : fixes).sort((a, b) => b.places.size - a.places.size);
}

function fixSource(f: Fix): string {
  const where = `${f.places.size > 1 ? ` in ${f.places.size} places` : ''}, first in ${f.place}`;
  return f.from === 'agent' ? `what the agent said fixed it${where}` : `what the passing attempt's diff added${where}`;
}

/** The files a pattern's failures were in (the plans' files_modified), as globs: two files of a folder and an extension are `folder/*.ext`. */
export function filesOf(pattern: Pattern): string[] {
  const files = [...new Set(pattern.signals.flatMap((s) => strings(s.signal.metadata?.files)))].sort();
  const groups = new Map<string, string[]>();
  for (const f of files) {
    const slash = f.lastIndexOf('/');
    const dot = f.lastIndexOf('.');
    const key = /[*?{[]/.test(f) || dot <= slash ? f : `${f.slice(0, slash + 1)}*${f.slice(dot)}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  return [...groups].flatMap(([key, members]) => (members.length >= 2 ? [key] : members)).slice(0, 12);
}

/** The error's own words, as the failures quoted it (the most often quoted), else its signature. */
function errorOf(pattern: Pattern): string {
  const counts = new Map<string, number>();
  for (const s of pattern.signals) {
    const said = s.signal.metadata?.said;
    if (typeof said === 'string' && said.trim() !== '') counts.set(said, (counts.get(said) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? pattern.signature ?? '';
}

function short(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim().replace(/\.$/, '');
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

export function titleOf(pattern: Pattern): string {
  if (pattern.signature !== undefined) {
    const fix = fixesOf(pattern)[0];
    return `${short(pattern.signature, 70)}${fix ? ` → ${short(fix.said, 60)}` : ''}`;
  }
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
  if (pattern.signature !== undefined) return errorFixDraft(pattern, pattern.signature);
  const words = pattern.terms.slice(0, 4);
  const subject = words.length > 0 ? `Work involving ${list(words)}` : 'This work';
  const rep = pattern.representative;
  // A failure's own words (what the agent's error said) tell more than harness's framing of it.
  const said = rep.signal.metadata?.said;
  const excerpt = quote(typeof said === 'string' && said.trim() !== '' ? said : rep.text?.happened || rep.summary || '');
  const lesson = `${subject} ${KEEPS[pattern.type]}, in ${pattern.places.length} places so far: ${excerpt}.`;

  const types = [...new Set(pattern.signals.map((s) => s.signal.type))];
  const tagged =
    pattern.tags.length > 0
      ? `, or tagged ${list(
          pattern.tags.map((t) => `\`${t}\``),
          'or',
        )}`
      : '';
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

/**
 * A lesson about one error, from its evidence alone: the error in the headline, quoted as the
 * failures said it, how often and where it happened ("seen 3 times in 3 places so far", kept
 * up to date as evidence is linked), and the other wordings of the same cause; when it applies,
 * from what the plans that met it had in common (conditions.ts); the fix the repairs recorded,
 * once and whole, as the agent said it.
 */
function errorFixDraft(pattern: Pattern, signature: string): LessonText {
  const error = errorOf(pattern);
  const n = pattern.signals.filter((s) => s.signal.type !== 'repair' && s.signal.metadata?.repairs !== true).length || pattern.signals.length;
  const counted = `seen ${n} time${n === 1 ? '' : 's'} in ${pattern.places.length} place${pattern.places.length === 1 ? '' : 's'} so far`;
  const others = otherWordings(pattern, error);
  const wordings =
    others.length > 0
      ? ` The same cause also shows as ${list(others.map(quote), 'and as')}: the repairs of both record ${pattern.wordings ?? 'the same fix'}.`
      : '';
  const lesson = `Plans fail with ${quote(error)} (${counted}).${wordings}`;
  return { title: titleOf(pattern), lesson, when: whenOf(pattern, signature), recommendation: recommendationOf(pattern, error) };
}

/** The errors of a pattern's other signatures, as their failures said them: the other wordings of its cause. */
function otherWordings(pattern: Pattern, error: string): string[] {
  const rest = (pattern.signatures ?? []).filter((s) => s !== pattern.signature);
  return rest.map((sig) => {
    const said = pattern.signals.map((s) => s.signal.metadata).find((m) => m?.signature === sig && typeof m.said === 'string')?.said;
    return typeof said === 'string' && said !== error ? said : sig;
  });
}

/**
 * When a lesson about an error applies, in words: the conditions reflection found (what the
 * plans that met it had that the others had not, with the counts), and any plan whose earlier
 * attempt met one of its signatures. Where the evidence tells nothing apart, it says so.
 */
export function whenOf(pattern: Pattern, signature = pattern.signature ?? ''): string {
  const signatures = pattern.signatures ?? [signature];
  const retry = `any plan whose earlier attempt failed with ${list(
    signatures.map((s) => `\`${s}\``),
    'or',
  )}`;
  const conditions = pattern.conditions ?? [];
  if (conditions.length === 0) {
    const compared = pattern.known !== undefined ? ` (${pattern.known} of them compared with the plans that did not)` : '';
    return `Plans like those in the evidence below, and ${retry}. The plans that met it${compared} had nothing in common that the others lacked: this lesson reaches a plan before its first attempt only by its words, and after a failed attempt by its error.`;
  }
  const uncovered = pattern.uncovered ? ` ${pattern.uncovered} of the plans that met it had none of these: the evidence does not say why they did.` : '';
  return `Plans ${conditions
    .map(describeCondition)
    .join('; or plans ')
    .replace(/that says "/g, 'that say "')}; and ${retry}.${uncovered}`;
}

/**
 * What to do, from the fixes the repairs recorded: the most often reported fix, whole, as a
 * paragraph of its own (what a brief carries), then where it comes from. Said once.
 */
export function recommendationOf(pattern: Pattern, error = errorOf(pattern)): string {
  const fixes = fixesOf(pattern);
  if (fixes.length === 0) {
    return (
      `No repair of ${quote(error)} is on record yet: read what each attempt tried (below), and once a plan passes after it, reflect again to learn the fix.` +
      (causes(pattern).length > 0 ? ` The signals name ${quote(causes(pattern)[0]!)}.` : '')
    );
  }
  const fix = fixes[0]!;
  const statement = fix.from === 'agent' ? sentence(fix.said) : `${fix.said[0]!.toUpperCase()}${fix.said.slice(1)}.`;
  const fixFiles = [...new Set(fix.files)].slice(0, 8);
  const more =
    fixes.length > 1 ? ` ${fixes.length - 1} other repair${fixes.length === 2 ? '' : 's'} recorded another account of the fix (see the evidence).` : '';
  return `${statement}\n\nThat is ${fixSource(fix)}${fixFiles.length > 0 ? `; it changed ${list(fixFiles.map((f) => `\`${f}\``))}` : ''}, and it stopped ${quote(error)}.${more}`;
}

/** A statement as a sentence: a capital first, a full stop last. */
function sentence(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t === '') return t;
  return `${t[0]!.toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;
}

/** The line under the evidence that says who wrote the lesson. */
export function draftNote(reason: string): string {
  return `_Drafted by harness from this evidence, not written by an agent: ${reason}. Sharpen the lesson and the recommendation before merging._`;
}

export function agentNote(agent: string): string {
  return `_Written by the reflector agent (${agent}) from this evidence, which harness chose._`;
}
