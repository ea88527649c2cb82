import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAnyDocument, TEMPLATE_FILES, type AnyDocumentKind } from '../../app/engine/knowledge/documents/any-document.js';
import type { ParseOptions } from '../../app/engine/core/documents/parse.js';
import { renderTemplate, templatePlaceholders } from '../../app/engine/core/documents/render-template.js';
import { parseFrontmatter } from '../../app/engine/core/spec/frontmatter.js';
import { loadSpec } from '../../app/engine/core/spec/load.js';
import { formatProblem } from '../../app/engine/core/spec/problem.js';
import type { SpecFile } from '../../app/engine/core/spec/text.js';
import { ROOT } from '../helpers/paths.js';

/**
 * The templates are the documents every writer in harness starts from, so each must be
 * valid input for its own parser exactly as shipped, and stay valid once rendered.
 */

function template(path: string): string {
  return readFileSync(join(ROOT, 'templates', path), 'utf8');
}

function frontmatterOf(text: string): Record<string, unknown> {
  const fm = parseFrontmatter('template', text);
  if (!fm.ok) throw new Error(fm.problems.map((p) => formatProblem(p)).join('\n'));
  return fm.frontmatter.data;
}

function specFile(path: string, text: string): SpecFile {
  return { path, bytes: new TextEncoder().encode(text) };
}

/** The folder each knowledge template's name must match when it is filed. */
const FOLDERS: Partial<Record<AnyDocumentKind, string>> = {
  skill: 'sqlite-busy-in-parallel-tests',
  hypothesis: 'run-state-in-files',
  experiment: 'run-state-in-files',
  decision: 'run-state-in-files',
};

const KINDS = Object.keys(TEMPLATE_FILES) as AnyDocumentKind[];

/** Every placeholder filled with text that names it, so the output shows where each went. */
function fill(text: string): Record<string, string> {
  return Object.fromEntries(templatePlaceholders(text).map((name) => [name, `Filled in: ${name}.`]));
}

