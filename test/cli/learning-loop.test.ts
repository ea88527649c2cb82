import { readFileSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../app/cli/io.js';
import { main } from '../../app/cli/main.js';
import type { ReflectJson } from '../../app/cli/commands/reflect.js';
import { parseKnowledge } from '../../app/engine/knowledge/documents/parse.js';
import { KNOWLEDGE_HEADING } from '../../app/engine/core/agents/knowledge-brief.js';
import { writeTree } from '../helpers/cli.js';
import { git, makeRepo } from '../helpers/repo.js';

/**
 * The learning loop, closed on this machine through the CLI alone, as a person would use it:
 * a run fails the same way in several plans and leaves signals; the person accepts them;
 * `harness reflect` turns them into a lesson; the person accepts the lesson; the next run of a
 * similar plan has the lesson in its brief, and passes because of it.
 */

/**
 * The scripted agent: a command agent that reads its brief on stdin. Its tests share one
 * SQLite file and lock each other out, unless the brief tells it what harness learned about
 * that; then it gives each test file its own database and the plan's check passes.
 */
const AGENT = [
  'brief=$(cat)',
  'mkdir -p "$BRIEFS" && printf "%s" "$brief" > "$BRIEFS/$HARNESS_SPEC-$HARNESS_PLAN.md"',
  'case "$brief" in',
  '  *"What harness has learned that applies here"*SQLITE_BUSY*)',
  '    mkdir -p tests && echo "database: tests/$HARNESS_PLAN.db" > "tests/$HARNESS_PLAN.db.txt" && echo "gave each test file its own database" ;;',
  '  *)',
  '    mkdir -p tests && echo "database: tests/shared.db" > "tests/$HARNESS_PLAN.db.txt"',
  '    echo "vitest run: SQLITE_BUSY: database is locked: tests/shared.db is open in another test file ($HARNESS_PLAN)" >&2',
  '    exit 1 ;;',
  'esac',
].join('\n');

const CONFIG = ['agent: command', 'slots: 1', 'agents:', '  command:', `    command: ${JSON.stringify(AGENT)}`, ''].join('\n');

interface StorePlan {
  id: string;
  store: string;
  title: string;
  body: string;
}

function planText(p: StorePlan): string {
  return [
    '---',
    `plan_id: "${p.id}"`,
    `title: ${p.title}`,
    'depends_on: []',
    `files_modified: ["src/db/${p.store}.ts", "tests/${p.id}.db.txt"]`,
    'must_pass:',
    `  - { id: own-database, type: file_contains, path: tests/${p.id}.db.txt, contains: "tests/${p.id}.db" }`,
    '---',
    `# ${p.title}`,
    '',
    p.body,
    '',
  ].join('\n');
}

function spec(id: string, dir: string, plans: StorePlan[]): Record<string, string> {
  const files: Record<string, string> = { [`${dir}/SPEC.md`]: `---\nid: ${id}\ntitle: Stores and their tests\n---\n# Stores and their tests\n` };
  for (const p of plans) files[`${dir}/planning/plans/01-stores/${p.id}-PLAN.md`] = planText(p);
  return files;
}

/** Three plans that meet the same problem, each saying what it does in its own words. */
const FIRST = spec('SPC-001', 'docs/specs/SPC-001-stores', [
  {
    id: '01-01',
    store: 'notes',
    title: 'Notes store with vitest tests',
    body: 'Save and load notes in SQLite; the vitest suite covers both and runs its files in parallel.',
  },
  { id: '01-02', store: 'tags', title: 'Tag persistence and its test suite', body: 'Persist tags in the database and test them; test files run concurrently.' },
  { id: '01-03', store: 'users', title: 'User records, tested', body: 'Keep user records in SQLite, with vitest tests for reading and writing them.' },
]);

/** A later spec with a plan like them. */
const SECOND = spec('SPC-002', 'docs/specs/SPC-002-comments', [
  {
    id: '01-01',
    store: 'comments',
    title: 'Comments store and tests',
    body: 'Store comments in the SQLite database; vitest tests save and load them in parallel.',
  },
]);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function harness(args: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd, env: { PATH: process.env.PATH, ...env }, isTTY: false };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

describe('the learning loop on this machine', () => {
  it('a failure that recurs across plans becomes a lesson, and the next similar plan passes with it in its brief', async () => {
    const root = await makeRepo({ '.github/harness.yml': CONFIG, ...FIRST });
    const briefs = await mkdtemp(join(tmpdir(), 'harness-briefs-'));
    const env = { BRIEFS: briefs };

    // 1. The first run fails in all three plans, the same way, and captures it.
    const first = await harness(['run', 'docs/specs/SPC-001-stores'], root, env);
    expect(first.code).toBe(1);
    expect(first.stdout + first.stderr).toContain('0/3 plans verified');
    const integration = 'harness/SPC-001/integration';
    const captured = git(root, 'ls-tree', '-r', '--name-only', integration, '.harness/knowledge/signals').trim().split('\n');
    expect(captured).toHaveLength(3);
    expect(captured.every((f) => f.endsWith('-struggle.signal.md'))).toBe(true);
    for (const file of captured) {
      const text = git(root, 'show', `${integration}:${file}`);
      expect(text).toContain('SQLITE_BUSY: database is locked');
      expect(text).toContain('outcome: failed');
    }
    for (const plan of ['01-01', '01-02', '01-03']) expect(await readFile(join(briefs, `SPC-001-${plan}.md`), 'utf8')).not.toContain(KNOWLEDGE_HEADING);

    // 2. The person accepts the signals: locally, takes them from the integration branch and commits them.
    git(root, 'checkout', integration, '--', '.harness/knowledge');
    git(root, 'commit', '--quiet', '-m', 'Accept the signals of SPC-001');

    // 3. Reflection proposes one lesson, citing all three.
    const reflected = await harness(['reflect', '--json'], root, env);
    expect(reflected.stderr).toBe('');
    expect(reflected.code).toBe(0);
    const report = JSON.parse(reflected.stdout) as ReflectJson;
    expect(report.skipped).toEqual([]);
    expect(report.lessons).toHaveLength(1);
    const [proposed] = report.lessons;
    expect(proposed).toMatchObject({ action: 'create', links: [] });
    expect([...proposed!.evidence].sort()).toEqual(captured);
    const lessonText = readFileSync(join(root, proposed!.path), 'utf8');
    const lesson = parseKnowledge('lesson', proposed!.path, lessonText);
    expect(lesson.problems).toEqual([]);
    expect(lesson.data).toMatchObject({ evidence_count: 3, tags: expect.arrayContaining(['database', 'tests']) });
    // The lesson names the error (as the failures said it) and the files and signature it applies to.
    expect(lessonText).toMatch(
      /## Lesson\n\nPlans fail with "SQLITE_BUSY: database is locked: tests\/shared\.db is open in another test file \(01-0\d\)" \(seen 3 times in 3 places so far\)\./,
    );
    expect(lesson.data).toMatchObject({
      files: ['src/db/*.ts', 'tests/*.txt'],
      signatures: ['SQLITE_BUSY: database is locked: tests/shared.db is open in another test file (<n>-<n>)'],
    });
    // Every plan of the run met it: there were no others to tell them apart from, and the lesson says so rather than guess.
    expect(lesson.data!.applies_when).toBeUndefined();
    expect(lessonText).toMatch(/had nothing in common that the others lacked/);
    expect(lessonText).toContain('not written by an agent');

    // 4. The person accepts the lesson (locally: commits it).
    git(root, 'add', '-A');
    git(root, 'commit', '--quiet', '-m', 'Accept the lesson');
    const lessonInStore = proposed!.path.slice('.harness/knowledge/'.length);

    // 5. A later spec with a similar plan: the lesson is in its brief, and it passes.
    await writeTree(root, SECOND);
    git(root, 'add', '-A');
    git(root, 'commit', '--quiet', '-m', 'SPC-002');
    const second = await harness(['run', 'docs/specs/SPC-002-comments'], root, env);
    expect(second.stdout).toContain(`01-01 brief: lesson ${lessonInStore}\n`);
    expect(second.stdout).toContain('SPC-002: 1/1 plans verified, 1/1 phases verified');
    expect(second.code).toBe(0);
    const brief = await readFile(join(briefs, 'SPC-002-01-01.md'), 'utf8');
    const section = brief.slice(brief.indexOf(KNOWLEDGE_HEADING));
    expect(section).toContain('SQLITE_BUSY: database is locked');
    expect(section).toMatch(
      new RegExp(
        `\\(lesson \`${lessonInStore.replace(/\./g, '\\.')}\`, drafted by harness, \\d{4}-\\d\\d-\\d\\d; merged by Test Person, \\d{4}-\\d\\d-\\d\\d\\)`,
      ),
    );

    // The lesson's use is on record: the SUMMARY.md, the trajectory, a `use` signal.
    const next = 'harness/SPC-002/integration';
    const summary = git(root, 'show', `${next}:docs/specs/SPC-002-comments/execution/phases/01-stores/01-01-SUMMARY.md`);
    expect(summary).toContain(`knowledge:\n  - path: ${lessonInStore}\n    kind: lesson`);
    const recorded = git(root, 'ls-tree', '-r', '--name-only', next, '.harness/knowledge').trim().split('\n');
    const uses = recorded.filter((f) => f.endsWith('-use.signal.md'));
    expect(uses).toHaveLength(1);
    expect(git(root, 'show', `${next}:${uses[0]}`)).toContain(`lesson \`${lessonInStore}\``);
    const trajectory = recorded.find((f) => f.startsWith('.harness/knowledge/trajectory/'))!;
    const events = git(root, 'show', `${next}:${trajectory}`)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; entry: string; spec: string });
    expect(events.map((e) => [e.type, e.spec, e.entry])).toEqual([
      ['match', 'SPC-002', lessonInStore],
      ['use', 'SPC-002', lessonInStore],
    ]);
  });

  it('a retried plan gets the lesson about the error its first attempt met, though neither its words nor its files match it', async () => {
    // A lesson about one error, as reflection drafts it: its signature in the frontmatter, files elsewhere.
    const lesson = [
      '---',
      'category: testing',
      'confidence: medium',
      'evidence_count: 3',
      'last_updated: "2026-04-02"',
      'tags: [sqlite-busy]',
      'projects: []',
      'files: ["server/storage/*.go"]',
      'signatures: ["SQLITE_BUSY: database is locked: tests/shared.db is open in another test file (<n>-<n>)"]',
      '---',
      '',
      '## Lesson',
      '',
      'Plans fail with "vitest run: SQLITE_BUSY: database is locked" (seen 3 times in 3 places so far).',
      '',
      '## When this applies',
      '',
      'Plans that change `server/storage/*.go`.',
      '',
      '## Recommendation',
      '',
      'Do this from the start: "Gave each test file its own database" (what the agent said fixed it in 3 places, first in SPC-001 01-01).',
      '',
      '## Evidence',
      '',
      '- `.harness/knowledge/signals/app/2026-04-01/20260401T090000Z-0a0b0c0d-struggle.signal.md` (struggle, medium, app SPC-001 01-01, 2026-04-01T09:00:00.000Z)',
      '',
    ].join('\n');
    const plan = [
      '---',
      'plan_id: "01-01"',
      'title: Billing export',
      'depends_on: []',
      'files_modified: ["lib/billing/csv.js", "tests/01-01.db.txt"]',
      'must_pass:',
      '  - { id: own-database, type: file_contains, path: tests/01-01.db.txt, contains: "tests/01-01.db" }',
      '---',
      '# Billing export',
      '',
      'Produce the CSV of invoices for accounting.',
      '',
    ].join('\n');
    const root = await makeRepo({
      '.github/harness.yml': CONFIG,
      '.harness/knowledge/lessons/testing/vitest-run-sqlite-busy.lesson.md': lesson,
      'docs/specs/SPC-003-billing/SPEC.md': '---\nid: SPC-003\ntitle: Billing\n---\n# Billing\n',
      'docs/specs/SPC-003-billing/planning/plans/01-export/01-01-PLAN.md': plan,
    });
    const briefs = await mkdtemp(join(tmpdir(), 'harness-briefs-'));
    const env = { BRIEFS: briefs };

    // Nothing in the plan says SQLite: the first attempt gets nothing, and fails with the error.
    const first = await harness(['run', 'docs/specs/SPC-003-billing'], root, env);
    expect(first.code).toBe(1);
    expect(first.stdout).not.toContain('01-01 brief:');
    expect(await readFile(join(briefs, 'SPC-003-01-01.md'), 'utf8')).not.toContain(KNOWLEDGE_HEADING);

    // The retry is matched on the error its first attempt met, gets the lesson, and passes.
    const retry = await harness(['run', 'docs/specs/SPC-003-billing', '--retry'], root, env);
    expect(retry.stdout).toContain('01-01 brief: lesson lessons/testing/vitest-run-sqlite-busy.lesson.md\n');
    expect(retry.stdout).toMatch(
      /01-01 surfaced lesson lessons\/testing\/vitest-run-sqlite-busy\.lesson\.md \(score [\d.]+\): the error of its earlier attempt: SQLITE_BUSY: database is locked: tests\/shared\.db is open in another test file \(<n>-<n>\)/,
    );
    expect(retry.stdout).toContain('SPC-003: 1/1 plans verified');
    expect(retry.code).toBe(0);
  });
});
