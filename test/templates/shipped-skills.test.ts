import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAnyDocument } from '../../app/engine/knowledge/documents/any-document.js';
import { formatProblem } from '../../app/engine/core/spec/problem.js';
import { ROOT } from '../helpers/paths.js';

/**
 * Every SKILL.md the project ships (the template, the fixtures the tests read) is a valid
 * Agent Skill by the rules harness enforces: its name equals its folder, its description fits,
 * its eight sections are there. The ones the tests generate are checked where they are made.
 */

function skillFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', '.git', 'dist', 'coverage', '.orchestration'].includes(e.name)) continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...skillFiles(path));
    else if (e.name === 'SKILL.md') out.push(path);
  }
  return out;
}

describe('the SKILL.md files the project ships', () => {
  const files = skillFiles(ROOT).map((f) => relative(ROOT, f));

  it('are found (the template and the fixtures)', () => {
    expect(files).toContain('templates/skill/SKILL.md');
    expect(files.length).toBeGreaterThan(2);
  });

  it.each(files)('%s is a valid Agent Skill', (file) => {
    // Checked as the store has it: skills/<name>/SKILL.md or skills-archived/<name>/SKILL.md; the template as the skill it names.
    const at = /(skills(?:-archived)?\/[^/]+\/SKILL\.md)$/.exec(file)?.[1] ?? 'skills/sqlite-busy-in-parallel-tests/SKILL.md';
    const problems = parseAnyDocument('skill', at, readFileSync(join(ROOT, file), 'utf8')).problems.filter((p) => p.severity === 'error');
    expect(problems.map((p) => formatProblem(p))).toEqual([]);
  });
});