describe('templates as shipped', () => {
  it('SPEC.md, ROADMAP.md and PLAN.md load as a spec with no problems at all', () => {
    const loaded = loadSpec([
      specFile('SPEC.md', template('SPEC.md')),
      specFile('ROADMAP.md', template('ROADMAP.md')),
      specFile('planning/plans/01-foundation/01-01-PLAN.md', template('PLAN.md')),
    ]);
    expect(loaded.problems.map((p) => formatProblem(p))).toEqual([]);
    expect(loaded.valid).toBe(true);
    expect(loaded.spec?.id).toBe('SPC-001');
    expect(loaded.spec?.phases.map((p) => [p.id, p.title, p.plans])).toEqual([['01', 'Foundation', ['01-01']]]);
    const plan = loaded.spec!.planById.get('01-01')!;
    expect(plan.mustPass.map((c) => c.type)).toEqual(['tests_pass', 'file_exists', 'file_contains']);
    expect(plan.steps).toHaveLength(1);
    expect(plan.steps[0]).toMatchObject({ title: 'Install dependencies', lang: 'sh', script: 'npm ci' });
  });

  it.each(KINDS)('the %s template parses with zero problems', (kind) => {
    const path = `templates/${TEMPLATE_FILES[kind]}`;
    const options: ParseOptions = FOLDERS[kind] ? { folder: FOLDERS[kind] } : {};
    const parsed = parseAnyDocument(kind, path, template(TEMPLATE_FILES[kind]), options);
    expect(parsed.problems.map((p) => formatProblem(p))).toEqual([]);
    expect(parsed.data).toBeDefined();
  });

  it.each(KINDS)('the %s template keeps placeholders out of its frontmatter and has some in its body', (kind) => {
    const text = template(TEMPLATE_FILES[kind]);
    const closing = text.indexOf('\n---\n', 4);
    expect(closing).toBeGreaterThan(0);
    expect(text.slice(0, closing)).not.toMatch(/\{\{/);
    expect(templatePlaceholders(text).length).toBeGreaterThan(0);
  });

  it('the skill template is filed under its own name', () => {
    const text = template('skill/SKILL.md');
    expect(parseAnyDocument('skill', 'skills/sqlite-busy-in-parallel-tests/SKILL.md', text).problems).toEqual([]);
    expect(parseAnyDocument('skill', 'skills/another-name/SKILL.md', text).problems.map((p) => formatProblem(p))).toEqual([
      `skills/another-name/SKILL.md:5: name is "sqlite-busy-in-parallel-tests" but the folder is "another-name"; an Agent Skill's name must equal its folder's`,
    ]);
  });
});

describe('templates rendered', () => {
  it.each(KINDS)('the %s template renders to a document that parses and carries the given values', (kind) => {
    const text = template(TEMPLATE_FILES[kind]);
    const data = frontmatterOf(text);
    const values = fill(text);
    const rendered = renderTemplate(text, data, values);
    const options: ParseOptions = FOLDERS[kind] ? { folder: FOLDERS[kind] } : {};
    const parsed = parseAnyDocument(kind, `rendered/${TEMPLATE_FILES[kind]}`, rendered, options);
    expect(parsed.problems.map((p) => formatProblem(p))).toEqual([]);
    expect(frontmatterOf(rendered)).toEqual(data);
    for (const value of Object.values(values)) expect(parsed.body).toContain(value);
    expect(rendered).not.toMatch(/\{\{/);
  });

  it('a plan rendered from the template joins the spec as a second plan that depends on the first', () => {
    const planText = template('PLAN.md');
    const second = renderTemplate(
      planText,
      {
        ...frontmatterOf(planText),
        plan_id: '01-02',
        title: 'Send the email',
        depends_on: ['01-01'],
        files_modified: ['src/email/**'],
        must_pass: [{ id: 'tests', type: 'tests_pass', command: 'npm test -- test/email' }],
        requirements: ['REQ-02'],
        truths: ['A failed build sends one email to its committer.'],
      },
      fill(planText),
    );
    const loaded = loadSpec([
      specFile('SPEC.md', renderTemplate(template('SPEC.md'), { id: 'SPC-042', title: 'Build mail' }, fill(template('SPEC.md')))),
      specFile('ROADMAP.md', template('ROADMAP.md')),
      specFile('planning/plans/01-foundation/01-01-PLAN.md', planText),
      specFile('planning/plans/01-foundation/01-02-PLAN.md', second),
    ]);
    expect(loaded.problems.map((p) => formatProblem(p))).toEqual([]);
    expect(loaded.spec?.id).toBe('SPC-042');
    expect(loaded.spec?.title).toBe('Build mail');
    const plan = loaded.spec!.planById.get('01-02')!;
    expect(plan.title).toBe('Send the email');
    expect(plan.dependsOn).toEqual(['01-01']);
    expect(plan.filesModified).toEqual(['src/email/**']);
    expect(plan.body).toContain('# Filled in: plan_id.: Filled in: title.');
  });

  it('a signal rendered with new values carries them into its data', () => {
    const text = template('signal.md');
    const rendered = renderTemplate(
      text,
      { type: 'timeout', severity: 'high', project: 'billing', plan: '02-03', phase: '02', timestamp: '2026-04-01T08:00:00Z', tags: [] },
      { what_happened: 'The worker ran past 30 minutes.', context: 'Plan 02-03.', cause: 'A hanging test.' },
    );
    const parsed = parseAnyDocument('signal', 'signals/billing/2026-04-01/20260401T080000Z-timeout.signal.md', rendered);
    expect(parsed.problems).toEqual([]);
    expect(parsed.data).toEqual({
      type: 'timeout',
      severity: 'high',
      project: 'billing',
      phase: '02',
      plan: '02-03',
      timestamp: '2026-04-01T08:00:00Z',
      tags: [],
    });
    expect(parsed.body).toContain('## What happened\n\nThe worker ran past 30 minutes.\n');
  });
});
