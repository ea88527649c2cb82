import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAnyDocument } from '../../app/engine/knowledge/documents/any-document.js';
import { RecordingReporter } from '../../app/runner/progress.js';
import { runSpec } from '../../app/runner/runner.js';
import { writeTree } from '../helpers/cli.js';
import { makeRepo, SPEC_DIR, specTree, type StepPlan, worktreeOf } from '../helpers/repo.js';
import { lessonText, storeFiles } from '../helpers/surfacing.js';

const integration = (root: string) => worktreeOf(root, 'SPC-007', 'integration');
const summaryOf = (root: string, plan: string) => readFileSync(join(integration(root), SPEC_DIR, `execution/phases/01-phase/${plan}-SUMMARY.md`), 'utf8');

/** The recorded store, as a repository keeps it. */
const repoStore = () => Object.fromEntries(storeFiles().map((f) => [`.harness/knowledge/${f.path}`, f.text]));

/** A command agent that keeps its brief (stdin) in $BRIEFS/<plan>.md and writes the plan's file. */
const COMMAND = 'mkdir -p "$BRIEFS" out && cat > "$BRIEFS/$HARNESS_PLAN.md" && echo done > "out/$HARNESS_PLAN.txt"';

const PLANS: StepPlan[] = [
  {
    id: '01-01',
    title: 'Note storage tests',
    files: ['out/01-01.txt', 'src/db/notes.ts'],
    steps: [],
    body: 'Store notes in the SQLite database and cover save and load with vitest tests; the test files run in parallel.',
  },
  {
    id: '01-02',
    title: 'Dark mode colors',
    files: ['out/01-02.txt', 'src/styles/theme.css'],
    steps: [],
    body: 'Define the palette as CSS custom properties for a dark theme.',
  },
];

async function runWithCommand(root: string, extra: Partial<Parameters<typeof runSpec>[0]> = {}) {
  const briefs = await mkdtemp(join(tmpdir(), 'harness-briefs-'));
  const reporter = new RecordingReporter();
  const outcome = await runSpec({
    specDir: join(root, SPEC_DIR),
    specArg: SPEC_DIR,
    slots: 2,
    agent: 'command',
    agents: { command: { command: COMMAND } },
    reporter,
    pollMs: 25,
    env: { BRIEFS: briefs },
    ...extra,
  });
  return { outcome, reporter, brief: (plan: string) => readFile(join(briefs, `${plan}.md`), 'utf8') };
}

