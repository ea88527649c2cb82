import { sections, findSection } from '../../core/documents/sections.js';
import { renderTemplate, TemplateError } from '../../core/documents/render-template.js';
import { HarnessError } from '../../core/error.js';
import { describeCondition } from '../documents/conditions.js';
import { fixesOf, type LessonText } from './lesson-draft.js';
import { isCategory, type LessonCategory } from './lesson-document.js';
import type { Pattern } from './reflect.js';
import { LESSON_CATEGORIES } from '../documents/schema.js';
import type { SignalRecord } from '../signals/signal-record.js';

/**
 * The reflector agent: given one pattern and its evidence, it writes the lesson, when it
 * applies and the recommendation. Its instructions are data (templates/agents/reflector.md,
 * or the repository's .github/harness/agents/reflector.md); it runs behind this port, so the engine
 * neither knows nor cares which agent it is.
 */
export interface Reflector {
  /** The agent's name, for the note under the lesson: `claude`, `command`. */
  readonly name: string;
  /** The agent's whole answer to one prompt. Throws a ReflectorError when it cannot answer. */
  write(prompt: string): Promise<string>;
}

/** The reflector could not run, or ran and gave no answer: the reason says which, and what to do. */
export class ReflectorError extends HarnessError {}

/** Signals quoted in full in one prompt: the most central ones; the rest are counted. */
const PROMPT_SIGNALS = 12;
/** Characters of one signal's section quoted in the prompt. */
const SECTION_MAX = 1200;

function clip(text: string, max: number = SECTION_MAX): string {
  const t = text.trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function signalBlock(s: SignalRecord, n: number): string {
  const where = [s.signal.project, s.signal.spec, s.signal.plan].filter((x) => x !== undefined).join(' ');
  return [
    `### Signal ${n}: ${s.signal.type}, ${s.signal.severity}, ${where}, ${s.signal.timestamp}`,
    `Tags: ${s.signal.tags.join(', ') || 'none'}`,
    '',
    `What happened: ${clip(s.text?.happened || s.summary || '(not recorded)')}`,
    '',
    `Context: ${clip(s.text?.context || '(not recorded)')}`,
    '',
    `Potential cause: ${clip(s.text?.cause || '(not recorded)')}`,
  ].join('\n');
}

export interface ReflectorPromptInput {
  /** The instructions' text, and where they came from (for the message when they cannot be rendered). */
  instructions: string;
  source: string;
  pattern: Pattern;
  why: string;
  draft: LessonText;
}

/**
 * The prompt for one pattern: the instructions with `{{pattern}}`, `{{evidence}}`, `{{draft}}`
 * and `{{categories}}` filled in. Instructions that use none of them get the facts appended,
 * so that a repository's own reflector.md never loses the evidence.
 */
export function reflectorPrompt(input: ReflectorPromptInput): string {
  const { pattern } = input;
  const central = [pattern.representative, ...pattern.signals.filter((s) => s !== pattern.representative)].slice(0, PROMPT_SIGNALS);
  const rest = pattern.signals.length - central.length;
  const values: Record<string, string> = {
    pattern: [
      `Type: ${pattern.type} (${[...new Set(pattern.signals.map((s) => s.signal.type))].join(', ')})`,
      `Shared words: ${pattern.terms.join(', ') || 'none'}`,
      `Tags: ${pattern.tags.join(', ') || 'none'}`,
      `Places: ${pattern.places.join('; ')}`,
      `Why it qualified: ${input.why}`,
      // The error and the fixes the repairs recorded: what a lesson about one failure must name.
      ...(pattern.signature !== undefined
        ? [
            (pattern.signatures ?? []).length > 1
              ? `Failure signatures (one cause in ${pattern.signatures!.length} wordings: ${pattern.wordings ?? 'the same fix'}): ${pattern.signatures!.join(' | ')}`
              : `Failure signature (every signal here is this error): ${pattern.signature}`,
          ]
        : []),
      // When it applies, as the evidence shows it: the lesson's applies_when, which harness writes whatever the agent says.
      ...(pattern.conditions ?? []).map((c) => `When it applies (a plan ${describeCondition(c)})`),
      ...fixesOf(pattern).map(
        (f) =>
          `Fix the evidence records (${f.places.size} place${f.places.size === 1 ? '' : 's'}, first ${f.place}): ${f.said}${f.files.length > 0 ? ` (changing ${f.files.join(', ')})` : ''}`,
      ),
    ].join('\n'),
    evidence: [...central.map((s, i) => signalBlock(s, i + 1)), ...(rest > 0 ? [`(and ${rest} more signals like these)`] : [])].join('\n\n'),
    draft: [
      `## Title`,
      input.draft.title,
      '',
      '## Lesson',
      input.draft.lesson,
      '',
      '## When this applies',
      input.draft.when,
      '',
      '## Recommendation',
      input.draft.recommendation,
    ].join('\n'),
    categories: LESSON_CATEGORIES.join(', '),
  };
  const used = Object.keys(values).some((k) => new RegExp(`\\{\\{\\s*${k}\\s*\\}\\}`).test(input.instructions));
  const text = used
    ? input.instructions
    : `${input.instructions.trimEnd()}\n\n## The pattern\n\n{{pattern}}\n\n## The evidence\n\n{{evidence}}\n\n## A draft to improve on\n\n{{draft}}\n`;
  try {
    return renderTemplate(text, {}, values);
  } catch (e) {
    if (e instanceof TemplateError) {
      throw new ReflectorError(`${input.source}: ${e.message}; the reflector's instructions may use {{pattern}}, {{evidence}}, {{draft}} and {{categories}}`);
    }
    throw e;
  }
}

export interface ReflectorAnswer extends LessonText {
  category?: LessonCategory;
}

/** A section's text, or '' for none. */
function part(all: ReturnType<typeof sections>, title: string): string {
  return (findSection(all, title)?.content ?? '').replace(/<!--[\s\S]*?-->/g, '').trim();
}

/**
 * The agent's answer as a lesson's text: the sections `## Lesson`, `## When this applies` and
 * `## Recommendation` (each with something in it), and optionally `## Title` and
 * `## Category`. Anything before the first section (a preamble, a code fence) is ignored.
 */
export function parseReflectorAnswer(answer: string, fallbackTitle: string): ReflectorAnswer | { problem: string } {
  const text = answer.replace(/\r\n?/g, '\n').replace(/^\s*```[a-z]*\n([\s\S]*?)\n```\s*$/, '$1');
  const all = sections(text, 1);
  const lesson = part(all, 'Lesson');
  const when = part(all, 'When this applies');
  const recommendation = part(all, 'Recommendation');
  const missing = [
    ['Lesson', lesson],
    ['When this applies', when],
    ['Recommendation', recommendation],
  ]
    .filter(([, v]) => v === '')
    .map(([k]) => `## ${k}`);
  if (missing.length > 0) return { problem: `its answer has no ${missing.join(', no ')} section with text in it` };
  const title =
    part(all, 'Title')
      .split('\n')[0]!
      .replace(/^#+\s*/, '')
      .trim() || lesson.split('\n')[0]!.slice(0, 100);
  const out: ReflectorAnswer = { title: title || fallbackTitle, lesson, when, recommendation };
  const category = part(all, 'Category')
    .toLowerCase()
    .replace(/[^a-z]/g, '');
  if (isCategory(category)) out.category = category;
  return out;
}
