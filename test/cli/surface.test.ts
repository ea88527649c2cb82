import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir, writeTree } from '../helpers/cli.js';
import { git, makeRepo, SPEC_DIR, specTree } from '../helpers/repo.js';
import { holdoutDraw } from '../../app/engine/knowledge/holdout/holdout.js';
import { lessonText, PLANS, storeFiles } from '../helpers/surfacing.js';

const plan = (name: string) => readFileSync(join(PLANS, name), 'utf8');
const store = () => Object.fromEntries(storeFiles().map((f) => [`.harness/knowledge/${f.path}`, f.text]));
const PLAN_PATH = 'docs/specs/SPC-001-notes/planning/plans/01-store/01-02-PLAN.md';

describe('harness surface', () => {
  it("answers JSON, best first, from the plan's repository's .harness/knowledge", async () => {
    const root = await makeRepo({ ...store(), [PLAN_PATH]: plan('01-02-PLAN.md') });
    const { code, stdout, stderr } = await runCli(['surface', PLAN_PATH, '--json'], root);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const answer = JSON.parse(stdout);
    expect(answer.plan).toBe('01-02');
    expect(answer.store).toBe('.harness/knowledge');
    expect(answer.problems).toEqual([]);
    expect(answer.matches.map((m: { path: string; kind: string }) => [m.kind, m.path])).toEqual([
      ['lesson', 'lessons/testing/sqlite-parallel-tests.lesson.md'],
      ['skill', 'skills/sqlite-busy-in-parallel-tests/SKILL.md'],
    ]);
    for (const m of answer.matches) {
      expect(Object.keys(m)).toEqual(['path', 'kind', 'score', 'why', 'title', 'text']);
      expect(m.score).toBeGreaterThan(0);
      expect(m.why).not.toBe('');
    }
    expect(answer.matches[0].score).toBeGreaterThan(answer.matches[1].score);
  });

  it('says in words what applies and why, and that nothing does when nothing does', async () => {
    const root = await makeRepo({ ...store(), 'plans/01-02-PLAN.md': plan('01-02-PLAN.md'), 'plans/03-01-PLAN.md': plan('03-01-PLAN.md') });
    const found = await runCli(['surface', 'plans/01-02-PLAN.md'], root);
    expect(found.code).toBe(0);
    expect(found.stdout).toMatch(
      /^01-02 Note storage and its tests: 2 of the 7 lessons, skills and genes in \.harness\/knowledge apply \(budget 500 tokens, at most 5\)\n\n1\. lesson lessons\/testing\/sqlite-parallel-tests\.lesson\.md \(score [\d.]+\)\n {3}When Test files that share one SQLite database file fail with SQLITE_BUSY when vitest runs them in parallel → Give each test file its own database/,
    );
    expect(found.stdout).toContain('   why: tags sqlite, tests, parallel; names src/db/** (plan: src/db/notes.ts);');
    const none = await runCli(['surface', 'plans/03-01-PLAN.md'], root);
    expect(none).toEqual({ code: 0, stdout: '03-01 Dark mode colors: nothing of the 7 lessons, skills and genes in .harness/knowledge applies\n', stderr: '' });
    const empty = await makeRepo({ 'p/01-02-PLAN.md': plan('01-02-PLAN.md') });
    expect((await runCli(['surface', 'p/01-02-PLAN.md'], empty)).stdout).toBe(
      '01-02 Note storage and its tests: nothing to surface; .harness/knowledge holds no lessons, skills or genes\n',
    );
  });

  it('reads the store --knowledge names, with the budget and cap of .github/harness.yml or of its flags', async () => {
    const root = await makeRepo({
      'p/01-02-PLAN.md': plan('01-02-PLAN.md'),
      '.github/harness.yml': 'knowledge:\n  surface: { budget_tokens: 500, max_entries: 1 }\n',
    });
    const dir = await tempDir('harness-knowledge-');
    await writeTree(dir, Object.fromEntries(storeFiles().map((f) => [f.path, f.text])));
    const capped = JSON.parse((await runCli(['surface', 'p/01-02-PLAN.md', '--knowledge', dir, '--json'], root)).stdout);
    expect(capped.matches.map((m: { path: string }) => m.path)).toEqual(['lessons/testing/sqlite-parallel-tests.lesson.md']);
    expect((await runCli(['surface', 'p/01-02-PLAN.md', '--knowledge', dir], root)).stdout.split('\n')[0]).toMatch(
      /^01-02 Note storage and its tests: 1 of the 7 lessons, skills and genes in \S+ applies \(budget 500 tokens, at most 1\)$/,
    );
    const both = JSON.parse((await runCli(['surface', 'p/01-02-PLAN.md', '--knowledge', dir, '--max', '5', '--json'], root)).stdout);
    expect(both.matches).toHaveLength(2);
    const none = JSON.parse((await runCli(['surface', 'p/01-02-PLAN.md', '--knowledge', dir, '--budget', '0', '--json'], root)).stdout);
    expect(none.matches).toEqual([]);
  });

  it("says when the holdout keeps the plan from knowledge in a run, by its spec's id and the config's seed", async () => {
    // Two seeds: one that holds SPC-001's 01-02 out at a half, one that does not (and would under another spec id).
    const seeds = Array.from({ length: 200 }, (_, i) => `seed-${i}`);
    const out = seeds.find((s) => holdoutDraw(s, 'SPC-001', '01-02') < 0.5 && holdoutDraw(s, 'SPC-001-notes', '01-02') >= 0.5)!;
    const kept = seeds.find((s) => holdoutDraw(s, 'SPC-001', '01-02') >= 0.5 && holdoutDraw(s, 'SPC-001-notes', '01-02') < 0.5)!;
    const files = { ...store(), [PLAN_PATH]: plan('01-02-PLAN.md'), 'docs/specs/SPC-001-notes/SPEC.md': '---\nid: SPC-001\ntitle: Notes\n---\n# Notes\n' };
    const config = (seed: string) => `knowledge:\n  holdout: 0.5\n  holdout_seed: ${seed}\n`;

    const held = await runCli(['surface', PLAN_PATH], await makeRepo({ ...files, '.github/harness.yml': config(out) }));
    expect(held.code).toBe(0);
    expect(held.stdout.split('\n')[0]).toBe(
      'SPC-001 01-02 held out: runs without surfaced knowledge (knowledge.holdout 0.5); in a run it gets none of what follows',
    );
    expect(held.stdout).toContain('2 of the 7 lessons, skills and genes');
    const heldJson = JSON.parse((await runCli(['surface', PLAN_PATH, '--json'], await makeRepo({ ...files, '.github/harness.yml': config(out) }))).stdout);
    expect(heldJson.held_out).toBe(true);

    const given = await runCli(['surface', PLAN_PATH], await makeRepo({ ...files, '.github/harness.yml': config(kept) }));
    expect(given.stdout).not.toContain('held out');
    expect(JSON.parse((await runCli(['surface', PLAN_PATH, '--json'], await makeRepo(files))).stdout).held_out).toBe(false);
  });

  it('exits 1 naming each problem of the store by file and line, and still surfaces from the rest', async () => {
    const root = await makeRepo({
      ...store(),
      '.harness/knowledge/lessons/testing/unsure.lesson.md': lessonText({ tags: ['sqlite'], lesson: 'x', when: 'y', recommendation: 'z' }).replace(
        'confidence: medium',
        'confidence: sure',
      ),
      '.harness/knowledge/skills/misnamed/SKILL.md': `---\nname: another-name\ndescription: Does a thing.\n---\n\n${['Problem', 'Trigger conditions', 'Root cause', 'Solution', 'Verification', 'Anti-patterns', 'Related', 'Changelog'].map((s) => `## ${s}\n\nDo it.\n`).join('\n')}`,
      'p/01-02-PLAN.md': plan('01-02-PLAN.md'),
    });
    const text = await runCli(['surface', 'p/01-02-PLAN.md'], root);
    expect(text.code).toBe(1);
    expect(text.stderr).toBe(
      [
        '.harness/knowledge/lessons/testing/unsure.lesson.md:3: confidence is "sure"; it must be one of low, medium, high',
        '.harness/knowledge/skills/misnamed/SKILL.md:2: name is "another-name" but the folder is "misnamed"; an Agent Skill\'s name must equal its folder\'s',
        '',
      ].join('\n'),
    );
    expect(text.stdout).toContain('2 of the 7 lessons, skills and genes');
    const json = await runCli(['surface', 'p/01-02-PLAN.md', '--json'], root);
    expect(json.code).toBe(1);
    const answer = JSON.parse(json.stdout);
    expect(answer.problems.map((p: { file: string; line: number; severity: string }) => [p.file, p.line, p.severity])).toEqual([
      ['.harness/knowledge/lessons/testing/unsure.lesson.md', 3, 'error'],
      ['.harness/knowledge/skills/misnamed/SKILL.md', 2, 'error'],
    ]);
    expect(answer.matches).toHaveLength(2);
  });

  it('exits 1 for a plan that is not valid, naming its lines', async () => {
    const root = await makeRepo({ ...store(), 'p/01-02-PLAN.md': plan('01-02-PLAN.md').replace('autonomous: true', 'autonomous: maybe') });
    const { code, stdout, stderr } = await runCli(['surface', 'p/01-02-PLAN.md', '--json'], root);
    expect(code).toBe(1);
    const answer = JSON.parse(stdout);
    expect(answer.plan).toBeNull();
    expect(answer.matches).toEqual([]);
    expect(answer.problems).toEqual([
      expect.objectContaining({
        file: 'p/01-02-PLAN.md',
        line: 7,
        severity: 'error',
        code: 'field-type',
        message: 'autonomous is "maybe"; it must be true or false',
      }),
    ]);
    expect(stderr).toBe('');
    const text = await runCli(['surface', 'p/01-02-PLAN.md'], root);
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(
      /^p\/01-02-PLAN\.md:7: autonomous is "maybe"; it must be true or false\nharness surface: p\/01-02-PLAN\.md is not a valid plan; fix the problems above\n$/,
    );
  });

  it('exits 2 on usage errors, and 0 with its help', async () => {
    const root = await tempDir();
    for (const args of [
      ['surface'],
      ['surface', 'a.md', 'b.md'],
      ['surface', 'missing-PLAN.md'],
      ['surface', 'x.md', '--bogus'],
      ['surface', 'x.md', '--max', '-1'],
    ]) {
      const { code, stderr } = await runCli(args, root);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr).toContain('Usage: harness surface <PLAN.md>');
    }
    expect((await runCli(['surface', 'missing-PLAN.md'], root)).stderr).toMatch(/^harness surface: missing-PLAN\.md: no such file\n/);
    await writeTree(root, { 'p/01-02-PLAN.md': plan('01-02-PLAN.md'), 'a-file': 'x\n' });
    const missing = await runCli(['surface', 'p/01-02-PLAN.md', '--knowledge', 'nowhere'], root);
    expect([missing.code, missing.stderr.split('\n')[0]]).toEqual([2, 'harness surface: --knowledge nowhere: no such directory']);
    const file = await runCli(['surface', 'p/01-02-PLAN.md', '--knowledge', 'a-file'], root);
    expect([file.code, file.stderr.split('\n')[0]]).toEqual([2, 'harness surface: --knowledge a-file: not a directory']);
    const help = await runCli(['surface', '--help'], root);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: harness surface <PLAN\.md> \[--knowledge DIR\]/);
    expect((await runCli(['--help'], root)).stdout).toMatch(/surface +the lessons, skills and genes that apply to a plan/);
  });
});

