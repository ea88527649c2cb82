import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../app/cli/io.js';
import { main } from '../../app/cli/main.js';
import { KNOWLEDGE_HEADING } from '../../app/engine/core/agents/knowledge-brief.js';
import { parseFrontmatter } from '../../app/engine/core/spec/frontmatter.js';
import { parseKnowledge } from '../../app/engine/knowledge/documents/parse.js';
import { git, makeRepo } from '../helpers/repo.js';

/**
 * `knowledge.holdout` in a real local run (docs/knowledge.md, The holdout): a command agent that
 * writes down every brief it reads. 01-01 passes whatever its brief says; 02-01 passes only with
 * the lesson about its error in its brief, which names the files it writes, so that surfacing
 * gives it at once, and its error, so that a retry is matched on it too.
 */
const AGENT = [
  'brief=$(cat)',
  'mkdir -p "$BRIEFS" && { printf "%s\\n=====\\n" "$brief" >> "$BRIEFS/$HARNESS_PLAN.md"; }',
  'mkdir -p out',
  'case "$HARNESS_PLAN:$brief" in',
  '  01-01:*) echo done > out/01-01.txt ;;',
  '  *"What harness has learned that applies here"*SQLITE_BUSY*) echo "database: own" > out/02-01.txt ;;',
  '  *) echo "vitest run: SQLITE_BUSY: database is locked: tests/shared.db is open in another test file" >&2; exit 1 ;;',
  'esac',
].join('\n');

const LESSON_PATH = 'lessons/testing/vitest-run-sqlite-busy.lesson.md';
const LESSON = [
  '---',
  'category: testing',
  'confidence: medium',
  'evidence_count: 3',
  'last_updated: "2026-04-02"',
  'tags: [sqlite, vitest, tests]',
  'projects: []',
  'files: ["src/db/**"]',
  'signatures: ["vitest run: SQLITE_BUSY: database is locked: tests/shared.db is open in another test file"]',
  '---',
  '',
  '## Lesson',
  '',
  'Plans fail with "vitest run: SQLITE_BUSY: database is locked" (seen 3 times in 3 places so far).',
  '',
  '## When this applies',
  '',
  'Plans whose vitest test files share one SQLite database and run in parallel: they lock each other out with SQLITE_BUSY.',
  '',
  '## Recommendation',
  '',
  'Give each vitest test file its own SQLite database: open it in a temporary directory in beforeEach and close it in afterEach.',
  '',
  '## Evidence',
  '',
  '- `.harness/knowledge/signals/app/2026-04-01/20260401T090000Z-0a0b0c0d-struggle.signal.md` (struggle, medium, app SPC-001 01-01, 2026-04-01T09:00:00.000Z)',
  '',
].join('\n');

function plan(id: string, file: string, title: string, body = 'Do it.'): string {
  return [
    '---',
    `plan_id: "${id}"`,
    `title: ${title}`,
    'depends_on: []',
    `files_modified: ["${file}", "out/${id}.txt"]`,
    'must_pass:',
    `  - { id: made, type: file_exists, path: out/${id}.txt }`,
    '---',
    `# ${title}`,
    '',
    body,
    '',
  ].join('\n');
}

const DIR = 'docs/specs/SPC-004-holdout';

async function repo(holdout: number): Promise<string> {
  return makeRepo({
    '.github/harness.yml': [
      'agent: command',
      'slots: 1',
      'knowledge:',
      `  holdout: ${holdout}`,
      'agents:',
      '  command:',
      `    command: ${JSON.stringify(AGENT)}`,
      '',
    ].join('\n'),
    [`.harness/knowledge/${LESSON_PATH}`]: LESSON,
    [`${DIR}/SPEC.md`]: '---\nid: SPC-004\ntitle: Holdout\n---\n# Holdout\n',
    [`${DIR}/planning/plans/01-first/01-01-PLAN.md`]: plan('01-01', 'src/api/routes.ts', 'Routes'),
    [`${DIR}/planning/plans/02-second/02-01-PLAN.md`]: plan(
      '02-01',
      'src/db/notes.ts',
      'Notes storage in SQLite, with vitest tests',
      'Save and load notes in the SQLite database; the vitest test files run in parallel.',
    ),
  });
}

async function harness(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const io: CliIO = { stdout: (t) => void (stdout += t), stderr: (t) => void (stdout += t), cwd, env: { PATH: process.env.PATH, ...env }, isTTY: false };
  return { code: await main(args, io), stdout };
}

