import { findSection, sections } from '../../core/documents/sections.js';
import { parseKnowledge } from '../documents/parse.js';
import type { Lesson } from '../documents/schema.js';
import { firstLine, prose, type Unreadable } from '../signals/signal-record.js';

/** A lesson as reflection reads it: its frontmatter, its sections and the signals it cites. */
export interface LessonRecord {
  /** Relative to the repository root, as the lesson's own evidence paths are. */
  file: string;
  lesson: Lesson;
  /** The lesson in one line: the first line of its "## Lesson" section. */
  title: string;
  text: { lesson: string; when: string; recommendation: string; evidence: string };
  /** The signal paths its Evidence section cites, as written there. */
  evidence: string[];
  /** The whole file, for a link to rewrite. */
  source: string;
}

/** A signal path anywhere in a line: in backticks, in a link, or bare. */
const SIGNAL_PATH = /(?:[A-Za-z0-9._${}-]+\/)*signals\/[^\s`'"()<>[\]]+?\.signal\.md/g;

/** The signal paths a text cites, each once, in order. */
export function citedSignals(text: string): string[] {
  return [...new Set(text.match(SIGNAL_PATH) ?? [])];
}

/**
 * Where a signal is filed inside the store (`signals/<project>/<day>/<file>`), whatever prefix
 * a citation gives it: a lesson written in one checkout and read in another, or in a separate
 * knowledge repository, still cites the same signal.
 */
export function signalKey(path: string): string {
  return /(?:^|\/)(signals\/.+)$/.exec(path)?.[1] ?? path;
}

/** A lesson file as reflection reads it, or why it cannot be read. */
export function readLesson(file: string, text: string): LessonRecord | Unreadable {
  const parsed = parseKnowledge('lesson', file, text);
  const error = parsed.problems.find((p) => p.severity === 'error');
  if (!parsed.data || error) return { file, line: error?.line ?? 1, problem: error?.message ?? 'not a lesson' };
  const all = sections(parsed.body ?? '', parsed.bodyLine ?? 1);
  const section = (title: string) => prose(findSection(all, title)?.content);
  const lesson = section('Lesson');
  const evidence = findSection(all, 'Evidence')?.content ?? '';
  return {
    file,
    lesson: parsed.data,
    title: firstLine(lesson, 120) ?? file,
    text: { lesson, when: section('When this applies'), recommendation: section('Recommendation'), evidence: prose(evidence) },
    evidence: citedSignals(evidence),
    source: text,
  };
}
