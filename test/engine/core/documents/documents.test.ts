import { describe, expect, it } from 'vitest';
import { documentKindOf, parseAnyDocument, type AnyDocumentKind } from '../../../../app/engine/knowledge/documents/any-document.js';
import type { ParseOptions } from '../../../../app/engine/core/documents/parse.js';
import { renderTemplate, TemplateError, templatePlaceholders } from '../../../../app/engine/core/documents/render-template.js';
import { averageMinutes, progressPercent } from '../../../../app/engine/core/documents/status.js';
import { parseFrontmatter } from '../../../../app/engine/core/spec/frontmatter.js';
import { formatProblem } from '../../../../app/engine/core/spec/problem.js';

/** A document from its lines, so each fixture shows the line numbers its messages name. */
function doc(...lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

function problems(kind: AnyDocumentKind, file: string, text: string, options: ParseOptions = {}): string[] {
  return parseAnyDocument(kind, file, text, options).problems.map((p) => formatProblem(p));
}

describe('SUMMARY.md', () => {
  const file = 'execution/phases/01-foundation/01-01-SUMMARY.md';

  it('reads a run with defaults filled in', () => {
    const parsed = parseAnyDocument(
      'summary',
      file,
      doc(
        '---',
        'plan_id: "01-01"',
        'spec: SPC-001',
        'status: verified',
        'started: 2026-03-02T09:14:00Z',
        'finished: 2026-03-02T09:41:00+00:00',
        'duration_minutes: 27',
        'checks:',
        '  - { id: tests, result: pass, evidence: "12 passed" }',
        '---',
        '',
        '# Summary',
      ),
    );
    expect(parsed.problems).toEqual([]);
    expect(parsed.data).toMatchObject({ plan_id: '01-01', status: 'verified', attempts: 1, commits: [], deviations: [] });
  });

  it('names the line and the fix for each malformed key', () => {
    const text = doc(
      '---',
      'plan_id: "01-01"',
      'spec: SPC-001',
      'status: done',
      'started: 2026-03-02T09:14:00Z',
      'finished: 2026-03-02 09:41',
      'duration_minutes: 27',
      'commits:',
      '  - { sha: HEAD }',
      '---',
    );
    expect(problems('summary', file, text)).toEqual([
      `${file}:4: status is "done"; it must be one of verified, failed`,
      `${file}:6: finished is "2026-03-02 09:41"; it must be an ISO-8601 time with its zone, such as 2026-03-02T09:41:00Z`,
      `${file}:9: commits[0].sha is "HEAD"; it must be a commit sha (7 to 40 lowercase hex digits)`,
    ]);
  });

  it('refuses a verified plan whose checks did not all pass, or that lists none', () => {
    const failing = doc(
      '---',
      'plan_id: "01-01"',
      'spec: SPC-001',
      'status: verified',
      'started: 2026-03-02T09:14:00Z',
      'finished: 2026-03-02T09:20:00Z',
      'duration_minutes: 27',
      'checks:',
      '  - { id: tests, result: fail, evidence: "1 failed" }',
      '  - { id: tests, result: pass, evidence: "ok" }',
      '---',
    );
    expect(problems('summary', file, failing)).toEqual([
      `${file}:7: duration_minutes is 27 but only 6 minutes passed from started to finished`,
      `${file}:9: checks[0].result is fail ("tests"), so the plan is not verified; set status: failed or record the passing run`,
      `${file}:10: checks[1]: check "tests" is already reported by checks[0]; report each check once`,
    ]);
    const vacuous = doc(
      '---',
      'plan_id: "01-01"',
      'spec: SPC-001',
      'status: verified',
      'started: 2026-03-02T09:14:00Z',
      'finished: 2026-03-02T09:00:00Z',
      'duration_minutes: 0',
      '---',
    );
    expect(problems('summary', file, vacuous)).toEqual([
      `${file}:4: status is verified but no check results are listed; add the must_pass results that showed it under checks:`,
      `${file}:6: finished (2026-03-02T09:00:00Z) is before started (2026-03-02T09:14:00Z)`,
    ]);
  });
});

describe('VERIFICATION.md', () => {
  const file = 'execution/phases/01-foundation/VERIFICATION.md';
  const head = ['---', 'spec: SPC-001', 'verified_at: 2026-03-02T10:05:00Z'];

  it('ties the status to the results', () => {
    const text = doc(
      ...head,
      'level: phase',
      'phase: "01"',
      'status: verified',
      'checks:',
      '  - { id: build, result: pass, evidence: "exit 0" }',
      '  - { id: look, type: human, result: skipped-for-human, evidence: "asked @reviewer" }',
      '---',
    );
    expect(problems('verification', file, text)).toEqual([`${file}:6: status is verified but checks[1] "look" waits for a person; set status: needs-human`]);
    const failed = text.replace('result: pass', 'result: fail');
    expect(problems('verification', file, failed)).toEqual([`${file}:6: status is verified but checks[0] "build" failed; set status: failed`]);
  });

  it('asks for the key each level needs', () => {
    const text = doc(...head, 'level: plan', 'phase: "02"', 'status: verified', 'checks:', '  - { id: tests, result: passed, evidence: "ok" }', '---');
    expect(problems('verification', file, text)).toEqual([
      `${file}:8: checks[0].result is "passed"; it must be one of pass, fail, skipped-for-human; did you mean "pass"?`,
    ]);
    const fixed = text.replace('passed', 'pass');
    expect(problems('verification', file, fixed)).toEqual([`${file}:4: level is plan but there is no "plan" key; add plan: "01-01"`]);
    const mismatched = fixed.replace('level: plan', 'level: plan\nplan: "01-02"');
    expect(problems('verification', file, mismatched)).toEqual([`${file}:6: phase is "02" but plan 01-02 belongs to phase 01`]);
  });
});

describe('STATUS.md', () => {
  const file = 'STATUS.md';
  const status = (progress: string[], velocity: string[], state = 'executing') =>
    doc(
      '---',
      'spec: SPC-001',
      `status: ${state}`,
      'current_phase: "01"',
      'progress:',
      ...progress,
      'velocity:',
      ...velocity,
      'updated: 2026-03-02T09:41:00Z',
      '---',
    );
  const progress = ['  plans_total: 4', '  plans_verified: 1', '  phases_total: 2', '  phases_verified: 0', '  percent: 25'];
  const velocity = ['  plans_completed: 3', '  total_minutes: 40', '  average_minutes_per_plan: 13.3'];

  it('accepts progress and velocity that agree with themselves', () => {
    expect(problems('status', file, status(progress, velocity))).toEqual([]);
    expect(progressPercent(1, 3)).toBe(33);
    expect(progressPercent(0, 0)).toBe(0);
    expect(averageMinutes(40, 3)).toBe(13.3);
    expect(averageMinutes(0, 0)).toBe(0);
  });

  it('reports numbers that disagree', () => {
    const wrong = status(progress.with(4, '  percent: 30'), velocity.with(2, '  average_minutes_per_plan: 9'), 'complete');
    expect(problems('status', file, wrong)).toEqual([
      `${file}:3: status is complete but not every plan and phase is verified; a spec is complete only when every phase has passed`,
      `${file}:10: progress.percent is 30 but 1 of 4 plans verified is 25`,
      `${file}:14: velocity.average_minutes_per_plan is 9 but 40 minutes over 3 plans is 13.3`,
    ]);
  });

  it('names missing and misspelt keys', () => {
    const text = status(progress.slice(0, 4).concat('  percnt: 25'), velocity).replace('current_phase: "01"', 'current_phase: 1');
    expect(problems('status', file, text)).toEqual([
      `${file}:4: current_phase is the number 1; it must be a phase id such as "03", quoted, or null`,
      `${file}:5: missing required key "percent" in progress: a whole number from 0 to 100`,
      `${file}:10: unknown key "percnt" in progress; did you mean "percent"?`,
    ]);
  });
});

describe('signals', () => {
  const file = 'signals/harness/2026-03-02/20260302T093000Z-deviation.signal.md';

  it('checks type, severity, times and unknown keys, and asks for "What happened"', () => {
    const text = doc(
      '---',
      'type: deviaton',
      'severity: 3',
      'project: harness',
      'timestamp: 2026-03-02T09:30:00',
      'gene: gene-20260302-a1b2c3d4',
      '---',
      '',
      '## Context',
      '',
      'Plan 01-01.',
    );
    expect(problems('signal', file, text)).toEqual([
      `${file}:2: type is "deviaton"; it must be one of deviation, frustration, struggle, config, pattern, repair, innovation, completion, use, interrupted, timeout, stuck, review; did you mean "deviation"?`,
      `${file}:3: severity is the number 3; it must be one of low, medium, high`,
      `${file}:5: timestamp is "2026-03-02T09:30:00"; it must be an ISO-8601 time with its zone, such as 2026-03-02T09:41:00Z`,
      `${file}:6: unknown key "gene"; put keys of your own under metadata:`,
      `${file}:8: missing the section "## What happened"; add it to the body (see templates/signal.md)`,
    ]);
  });

  it('checks where the signal says it happened against its file and its plan', () => {
    const text = doc(
      '---',
      'type: stuck',
      'severity: high',
      'project: harness',
      'phase: "02"',
      'plan: "01-03"',
      'timestamp: 2026-03-02T09:30:00Z',
      '---',
      '',
      '## What happened',
      '',
      '',
      '## Context',
      '',
      'Review loop, four rounds.',
    );
    expect(problems('signal', file, text)).toEqual([
      `${file}:2: type is stuck but the file name says deviation; signals are named <timestamp>-<type>.signal.md`,
      `${file}:5: phase is "02" but plan 01-03 belongs to phase 01`,
      `${file}:10: the section "## What happened" is empty; write what belongs there`,
    ]);
  });

  it('reads a minimal signal and ignores headings inside code blocks', () => {
    const text = doc(
      '---',
      'type: repair',
      'severity: low',
      'project: harness',
      'timestamp: 2026-03-02T09:30:00+02:00',
      '---',
      '```md',
      '## What happened',
      '```',
    );
    expect(problems('signal', 'x.signal.md', text)).toEqual([
      'x.signal.md:7: missing the section "## What happened"; add it to the body (see templates/signal.md)',
    ]);
    const good = parseAnyDocument('signal', 'x.signal.md', `${text}\n## What happened\n\nThe retry worked.\n`);
    expect(good.problems).toEqual([]);
    expect(good.data).toEqual({ type: 'repair', severity: 'low', project: 'harness', timestamp: '2026-03-02T09:30:00+02:00', tags: [] });
  });
});

describe('spikes', () => {
  const dir = 'spikes/harness/run-state-in-files';

  it('keeps the spike name equal to its folder', () => {
    const text = doc(
      '---',
      'spike: run-state-in-sqlite',
      'project: harness',
      'question: Files or SQLite?',
      'created: 2026-03-02T11:00:00Z',
      '---',
      '## Hypothesis',
      'Files are enough.',
      '## Success criteria',
      'Twenty of twenty resumes.',
    );
    expect(problems('hypothesis', `${dir}/HYPOTHESIS.md`, text)).toEqual([
      `${dir}/HYPOTHESIS.md:2: spike is "run-state-in-sqlite" but the folder is "run-state-in-files"; rename one so they match`,
    ]);
    expect(problems('hypothesis', 'HYPOTHESIS.md', text, { folder: 'run-state-in-sqlite' })).toEqual([]);
    expect(parseAnyDocument('hypothesis', 'HYPOTHESIS.md', text).data?.status).toBe('open');
  });

  it('needs criteria to measure an experiment by', () => {
    const text = doc(
      '---',
      'spike: run-state-in-files',
      'project: harness',
      'method: benchmark',
      'time_box_minutes: 0',
      'criteria: []',
      'started: 2026-03-02T11:15:00Z',
      '---',
      '## Setup',
      'x',
      '## Procedure',
      'y',
      '## Results',
      'z',
    );
    expect(problems('experiment', `${dir}/EXPERIMENT.md`, text)).toEqual([
      `${dir}/EXPERIMENT.md:5: time_box_minutes is the number 0; it must be whole minutes from 1 to 1440`,
      `${dir}/EXPERIMENT.md:6: criteria is empty; it must be a list such as { id: resume, measure: "time to resume a run", target: "under 1 s" }`,
    ]);
  });

  it('records a decision with its outcome, evidence and consequences', () => {
    const text = doc(
      '---',
      'spike: run-state-in-files',
      'project: harness',
      'decision: Use files.',
      'outcome: yes',
      'confidence: high',
      'decided: 2026-03-02T12:40:00Z',
      '---',
      '## Decision',
      'Files.',
      '## Evidence',
      '20/20.',
    );
    expect(problems('decision', `${dir}/DECISION.md`, text)).toEqual([
      `${dir}/DECISION.md:5: outcome is "yes"; it must be one of confirmed, refuted, inconclusive`,
      `${dir}/DECISION.md:9: missing the section "## Consequences"; add it to the body (see templates/spike/DECISION.md)`,
    ]);
  });
});

describe('lessons', () => {
  it('files a lesson under its category and counts its evidence', () => {
    const file = 'lessons/tooling/sqlite-in-tests.lesson.md';
    const text = doc(
      '---',
      'category: library',
      'confidence: sure',
      'evidence_count: 0',
      'last_updated: 2026-13-02',
      '---',
      '## Lesson',
      'One database per test file.',
      '## When this applies',
      'Parallel tests.',
      '## Recommendation',
      'Give each worker its own file.',
      '## Evidence',
      '- Signal: signals/harness/2026-03-02/x-struggle.signal.md',
    );
    expect(problems('lesson', file, text)).toEqual([
      `${file}:3: confidence is "sure"; it must be one of low, medium, high`,
      `${file}:4: evidence_count is the number 0; it must be a whole number, 1 or more: the signals and spikes behind the lesson`,
      `${file}:5: last_updated is "2026-13-02"; it must be an ISO-8601 date or time, such as 2026-03-02 or 2026-03-02T09:41:00Z`,
    ]);
    const fixed = text.replace('sure', 'high').replace('evidence_count: 0', 'evidence_count: 1').replace('2026-13-02', '2026-03-02');
    expect(problems('lesson', file, fixed)).toEqual([
      `${file}:2: category is library but the lesson is filed under lessons/tooling/; move it or change the category`,
    ]);
    expect(problems('lesson', file, fixed.replace('library', 'tooling'))).toEqual([]);
  });
});

describe('skills (Agent Skills format)', () => {
  const body = ['Problem', 'Trigger conditions', 'Root cause', 'Solution', 'Verification', 'Anti-patterns', 'Related', 'Changelog'].flatMap((s) => [
    `## ${s}`,
    '',
    `What the ${s.toLowerCase()} says.`,
    '',
  ]);
  const skill = (...front: string[]) => doc('---', ...front, '---', '', '# Instructions', '', ...body);

  it("accepts the format's optional keys, with harness's own under metadata", () => {
    const text = skill(
      'name: fix-sqlite-busy',
      'description: Fixes SQLITE_BUSY in parallel tests.',
      'license: MIT',
      'compatibility: Node.js 20',
      'allowed-tools: Bash(npm:*) Read',
      'metadata:',
      '  version: "1.0"',
      '  extracted-from: SPC-001/01-01',
    );
    const parsed = parseAnyDocument('skill', 'skills/fix-sqlite-busy/SKILL.md', text);
    expect(parsed.problems).toEqual([]);
    expect(parsed.data?.metadata).toEqual({ version: '1.0', 'extracted-from': 'SPC-001/01-01' });
  });

  it.each([
    ['Fix-Sqlite', '"Fix-Sqlite"'],
    ['-fix', '"-fix"'],
    ['fix-', '"fix-"'],
    ['fix--sqlite', '"fix--sqlite"'],
    ['fix_sqlite', '"fix_sqlite"'],
  ])('refuses the name %s', (name, shown) => {
    const file = `skills/${name}/SKILL.md`;
    expect(problems('skill', file, skill(`name: "${name}"`, 'description: x'))).toEqual([
      `${file}:2: name is ${shown}; it must be 1 to 64 characters of lowercase a-z and 0-9, with single "-" between words (such as fix-sqlite-busy)`,
    ]);
  });

  it('limits name to 64 characters and description to 1024', () => {
    const name = 'a'.repeat(65);
    const file = `skills/${name}/SKILL.md`;
    expect(problems('skill', file, skill(`name: ${name}`, `description: ${'d'.repeat(1025)}`))).toEqual([
      `${file}:2: name is 65 characters long; it must be 1 to 64 characters of lowercase a-z and 0-9, with single "-" between words (such as fix-sqlite-busy)`,
      `${file}:3: description is 1,025 characters long; it must be 1 to 1024 characters saying what the skill does and when to use it`,
    ]);
    const ok = 'a'.repeat(64);
    expect(problems('skill', `skills/${ok}/SKILL.md`, skill(`name: ${ok}`, `description: ${'d'.repeat(1024)}`))).toEqual([]);
  });

  it('allows no keys outside the format, and only text in metadata', () => {
    const file = 'skills/fix-sqlite-busy/SKILL.md';
    const text = skill(
      'name: fix-sqlite-busy',
      'description: "   "',
      'version: 1.0.0',
      'allowed-tools: [Bash, Read]',
      'metadata:',
      '  version: 1.0',
      '  tags: [sqlite]',
    );
    expect(problems('skill', file, text)).toEqual([
      `${file}:3: description is "   "; it must be 1 to 1024 characters saying what the skill does and when to use it`,
      `${file}:4: unknown key "version"; put keys of your own under metadata:`,
      `${file}:5: allowed-tools is a list; it must be one string of space-separated tools, such as "Bash(npm:*) Read"`,
      `${file}:7: metadata.version is the number 1; it must be text in quotes: Agent Skills metadata values are strings`,
      `${file}:8: metadata.tags is a list; it must be text in quotes: Agent Skills metadata values are strings`,
    ]);
  });

  it('must be named after its folder and carry instructions', () => {
    const text = doc('---', 'name: fix-sqlite-busy', 'description: Fixes SQLITE_BUSY.', '---', '', '<!-- to do -->', '');
    expect(problems('skill', 'skills/sqlite-busy/SKILL.md', text)).toEqual([
      `skills/sqlite-busy/SKILL.md:2: name is "fix-sqlite-busy" but the folder is "sqlite-busy"; an Agent Skill's name must equal its folder's`,
      'skills/sqlite-busy/SKILL.md:5: the skill has no instructions; write them in the body, below the frontmatter (see templates/skill/SKILL.md)',
    ]);
    // The folder given wins over the path, and archived skills are held to their folder too.
    expect(problems('skill', 'SKILL.md', text, { folder: 'other' })[0]).toContain('but the folder is "other"');
    expect(problems('skill', 'skills-archived/old/SKILL.md', text)[0]).toContain('but the folder is "old"');
  });
  it("has the eight sections of harness's skill template, each with text", () => {
    const file = 'skills/fix-sqlite-busy/SKILL.md';
    const text = doc(
      '---',
      'name: fix-sqlite-busy',
      'description: Fixes SQLITE_BUSY.',
      '---',
      '',
      '## Problem',
      '',
      'Locked.',
      '',
      '## Solution',
      '',
      '',
      '## Pitfalls',
      '',
      'x',
    );
    expect(problems('skill', file, text)).toEqual([
      `${file}:5: missing the section "## Anti-patterns"; add it to the body (see templates/skill/SKILL.md)`,
      `${file}:5: missing the section "## Changelog"; add it to the body (see templates/skill/SKILL.md)`,
      `${file}:5: missing the section "## Related"; add it to the body (see templates/skill/SKILL.md)`,
      `${file}:5: missing the section "## Root cause"; add it to the body (see templates/skill/SKILL.md)`,
      `${file}:5: missing the section "## Trigger conditions"; add it to the body (see templates/skill/SKILL.md)`,
      `${file}:5: missing the section "## Verification"; add it to the body (see templates/skill/SKILL.md)`,
      `${file}:10: the section "## Solution" is empty; write what belongs there`,
    ]);
  });
});

describe('genes and capsules', () => {
  it("checks a gene's id, its file name and its record", () => {
    const file = 'genes/gene-20260302-a1b2c3d4.gene.md';
    const text = doc(
      '---',
      'id: gene-20260302-a1b2c3d5',
      'type: habit',
      'name: Retry with backoff',
      'description: Retry, then fall back.',
      'version: 1',
      'success_rate: 1.5',
      'usage_count: 3',
      'created: 2026-03-02T10:00:00Z',
      'updated: 2026-03-01T10:00:00Z',
      '---',
      '## Content',
      'Retry three times.',
    );
    expect(problems('gene', file, text)).toEqual([
      `${file}:3: type is "habit"; it must be one of pattern, prompt, config, workflow`,
      `${file}:7: success_rate is the number 1.5; it must be a number from 0 to 1`,
    ]);
    const fixed = text.replace('habit', 'pattern').replace('1.5', '0.5');
    expect(problems('gene', file, fixed)).toEqual([
      `${file}:2: id is "gene-20260302-a1b2c3d5" but the file is named gene-20260302-a1b2c3d4.gene.md; name it gene-20260302-a1b2c3d5.gene.md`,
      `${file}:10: updated (2026-03-01T10:00:00Z) is before created (2026-03-02T10:00:00Z)`,
    ]);
  });

  it('needs a project for a project-scoped capsule, and at least one gene', () => {
    const file = 'capsules/cap-20260302-e5f6a7b8.capsule.md';
    const text = doc(
      '---',
      'id: cap-20260302-e5f6a7b8',
      'name: JWT auth',
      'description: Token login for Express.',
      'genes: []',
      'steps:',
      '  - { action: Install, command: "npm ci", outcome: ok }',
      'validation: { confidence: 0.9, impact_scope: 3, consecutive_successes: 2, test_pass_rate: 1 }',
      'scope: project',
      '---',
    );
    expect(problems('capsule', file, text)).toEqual([
      `${file}:5: genes is empty; it must be a list of gene ids such as [gene-20260302-a1b2c3d4]`,
      `${file}:7: steps[0].outcome is "ok"; it must be one of success, failure, skipped`,
    ]);
    const fixed = text.replace('genes: []', 'genes: [gene-20260302-a1b2c3d4]').replace('outcome: ok', 'outcome: success');
    expect(problems('capsule', file, fixed)).toEqual([`${file}:9: scope is project but there is no "project" key; name the project, or set scope: workspace`]);
  });
});

describe('parseAnyDocument', () => {
  it('reads CRLF files with a byte-order mark, and reports empty files and missing frontmatter', () => {
    const text =
      '\ufeff---\r\ntype: use\r\nseverity: low\r\nproject: harness\r\ntimestamp: 2026-03-02T09:30:00Z\r\n---\r\n## What happened\r\nThe skill was applied.\r\n';
    expect(problems('signal', 'a.signal.md', text)).toEqual([]);
    expect(problems('signal', 'a.signal.md', '  \n')).toEqual(['a.signal.md:1: file is empty; fill it in from templates/signal.md']);
    expect(problems('lesson', 'a.lesson.md', '## Lesson\n')[0]).toMatch(/^a\.lesson\.md:1: no YAML frontmatter/);
  });

  it('parses spec documents one by one', () => {
    expect(problems('spec', 'SPEC.md', doc('---', 'id: spc-1', 'title: x', '---'))).toEqual([
      'SPEC.md:2: id is "spc-1"; it must be a spec id such as SPC-001: capital letters, "-", digits',
    ]);
    const plan = parseAnyDocument(
      'plan',
      'planning/plans/03-auth/03-02-PLAN.md',
      doc('---', 'plan_id: "03-02"', 'title: Login', 'must_pass:', '  - { id: t, type: tests_pass, command: "npm test" }', '---'),
    );
    expect(plan.problems).toEqual([]);
    expect(plan.data?.phase).toBe('03');
  });
});

describe('documentKindOf', () => {
  it.each([
    ['docs/specs/SPC-001-x/SPEC.md', 'spec'],
    ['planning/plans/01-a/01-02-PLAN.md', 'plan'],
    ['execution/phases/01-a/01-02-SUMMARY.md', 'summary'],
    ['execution/phases/01-a/VERIFICATION.md', 'verification'],
    ['execution/FINAL-VERIFICATION.md', 'verification'],
    ['STATUS.md', 'status'],
    ['.harness/knowledge/signals/h/2026-03-02/20260302T0930Z-use.signal.md', 'signal'],
    ['.harness/knowledge/spikes/h/s/DECISION.md', 'decision'],
    ['.harness/knowledge/lessons/tooling/x.lesson.md', 'lesson'],
    ['.harness/knowledge/skills/x/SKILL.md', 'skill'],
    ['.harness/knowledge/genes/gene-20260302-a1b2c3d4.gene.md', 'gene'],
    ['README.md', undefined],
  ])('%s is %s', (path, kind) => {
    expect(documentKindOf(path)).toBe(kind);
  });
});

describe('renderTemplate', () => {
  const template = doc(
    '---',
    '# comment',
    'b: 1',
    'a: { d: 1, c: 2 }',
    'list:',
    '  - { q: 1, p: 2 }',
    '---',
    '',
    '# {{title}}',
    '',
    '{{ body }} and {{title}} again.',
  );

  it('replaces the frontmatter, template keys first, and fills every placeholder', () => {
    const out = renderTemplate(
      template,
      { extra: 'e', a: { c: 3, d: 4, z: 5 }, list: [{ p: 1, q: 2 }], b: 2, gone: undefined, when: new Date('2026-03-02T09:41:00Z') },
      { title: 'Hello', body: 'Body {{title}}', unused: 'fine' },
    );
    expect(out).toBe(
      doc(
        '---',
        'b: 2',
        'a:',
        '  d: 4',
        '  c: 3',
        '  z: 5',
        'list:',
        '  - q: 2',
        '    p: 1',
        'extra: e',
        'when: "2026-03-02T09:41:00.000Z"',
        '---',
        '',
        '# Hello',
        '',
        'Body {{title}} and Hello again.',
      ),
    );
  });

  it('refuses to leave a placeholder unfilled', () => {
    expect(() => renderTemplate(template, {}, { title: 'x' })).toThrow(TemplateError);
    try {
      renderTemplate(template, {}, {});
    } catch (e) {
      expect(e).toBeInstanceOf(TemplateError);
      expect((e as TemplateError).name).toBe('TemplateError');
      expect((e as TemplateError).missing).toEqual(['title', 'body']);
      expect((e as TemplateError).message).toBe('no value for {{title}}, {{body}}; pass one for each placeholder');
    }
    expect(templatePlaceholders(template)).toEqual(['title', 'body']);
  });

  it('writes YAML that reads back the same under YAML 1.1 and 1.2 rules', () => {
    const data = { plan_id: '01-01', phase: '01', day: '2026-03-02', answer: 'yes', octal: '0o17', n: 3 };
    const out = renderTemplate('---\nplan_id: "01-01"\n---\nx\n', data, {});
    const fm = parseFrontmatter('x.md', out);
    expect(fm.ok && fm.frontmatter.data).toEqual(data);
    expect(out).toContain('day: "2026-03-02"');
    expect(out).toContain('answer: "yes"');
  });

  it('leaves Actions expressions alone and handles templates without frontmatter', () => {
    expect(renderTemplate('run: ${{ github.sha }} {{x}}\n', {}, { x: 'y' })).toBe('run: ${{ github.sha }} y\n');
    expect(renderTemplate('# {{x}}\n', { id: 'SPC-001' }, { x: 'y' })).toBe('---\nid: SPC-001\n---\n# y\n');
    expect(() => renderTemplate('---\na: 1\n# never closed\n', {}, {})).toThrow(/never closed/);
  });
});
