import type { DocumentContext, DocumentRules } from '../../core/documents/parse-with.js';
import { problem, type Problem } from '../../core/spec/problem.js';
import { folderOf } from './folder.js';
import { LESSON_HINTS } from './hints.js';
import { LessonSchema, type Lesson } from './schema.js';

/** A lesson: one sentence, when it applies, what to do, and the evidence behind it. */
export const lessonRules: DocumentRules<typeof LessonSchema> = {
  schema: LessonSchema,
  template: 'templates/lesson.md',
  hints: LESSON_HINTS,
  sections: ['Lesson', 'When this applies', 'Recommendation', 'Evidence'],
  check: checkLesson,
};

function checkLesson({ file, data, lines, options }: DocumentContext<Lesson>): Problem[] {
  const folder = folderOf(file, options, 'lesson');
  if (folder === undefined || folder === data.category) return [];
  return [
    problem(
      file,
      lines.lineOf(['category']),
      'field-value',
      `category is ${data.category} but the lesson is filed under lessons/${folder}/; move it or change the category`,
    ),
  ];
}
