import { renderTemplate } from '../../core/documents/render-template.js';
import { formatCondition } from '../documents/conditions.js';
import { filesOf, type LessonText } from './lesson-draft.js';
import { terms } from './terms.js';
import type { Pattern } from './reflect.js';
import { LESSON_CATEGORIES, type SignalType } from '../documents/schema.js';
import type { SignalRecord } from '../signals/signal-record.js';

export type LessonCategory = (typeof LESSON_CATEGORIES)[number];

/**
 * Where a lesson from each kind of signal belongs when its words say nothing more specific;
 * the reviewer moves it (the folder and `category` change together) when the guess is wrong.
 */
const CATEGORY_OF_TYPE: Readonly<Record<SignalType, LessonCategory>> = {
  deviation: 'workflow',
  frustration: 'workflow',
  struggle: 'workflow',
  config: 'tooling',
  pattern: 'architecture',
  repair: 'workflow',
  innovation: 'architecture',
  completion: 'workflow',
  use: 'workflow',
  interrupted: 'workflow',
  timeout: 'tooling',
  stuck: 'workflow',
  review: 'workflow',
};

/** Words that place a lesson, checked in this order: a pattern about tests is a testing lesson first. */
const CATEGORY_WORDS: readonly [LessonCategory, readonly string[]][] = [
  ['testing', ['test', 'vitest', 'jest', 'mocha', 'pytest', 'fixture', 'flaky', 'coverage']],
  ['verification', ['verify', 'verification', 'check', 'assertion', 'health']],
  ['library', ['dependency', 'package', 'library', 'import', 'module', 'version', 'npm', 'pnpm', 'yarn', 'pip']],
  ['tooling', ['config', 'lint', 'eslint', 'build', 'ci', 'tsc', 'compiler', 'docker', 'proxy', 'environment']],
];

const CATEGORY_STEMS = CATEGORY_WORDS.map(([category, words]) => [category, new Set(words.map((w) => terms(w)[0]?.stem ?? w))] as const);

/** The category a pattern's lesson is filed under: by its words, else by its type. */
export function categoryOf(pattern: Pattern): LessonCategory {
  const stems = new Set(terms([...pattern.terms.slice(0, 4), ...pattern.tags.slice(0, 4)].join(' ')).map((t) => t.stem));
  for (const [category, words] of CATEGORY_STEMS) if ([...words].some((w) => stems.has(w))) return category;
  return CATEGORY_OF_TYPE[pattern.type];
}

export function isCategory(value: string): value is LessonCategory {
  return (LESSON_CATEGORIES as readonly string[]).includes(value);
}

/** Lesson file names stay short enough to read in a list. */
const NAME_MAX = 48;

/** A lowercase name of a-z, 0-9 and single `-`, cut at a word. */
export function lessonName(text: string): string {
  let out = '';
  for (const word of text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '')) {
    const next = out === '' ? word : `${out}-${word}`;
    if (next.length > NAME_MAX) break;
    out = next;
  }
  return out === '' ? 'lesson' : out;
}

/**
 * The path of a new lesson: `<store>lessons/<category>/<type>-<words>.lesson.md`, made unique
 * against the paths taken (existing lessons, and the others of the same reflection).
 */
export function lessonPath(pattern: Pattern, category: LessonCategory, storePrefix: string, taken: ReadonlySet<string>): { name: string; path: string } {
  // A lesson about one error is named after the error.
  const words =
    pattern.signature !== undefined ? pattern.signature.replace(/<[a-z]+>/g, ' ') : pattern.terms.slice(0, 3).join(' ') || pattern.tags.slice(0, 3).join(' ');
  const base = lessonName(pattern.signature !== undefined ? words : `${pattern.type} ${words}`);
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    const path = `${storePrefix}lessons/${category}/${name}.lesson.md`;
    if (!taken.has(path)) return { name, path };
  }
}

/** Where a signal happened, for an evidence line: `notes-service SPC-001 01-02`. */
function placeOf(s: SignalRecord): string {
  return [s.signal.project, s.signal.spec, s.signal.plan].filter((x) => x !== undefined).join(' ');
}

/** One line of a lesson's Evidence: the signal's path, its facts and what happened. */
export function evidenceLine(s: SignalRecord): string {
  const facts = [s.signal.type, s.signal.severity, placeOf(s), s.signal.timestamp].join(', ');
  return `- \`${s.file}\` (${facts})${s.summary ? `: ${s.summary}` : ''}`;
}

/** More evidence from more places, more confidence; a person raises it further once the lesson is proven. */
export function confidenceOf(pattern: Pattern): 'low' | 'medium' | 'high' {
  const places = pattern.places.length;
  if (places >= 4 && pattern.signals.length >= 5) return 'high';
  return places >= 3 ? 'medium' : 'low';
}

export interface LessonDocumentInput {
  /** templates/lesson.md as shipped. */
  template: string;
  pattern: Pattern;
  text: LessonText;
  category: LessonCategory;
  /** Who wrote it, as the line closing the Evidence section. */
  note: string;
  today: Date;
}

/** A new lesson file: templates/lesson.md filled with the pattern's facts and the text. */
export function lessonDocument(input: LessonDocumentInput): string {
  const { pattern } = input;
  const projects = [...new Set(pattern.signals.map((s) => s.signal.project))].sort();
  return renderTemplate(
    input.template,
    {
      category: input.category,
      confidence: confidenceOf(pattern),
      evidence_count: pattern.signals.length,
      last_updated: input.today.toISOString().slice(0, 10),
      tags: pattern.tags,
      projects,
      ...(pattern.signature !== undefined ? { files: filesOf(pattern), signatures: pattern.signatures ?? [pattern.signature] } : {}),
      ...(pattern.conditions && pattern.conditions.length > 0 ? { applies_when: pattern.conditions.map(formatCondition) } : {}),
    },
    {
      lesson: input.text.lesson.trim(),
      when: input.text.when.trim(),
      recommendation: input.text.recommendation.trim(),
      evidence: `${pattern.signals.map(evidenceLine).join('\n')}\n\n${input.note}`,
    },
  );
}
