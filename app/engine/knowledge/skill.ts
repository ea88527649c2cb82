import type { DocumentContext, DocumentRules } from '../core/documents/parse-with.js';
import { problem, type Problem } from '../core/spec/problem.js';
import { folderOf } from './folder.js';
import { SKILL_HINTS } from './hints.js';
import { SkillSchema, type Skill } from './schema.js';

/** A skill is an Agent Skill: its name is its folder's, and its body is its instructions. */
export const skillRules: DocumentRules<typeof SkillSchema> = {
  schema: SkillSchema,
  template: 'templates/skill/SKILL.md',
  hints: SKILL_HINTS,
  check: checkSkill,
};

function checkSkill({ file, data, lines, body, bodyLine, options }: DocumentContext<Skill>): Problem[] {
  const problems: Problem[] = [];
  const folder = folderOf(file, options, 'skill');
  if (folder !== undefined && folder !== data.name) {
    problems.push(
      problem(file, lines.lineOf(['name']), 'field-value', `name is "${data.name}" but the folder is "${folder}"; an Agent Skill's name must equal its folder's`),
    );
  }
  if (body.replace(/<!--[\s\S]*?-->/g, '').trim() === '') {
    problems.push(problem(file, bodyLine, 'field-missing', 'the skill has no instructions; write them in the body, below the frontmatter (see templates/skill/SKILL.md)'));
  }
  return problems;
}