describe('surfacing in harness run', () => {
  it("attributes a surfaced lesson to who merged it and when, from git log of the store: a merge commit's committer, else the adding commit's author", async () => {
    const lesson = '.harness/knowledge/lessons/testing/sqlite-parallel-tests.lesson.md';
    const store = repoStore();
    const { [lesson]: text, ...rest } = store;
    const root = await makeRepo({ ...specTree(PLANS), ...rest });
    const as = (name: string, date: string) => ({
      ...process.env,
      GIT_AUTHOR_NAME: name,
      GIT_AUTHOR_EMAIL: 'a@example.com',
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_NAME: name,
      GIT_COMMITTER_EMAIL: 'a@example.com',
      GIT_COMMITTER_DATE: date,
    });
    const run = (env: NodeJS.ProcessEnv, ...args: string[]) => execFileSync('git', args, { cwd: root, env, stdio: 'ignore' });
    // Drafted on a knowledge branch by one person, merged into main by another.
    run(as('Dana Reyes', '2026-04-02T10:00:00Z'), 'checkout', '--quiet', '-b', 'harness/knowledge/lesson');
    await writeTree(root, { [lesson]: text! });
    run(as('Dana Reyes', '2026-04-02T10:00:00Z'), 'add', '-A');
    run(as('Dana Reyes', '2026-04-02T10:00:00Z'), 'commit', '--quiet', '-m', 'lesson: sqlite');
    run(as('Lee Park', '2026-04-03T09:00:00Z'), 'checkout', '--quiet', 'main');
    run(as('Lee Park', '2026-04-03T09:00:00Z'), 'merge', '--quiet', '--no-ff', '-m', 'Merge the sqlite lesson', 'harness/knowledge/lesson');

    const { brief } = await runWithCommand(root);
    expect(await brief('01-01')).toContain(
      '(lesson `lessons/testing/sqlite-parallel-tests.lesson.md`, by a person, 2026-03-02; merged by Lee Park, 2026-04-03)',
    );
  });

  it("puts the lesson from the repository's .harness/knowledge into the plan's brief and its SUMMARY.md, and nothing into a plan it does not apply to", async () => {
    const root = await makeRepo({ ...specTree(PLANS), ...repoStore() });
    const { outcome, reporter, brief } = await runWithCommand(root);
    expect(outcome.plans).toEqual({ '01-01': 'verified', '01-02': 'verified' });

    const first = await brief('01-01');
    expect(first).toContain('## What harness has learned that applies here');
    // Attributed: the file it came from, who wrote it and when, as the lesson says; who merged it and when, as Git says.
    expect(first).toMatch(/\(lesson `lessons\/testing\/sqlite-parallel-tests\.lesson\.md`, by a person, 2026-03-02; merged by Test Person, \d{4}-\d\d-\d\d\)/);
    expect(first).toContain('Give each test file its own database');
    expect(first).not.toContain('migration-before-model');
    expect(first).not.toContain('skills-archived');
    expect(await brief('01-02')).not.toContain('## What harness has learned');

    const summary = summaryOf(root, '01-01');
    const parsed = parseAnyDocument('summary', `${SPEC_DIR}/execution/phases/01-phase/01-01-SUMMARY.md`, summary);
    expect(parsed.problems).toEqual([]);
    expect(parsed.data!.knowledge.map((k) => [k.kind, k.path])).toEqual([
      ['lesson', 'lessons/testing/sqlite-parallel-tests.lesson.md'],
      ['skill', 'skills/sqlite-busy-in-parallel-tests/SKILL.md'],
    ]);
    expect(parsed.data!.knowledge[0]!.why).toMatch(/^tags sqlite, tests, parallel; names src\/db\/\*\* \(plan: src\/db\/notes\.ts\)/);
    expect(summary).toContain('## Knowledge surfaced');
    expect(summary).toContain('- `lessons/testing/sqlite-parallel-tests.lesson.md` (lesson): Test files that share one SQLite database file fail');
    const other = parseAnyDocument('summary', '01-02-SUMMARY.md', summaryOf(root, '01-02'));
    expect(other.data!.knowledge).toEqual([]);
    expect(summaryOf(root, '01-02')).toContain('None: nothing in the knowledge store applied to this plan.');

    expect(reporter.events.filter((e) => e.kind === 'info').map((e) => e.kind === 'info' && e.text)).toEqual([
      '01-01 brief: lesson lessons/testing/sqlite-parallel-tests.lesson.md, skill skills/sqlite-busy-in-parallel-tests/SKILL.md',
      // Each match with its reason.
      // The plan's paths are not among its words (src, db): a folder says nothing of a cause.
      '01-01 surfaced lesson lessons/testing/sqlite-parallel-tests.lesson.md (score 8.327): tags sqlite, tests, parallel; names src/db/** (plan: src/db/notes.ts); its trigger words sqlite, database, tests, run; text similarity 0.50',
      '01-01 surfaced skill skills/sqlite-busy-in-parallel-tests/SKILL.md (score 4.071): tags sqlite, tests, parallel; its trigger words parallel, sqlite, database, files, tests; text similarity 0.34',
    ]);
  });

  it("reads a knowledge directory given instead, with its secrets and this machine's paths kept out of the brief, keeps to its cap, and names the files it could not read", async () => {
    const root = await makeRepo(specTree(PLANS));
    const store = await mkdtemp(join(tmpdir(), 'harness-store-'));
    // A store from outside the repository may hold what the repository's never would: a token, this machine's paths.
    const token = `ghp_${'A1b2C3d4E5'.repeat(3)}xY9z0w`;
    const leaky = (text: string) =>
      text.replace('Never point tests at the development database.', `Never point tests at ${root}/dev.db; CI logs in with ${token}.`);
    await writeTree(store, {
      ...Object.fromEntries(storeFiles().map((f) => [f.path, f.path.includes('sqlite-parallel') ? leaky(f.text) : f.text])),
      'lessons/testing/half.lesson.md': lessonText({ tags: ['sqlite'], lesson: 'x', when: 'y', recommendation: 'z' }).replace(
        'confidence: medium',
        'confidence: sure',
      ),
    });
    const { outcome, reporter, brief } = await runWithCommand(root, { knowledge: { dir: store, budgetTokens: 500, maxEntries: 1 } });
    expect(outcome.complete).toBe(true);
    const first = await brief('01-01');
    expect(first).toContain('`lessons/testing/sqlite-parallel-tests.lesson.md`');
    expect(first).not.toContain('skills/sqlite-busy-in-parallel-tests');
    expect(first).toContain('Never point tests at ${PROJECT_ROOT}/dev.db; CI logs in with [REDACTED].');
    for (const written of [first, summaryOf(root, '01-01')]) {
      expect(written).not.toContain(token);
      expect(written).not.toContain(root);
    }
    const infos = reporter.events.flatMap((e) => (e.kind === 'info' ? [e.text] : []));
    expect(infos[0]).toMatch(
      /^knowledge: 1 problem in .* \(those files are not surfaced\):\n {2}.*\/lessons\/testing\/half\.lesson\.md:3: confidence is "sure"/,
    );
  });

  it('gives the script agent, which reads no brief, nothing to record', async () => {
    const root = await makeRepo({ ...specTree([{ ...PLANS[0]!, steps: ['mkdir -p out && echo ok > out/01-01.txt'] }]), ...repoStore() });
    const reporter = new RecordingReporter();
    const outcome = await runSpec({ specDir: join(root, SPEC_DIR), specArg: SPEC_DIR, slots: 1, agent: 'script', reporter, pollMs: 25 });
    expect(outcome.complete).toBe(true);
    const parsed = parseAnyDocument('summary', '01-01-SUMMARY.md', summaryOf(root, '01-01'));
    expect(parsed.data!.knowledge).toEqual([]);
    expect(summaryOf(root, '01-01')).toMatch(/## Knowledge surfaced\n\nNone\.\n/);
  });
});
