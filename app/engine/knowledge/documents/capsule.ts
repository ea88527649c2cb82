import type { DocumentContext, DocumentRules } from '../../core/documents/parse-with.js';
import { problem, type Problem } from '../../core/spec/problem.js';
import { checkFileId } from './gene.js';
import { CAPSULE_HINTS } from './hints.js';
import { CapsuleSchema, type Capsule } from './schema.js';

/** A capsule: the steps that took a task from start to verified, and the genes they used. */
export const capsuleRules: DocumentRules<typeof CapsuleSchema> = {
  schema: CapsuleSchema,
  template: 'templates/capsule.md',
  hints: CAPSULE_HINTS,
  check: checkCapsule,
};

function checkCapsule({ file, data, lines }: DocumentContext<Capsule>): Problem[] {
  const problems = checkFileId(file, data.id, '.capsule.md', lines.lineOf(['id']));
  if (data.scope === 'project' && data.project === undefined) {
    problems.push(
      problem(file, lines.lineOf(['scope']), 'field-missing', 'scope is project but there is no "project" key; name the project, or set scope: workspace'),
    );
  }
  return problems;
}
