import type { DocumentContext, DocumentRules } from '../../core/documents/parse-with.js';
import { requireSections } from '../../core/documents/sections.js';
import { problem, type Problem } from '../../core/spec/problem.js';
import { folderOf } from './folder.js';
import { SKILL_HINTS } from './hints.js';
import { SkillSchema, type Skill } from './schema.js';

/**
 * The sections of a harness skill's body, in order (docs/design.md, Knowledge): what goes wrong,
 * how to recognise it, why, what to do, how to know it worked, what not to do, what it
 * relates to, and its history. The Agent Skills format leaves the body free; harness's
 * template fixes it so that every skill reads the same way and a reviewer knows where to look.
 */
export const SKILL_SECTIONS = ['Problem', 'Trigger conditions', 'Root cause', 'Solution', 'Verification', 'Anti-patterns', 'Related', 'Changelog'] as const;

const TEMPLATE = 'templates/skill/SKILL.md';

/** A skill is an Agent Skill: its name is its folder's, and its body is its instructions. */
export const skillRules: DocumentRules<typeof SkillSchema> = {
  schema: SkillSchema,
  template: TEMPLATE,
  hints: SKILL_HINTS,
  check: checkSkill,
};

function checkSkill({ file, data, lines, body, bodyLine, options }: DocumentContext<Skill>): Problem[] {
  const problems: Problem[] = [];
  const folder = folderOf(file, options, 'skill');
  if (folder !== undefined && folder !== data.name) {
    problems.push(
      problem(
        file,
        lines.lineOf(['name']),
        'field-value',
        `name is "${data.name}" but the folder is "${folder}"; an Agent Skill's name must equal its folder's`,
      ),
    );
  }
  if (body.replace(/<!--[\s\S]*?-->/g, '').trim() === '') {
    problems.push(problem(file, bodyLine, 'field-missing', `the skill has no instructions; write them in the body, below the frontmatter (see ${TEMPLATE})`));
  } else {
    // Only once there is a body: an empty one is one problem, not eight.
    problems.push(...requireSections(file, body, bodyLine, SKILL_SECTIONS, TEMPLATE));
  }
  return problems;
}