const INTEGRATION = 'harness/SPC-004/integration';

function summary(root: string, phase: string, id: string): Record<string, unknown> {
  const text = git(root, 'show', `${INTEGRATION}:${DIR}/execution/phases/${phase}/${id}-SUMMARY.md`);
  const parsed = parseFrontmatter('SUMMARY.md', text);
  if (!parsed.ok) throw new Error('SUMMARY.md does not parse');
  return { ...(parsed.frontmatter.data as Record<string, unknown>), text };
}

function signals(root: string, type: string): Record<string, unknown>[] {
  const files = git(root, 'ls-tree', '-r', '--name-only', INTEGRATION, '.harness/knowledge/signals')
    .trim()
    .split('\n')
    .filter((f) => f.endsWith(`-${type}.signal.md`));
  return files.map((f) => parseKnowledge('signal', f, git(root, 'show', `${INTEGRATION}:${f}`)).data!.metadata ?? {});
}

describe('knowledge.holdout in a local run', () => {
  it('with 1, no plan gets a knowledge section, on its retry neither, and each is recorded held out', async () => {
    const root = await repo(1);
    const briefs = await mkdtemp(join(tmpdir(), 'harness-briefs-'));
    const first = await harness(['run', DIR], root, { BRIEFS: briefs });
    expect(first.code).toBe(1);
    expect(first.stdout).toContain('01-01 held out: runs without surfaced knowledge (knowledge.holdout 1)\n');
    expect(first.stdout).toContain('02-01 held out: runs without surfaced knowledge (knowledge.holdout 1)\n');
    expect(first.stdout).not.toContain('brief: lesson');

    // The retry's error is the lesson's signature, the strongest reason to surface it: it stays held out.
    const retry = await harness(['run', DIR, '--retry'], root, { BRIEFS: briefs });
    expect(retry.code).toBe(1);
    expect(retry.stdout).toContain('02-01 held out: runs without surfaced knowledge (knowledge.holdout 1)\n');
    for (const id of ['01-01', '02-01']) expect(await readFile(join(briefs, `${id}.md`), 'utf8')).not.toContain(KNOWLEDGE_HEADING);
    expect((await readFile(join(briefs, '02-01.md'), 'utf8')).split('=====').length - 1).toBe(2);

    // The record: SUMMARY.md, each failed attempt's trial, the verified phase's outcomes.
    expect(summary(root, '01-first', '01-01')).toMatchObject({ status: 'verified', held_out: true, knowledge: [] });
    expect(summary(root, '01-first', '01-01').text).toContain('None: held out (knowledge.holdout)');
    expect(summary(root, '02-second', '02-01')).toMatchObject({ status: 'failed', held_out: true });
    const failures = signals(root, 'struggle').concat(signals(root, 'stuck'));
    expect(failures.map((m) => [m.attempt, m.trial]).sort()).toEqual([
      [1, { held_out: true, knowledge: [] }],
      [2, { held_out: true, knowledge: [] }],
    ]);
    expect(signals(root, 'completion').map((m) => m.outcomes)).toEqual([[{ plan: '01-01', held_out: true, attempts: 1, first_pass: true, knowledge: [] }]]);
  });

  it('with 0, none is held out: the plan gets the lesson, and its outcome records it', async () => {
    const root = await repo(0);
    const briefs = await mkdtemp(join(tmpdir(), 'harness-briefs-'));
    const run = await harness(['run', DIR], root, { BRIEFS: briefs });
    expect(run.stdout).not.toContain('held out');
    expect(run.stdout).toContain(`02-01 brief: lesson ${LESSON_PATH}\n`);
    expect(run.code).toBe(0);
    expect(await readFile(join(briefs, '02-01.md'), 'utf8')).toContain(KNOWLEDGE_HEADING);
    expect(summary(root, '02-second', '02-01')).not.toHaveProperty('held_out');
    // In the plans' order: the signals' file names hold a time, which does not order plans that ended in one second.
    const byPlan = (o: unknown) => JSON.stringify(o);
    expect(
      signals(root, 'completion')
        .map((m) => m.outcomes)
        .sort((a, b) => byPlan(a).localeCompare(byPlan(b))),
    ).toEqual([
      [{ plan: '01-01', held_out: false, attempts: 1, first_pass: true, knowledge: [] }],
      [{ plan: '02-01', held_out: false, attempts: 1, first_pass: true, knowledge: [LESSON_PATH] }],
    ]);
  });
});