describe('harness run --knowledge', () => {
  it('refuses a knowledge directory that is not there, before anything runs', async () => {
    const root = await makeRepo(specTree([{ id: '01-01', steps: ['mkdir -p out && echo ok > out/01-01.txt'] }]));
    const { code, stderr } = await runCli(['run', SPEC_DIR, '--knowledge', 'nowhere'], root);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe('harness run: --knowledge nowhere: no such directory');
    expect(existsSync(join(root, '.orchestration'))).toBe(false);
  });
});

describe('harness surface, by evidence', () => {
  const LESSON = [
    '---',
    'category: testing',
    'confidence: medium',
    'evidence_count: 8',
    'last_updated: "2026-04-02"',
    'tags: [go, internal, testing]',
    'projects: [svc]',
    'signatures: [\'pq: relation "<name>" does not exist\']',
    'applies_when: [\'imports "github.com/lib/pq" (4 of 4 plans that met it; 1 of 17 others)\']',
    '---',
    '',
    '## Lesson',
    '',
    'Plans fail with "pq: relation "orders" does not exist" (seen 4 times in 4 places so far).',
    '',
    '## When this applies',
    '',
    'Plans whose files import `github.com/lib/pq` (4 of the 4 plans that met it; 1 of the 17 others).',
    '',
    '## Recommendation',
    '',
    'Run the migrations in TestMain with testdb.Migrate(t) before any test touches the database.',
    '',
    'That is what the agent said fixed it in 4 places.',
    '',
    '## Evidence',
    '',
    '- `signals/svc/2026-04-01/20260401T090000Z-0a0b0c0d-struggle.signal.md` (struggle, medium, svc SPC-001 01-01, 2026-04-01T09:00:00.000Z)',
    '',
  ].join('\n');
  const plan = (id: string, read: string[]) =>
    [
      '---',
      `plan_id: "${id}"`,
      `title: Reports ${id}`,
      'depends_on: []',
      `files_modified: ["internal/reports/r${id}.go"]`,
      `files_read: [${read.map((f) => `"${f}"`).join(', ')}]`,
      'must_pass:',
      '  - { id: tests, type: tests_pass, command: "go test ./internal/reports/..." }',
      '---',
      '# Reports',
      '',
      'Build the monthly report.',
      '',
    ].join('\n');

  it("surfaces a lesson to a plan whose files import what the failures' did, says why, and nothing to its neighbour in the same folder", async () => {
    const root = await makeRepo({
      '.harness/knowledge/lessons/testing/pq-relation.lesson.md': LESSON,
      'internal/db/pool.go': 'package db\n\nimport (\n\t"database/sql"\n\t_ "github.com/lib/pq"\n)\n',
      'internal/reports/format.go': 'package reports\n\nimport "fmt"\n',
      'plans/02-01-PLAN.md': plan('02-01', ['internal/db/pool.go']),
      'plans/02-02-PLAN.md': plan('02-02', ['internal/reports/format.go']),
    });
    const found = await runCli(['surface', 'plans/02-01-PLAN.md'], root);
    expect(found.stdout).toContain(
      '   When `pq: relation "<name>" does not exist` → Run the migrations in TestMain with testdb.Migrate(t) before any test touches the database.\n',
    );
    expect(found.stdout).toContain(
      '   why: a plan whose files import `github.com/lib/pq` (4 of the 4 plans that met it; 1 of the 17 others): 67% likely to meet it',
    );
    // One lesson in the store: named as one, never "1 of the 1 lesson, skills and genes".
    expect(found.stdout.split('\n')[0]).toBe('02-01 Reports 02-01: the one lesson in .harness/knowledge applies (budget 500 tokens, at most 5)');
    expect((await runCli(['surface', 'plans/02-02-PLAN.md'], root)).stdout).toBe('02-02 Reports 02-02: the one lesson in .harness/knowledge does not apply\n');
  });

  it('never surfaces a lesson nobody merged: written and not committed, it is pending', async () => {
    const root = await makeRepo({
      'internal/db/pool.go': 'package db\n\nimport _ "github.com/lib/pq"\n',
      'plans/02-01-PLAN.md': plan('02-01', ['internal/db/pool.go']),
    });
    await writeTree(root, { '.harness/knowledge/lessons/testing/pq-relation.lesson.md': LESSON });
    expect((await runCli(['surface', 'plans/02-01-PLAN.md'], root)).stdout).toBe(
      '02-01 Reports 02-01: nothing to surface; .harness/knowledge holds no lessons, skills or genes (1 more pending: not committed, so not reviewed; commit it once reviewed)\n',
    );
    // Reviewed and committed, it counts.
    git(root, 'add', '-A');
    git(root, 'commit', '--quiet', '-m', 'Accept the lesson');
    expect((await runCli(['surface', 'plans/02-01-PLAN.md'], root)).stdout).toContain('1. lesson lessons/testing/pq-relation.lesson.md');
  });
});
