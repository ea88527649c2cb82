import { describe, expect, it } from 'vitest';
import { knowledgeBrief } from '../../../../app/engine/core/agents/knowledge-brief.js';
import { formatProblem } from '../../../../app/engine/core/spec/problem.js';
import { indexKnowledge, surfacedKind } from '../../../../app/engine/knowledge/surfacing/knowledge-index.js';
import { namedFiles } from '../../../../app/engine/knowledge/surfacing/named-files.js';
import { DEFAULT_SURFACE, planSubject, surface } from '../../../../app/engine/knowledge/surfacing/surface.js';
import { words } from '../../../../app/engine/knowledge/documents/words.js';
import { fixturePlan, lessonText, storeFiles } from '../../../helpers/surfacing.js';

const index = indexKnowledge(storeFiles());
const surfaced = (plan: string, options = DEFAULT_SURFACE) => surface(index, planSubject(fixturePlan(plan)), options);
const paths = (plan: string) => surfaced(plan).map((e) => e.path);

describe('surfacing against the recorded store', () => {
  it('reads the lessons, skills and genes, and nothing archived, deprecated or of another kind', () => {
    expect(index.problems).toEqual([]);
    expect(index.entries.map((e) => [e.kind, e.path])).toEqual([
      ['gene', 'genes/gene-20260302-a1b2c3d4.gene.md'],
      ['lesson', 'lessons/testing/sqlite-parallel-tests.lesson.md'],
      ['lesson', 'lessons/tooling/esm-relative-imports.lesson.md'],
      ['lesson', 'lessons/verification/wait-for-selector.lesson.md'],
      ['lesson', 'lessons/workflow/migration-before-model.lesson.md'],
      ['skill', 'skills/http-retry-with-backoff/SKILL.md'],
      ['skill', 'skills/sqlite-busy-in-parallel-tests/SKILL.md'],
    ]);
    expect(surfacedKind('skills-archived/sqlite-wal-mode/SKILL.md')).toBeUndefined();
    expect(surfacedKind('signals/notes/2026-03-01/2026-03-01T10-00-00Z-struggle.signal.md')).toBeUndefined();
    expect(surfacedKind('lessons/testing/deep/er/x.lesson.md')).toBe('lesson');
  });

  it('gives a plan on SQLite tests the SQLite lesson and skill, best first, and nothing else', () => {
    const found = surfaced('01-02-PLAN.md');
    expect(found.map((e) => [e.kind, e.path])).toEqual([
      ['lesson', 'lessons/testing/sqlite-parallel-tests.lesson.md'],
      ['skill', 'skills/sqlite-busy-in-parallel-tests/SKILL.md'],
    ]);
    expect(found[0]!.score).toBeGreaterThan(found[1]!.score);
    expect(found[0]).toMatchObject({
      title: 'Test files that share one SQLite database file fail with SQLITE_BUSY when vitest runs them in parallel.',
      text: 'Give each test file its own database: open it in a temporary directory (or as `:memory:`) in beforeEach and close it in afterEach. Never point tests at the development database.',
    });
    // The lesson names src/db/ and the plan writes src/db/notes.ts; all three tags are in the plan.
    expect(found[0]!.why).toMatch(
      /^tags sqlite, tests, parallel; names src\/db\/\*\* \(plan: src\/db\/notes\.ts\); its trigger words .*; text similarity 0\.\d\d$/,
    );
    // A skill's fix is its Solution, whole: what the brief says after "→".
    expect(found[1]!.text).toMatch(/^Create a database per test file in a temporary directory/);
  });

  it('gives a plan that changes a table the migration lesson through the file it writes, not the SQLite test lesson', () => {
    const found = surfaced('01-03-PLAN.md');
    expect(found.map((e) => e.path)).toEqual(['lessons/workflow/migration-before-model.lesson.md']);
    expect(found[0]!.why).toContain('tags migrations (1 of 2); names db/migrations/** (plan: db/migrations/003-note-tags.sql)');
  });

  it('gives a client of a flaky API the retry skill and gene, and none of the SQLite knowledge its tests might suggest', () => {
    expect(paths('02-01-PLAN.md')).toEqual(['skills/http-retry-with-backoff/SKILL.md', 'genes/gene-20260302-a1b2c3d4.gene.md']);
  });

  it('gives a plan nothing applies to nothing', () => {
    expect(surfaced('03-01-PLAN.md')).toEqual([]);
  });

  it('never surfaces an archived skill or a deprecated gene, even for a plan in their very words', () => {
    const plan = fixturePlan('01-02-PLAN.md');
    const subject = planSubject({
      ...plan,
      body: `${plan.body}\nTurn on the WAL journal (PRAGMA journal_mode = WAL) and share one SQLite database across parallel tests so fixtures load once.`,
    });
    const found = surface(index, subject, { budgetTokens: 5000, maxEntries: 50 });
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter((e) => e.path.startsWith('skills-archived/') || e.path.includes('0badc0de'))).toEqual([]);
  });

  it('is the same answer every time, whatever order the files were read in', () => {
    const reversed = indexKnowledge(storeFiles().reverse());
    expect(surface(reversed, planSubject(fixturePlan('01-02-PLAN.md')))).toEqual(surfaced('01-02-PLAN.md'));
  });
});

describe('a lesson as reflection drafts it', () => {
  // The shape harness's own draft takes when no reflector agent writes the lesson: the words the
  // signals share, an excerpt, the places, the cause; tags from the files and commands involved.
  const drafted = [
    '---',
    'category: testing',
    'confidence: medium',
    'evidence_count: 3',
    'last_updated: 2026-03-02',
    'tags: [notes, store, test]',
    'projects: [notes-service]',
    '---',
    '',
    '## Lesson',
    '',
    'Work involving store, lock, notes and test keeps going wrong the same way, in 3 places so far: "npm test failed. The notes store could not open data/notes.db: locked".',
    '',
    '## When this applies',
    '',
    'Plans whose work involves store, lock, notes, test or database (the words these struggle and repair signals share), or tagged `notes`, `store` or `test`. Seen in notes-service SPC-001 01-02, notes-service SPC-001 02-01 and notes-service SPC-002 01-01.',
    '',
    '## Recommendation',
    '',
    'Plan for it before the work starts. The signals name this cause: "every test opens the same data/notes.db". Deal with it in the plan itself (a task, or a must_pass check that catches it early), and read in the evidence below what each run tried.',
    '',
    '## Evidence',
    '',
    '- `.harness/knowledge/signals/notes-service/2026-03-01/2026-03-01T10-00-00Z-struggle.signal.md` (struggle, medium, notes-service SPC-001 01-02, 2026-03-01T10:00:00Z): npm test failed',
    '',
    '_Drafted by harness from this evidence, not written by an agent: no reflector agent is configured (knowledge.reflect.agent). Sharpen the lesson and the recommendation before merging._',
    '',
  ].join('\n');
  const store = indexKnowledge([...storeFiles(), { path: 'lessons/testing/struggle-store-lock-notes.lesson.md', text: drafted }]);

  it('reaches the next plan on the same store, whole sentence for its title, and no plan about something else', () => {
    const plan = fixturePlan('01-02-PLAN.md');
    const similar = planSubject({
      ...plan,
      title: 'Notes search',
      filesModified: ['src/search/notes-index.ts', 'test/search.test.js'],
      body: 'Keep a search index of the notes in the store, and test it with npm test.',
    });
    const found = surface(store, similar);
    expect(found.map((e) => e.path)).toContain('lessons/testing/struggle-store-lock-notes.lesson.md');
    const lesson = found.find((e) => e.path.includes('struggle'))!;
    expect(lesson.title).toBe(
      'Work involving store, lock, notes and test keeps going wrong the same way, in 3 places so far: "npm test failed. The notes store could not open data/notes.db: locked".',
    );
    expect(lesson.why).toMatch(/^tags notes, store, test; /);
    expect(surface(store, planSubject(fixturePlan('03-01-PLAN.md'))).map((e) => e.path)).toEqual([]);
  });
});

describe('the budget and the cap', () => {
  // Twelve lessons that all apply to the SQLite plan, each with a long recommendation.
  const many = indexKnowledge(
    Array.from({ length: 12 }, (_, i) => ({
      path: `lessons/testing/sqlite-${String(i).padStart(2, '0')}.lesson.md`,
      text: lessonText({
        tags: ['sqlite', 'tests', ...(i % 3 === 0 ? ['parallel'] : [])],
        lesson: `SQLite tests need care, case ${i}.`,
        when: 'A plan adds tests that open the SQLite database in parallel test files.',
        recommendation: `Case ${i}: ${'open the database in a temporary directory per test file and close it after the tests; '.repeat(3 + (i % 4))}`.trim(),
      }),
    })),
  );
  const subject = planSubject(fixturePlan('01-02-PLAN.md'));
  const sectionChars = (entries: Parameters<typeof knowledgeBrief>[0]) => knowledgeBrief(entries).join('\n').length;

  it('keeps the brief section within the default 500 tokens and 5 entries, best first', () => {
    const found = surface(many, subject);
    expect(found.length).toBeGreaterThan(1);
    expect(found.length).toBeLessThanOrEqual(5);
    expect(sectionChars(found)).toBeLessThanOrEqual(500 * 4);
    const scores = found.map((e) => e.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('takes no more entries than max_entries, however many apply', () => {
    expect(surface(many, subject, { budgetTokens: 20_000, maxEntries: 2 })).toHaveLength(2);
    expect(surface(many, subject, { budgetTokens: 20_000, maxEntries: 50 })).toHaveLength(12);
    expect(surface(many, subject, { budgetTokens: 20_000, maxEntries: 0 })).toEqual([]);
    expect(surface(many, subject, { budgetTokens: 0, maxEntries: 5 })).toEqual([]);
  });

  it("never cuts an entry's fix: one that does not fit whole gives way to a shorter one, or to nothing", () => {
    const all = surface(many, subject, { budgetTokens: 20_000, maxEntries: 50 });
    const longest = [...all].sort((a, b) => b.text.length - a.text.length)[0]!;
    const shortest = [...all].sort((a, b) => a.text.length - b.text.length)[0]!;
    expect(longest.text.length).toBeGreaterThan(shortest.text.length);
    // Room for the shortest whole, and not for the longest.
    const tight = Math.ceil(sectionChars([shortest]) / 4);
    const found = surface(many, subject, { budgetTokens: tight, maxEntries: 5 });
    expect(found.length).toBeGreaterThan(0);
    for (const e of found) expect(all.find((a) => a.path === e.path)!.text).toBe(e.text);
    expect(found.map((e) => e.path)).not.toContain(longest.path);
    expect(sectionChars(found)).toBeLessThanOrEqual(tight * 4);
    // Room for the heading and little else: nothing rather than a stub.
    expect(surface(many, subject, { budgetTokens: 100, maxEntries: 5 })).toEqual([]);
  });
});

describe('what the store says of itself', () => {
  it('reports a lesson, skill or gene that does not parse by file and line, and surfaces the rest', () => {
    const files = [
      ...storeFiles(),
      {
        path: 'lessons/testing/broken.lesson.md',
        text: '---\ncategory: testing\nconfidence: sure\nevidence_count: 1\nlast_updated: 2026-03-01\n---\n\n## Lesson\n\nx\n',
      },
      { path: 'skills/wrong-folder/SKILL.md', text: '---\nname: another-name\ndescription: Does a thing.\n---\n\nDo it.\n' },
    ];
    const broken = indexKnowledge(files);
    expect(broken.entries).toHaveLength(index.entries.length);
    const shown = broken.problems.filter((p) => p.severity === 'error').map((p) => formatProblem(p));
    expect(shown).toContainEqual(expect.stringMatching(/^lessons\/testing\/broken\.lesson\.md:3: confidence/));
    expect(shown).toContainEqual(expect.stringMatching(/^skills\/wrong-folder\/SKILL\.md:2: name is "another-name" but the folder is "wrong-folder"/));
  });

  it("takes a skill's tags from its metadata and the files a lesson names from its prose and metadata", () => {
    const lesson = indexKnowledge([
      {
        path: 'lessons/tooling/x.lesson.md',
        text: lessonText({
          category: 'tooling',
          tags: ['esm'],
          lesson: 'See `tsconfig.json` and src/lib/ before anything.',
          when: 'Plans that touch ${PROJECT_ROOT}/scripts/build.mjs, e.g. the build, on Node 20.x; see https://nodejs.org/api/esm.html and read/write access.',
          recommendation: 'Keep `"module": "NodeNext"`.',
        }).replace('tags: [esm]', 'tags: [esm]\nmetadata: { files: [package.json] }'),
      },
    ]);
    expect(lesson.entries[0]!.files).toEqual(['package.json', 'tsconfig.json', 'src/lib/**', 'scripts/build.mjs']);
    expect(index.entries.find((e) => e.kind === 'skill' && e.path.includes('sqlite'))!.tags.map((t) => t.tag)).toEqual(['sqlite', 'tests', 'parallel']);
  });
});

describe('files', () => {
  // One lesson per way of naming files; each names its files in metadata and says nothing else the plans say.
  const named = (files: string[]) =>
    lessonText({ category: 'workflow', tags: ['zzqx'], lesson: 'Qwv.', when: 'Qwv.', recommendation: `Qwv ${files.join(' ')}.` }).replace(
      'tags: [zzqx]',
      `tags: [zzqx]\nmetadata: { files: [${files.map((f) => `"${f}"`).join(', ')}] }`,
    );
  const store = indexKnowledge([
    { path: 'lessons/workflow/literal.lesson.md', text: named(['src/db/pool.ts']) },
    { path: 'lessons/workflow/bare-name.lesson.md', text: named(['tsconfig.json']) },
    { path: 'lessons/workflow/dir-glob.lesson.md', text: named(['db/migrations/**']) },
    { path: 'lessons/workflow/ext-glob.lesson.md', text: named(['*.sql']) },
    { path: 'lessons/workflow/directory.lesson.md', text: named(['src/api']) },
    { path: 'lessons/workflow/everything.lesson.md', text: named(['**']) },
  ]);
  /** The lessons that name one of the files, among those that apply by their words (here: their tag, zzqx). */
  const hits = (...files: string[]) =>
    surface(store, { text: 'zzqx plan', files }, { budgetTokens: 5000, maxEntries: 50 })
      .filter((e) => e.why.includes('names '))
      .map((e) => e.path.slice('lessons/workflow/'.length, -'.lesson.md'.length))
      .sort();

  it('meets a plan file named by a lesson however either side writes it, and nothing a glob of everything names', () => {
    expect(hits('src/db/pool.ts')).toEqual(['literal']);
    expect(hits('src/db/*.ts')).toEqual(['literal']);
    expect(hits('src/**')).toEqual(['directory', 'literal']);
    expect(hits('tsconfig.json')).toEqual(['bare-name']);
    expect(hits('packages/web/tsconfig.json')).toEqual(['bare-name']);
    expect(hits('*.json')).toEqual(['bare-name']);
    expect(hits('db/migrations/004-tags.sql')).toEqual(['dir-glob', 'ext-glob']);
    expect(hits('src/api/routes.ts')).toEqual(['directory']);
    expect(hits('src/apis/routes.ts', 'src/db/pool.js', 'README.md')).toEqual([]);
  });

  it('never surfaces a lesson by a file alone: plans of one folder meet different causes', () => {
    expect(
      surface(store, { text: 'plan', files: ['src/db/pool.ts', 'tsconfig.json', 'db/migrations/004-tags.sql'] }, { budgetTokens: 5000, maxEntries: 50 }),
    ).toEqual([]);
  });
});

describe('words', () => {
  it('meets the forms a lesson and a plan write the same thing in', () => {
    expect(words('Locked locks locking lock')).toEqual(['lock', 'lock', 'lock', 'lock']);
    expect(words('SQLITE_BUSY in better-sqlite3 with SQLite')).toEqual(['sqlit', 'busy', 'better', 'sqlite3', 'sqlit', 'sqlit']);
    expect(words('saveNote TypeScript')).toEqual(['savenot', 'save', 'note', 'typescript', 'type', 'script']);
    expect(words('the tests are running on it')).toEqual(['test', 'run']);
    expect(words('retries retried retry')).toEqual(['retry', 'retry', 'retry']);
  });

  it('finds files in backticks and paths in prose, and not URLs, versions or abbreviations', () => {
    expect(namedFiles('Edit `src/a.ts` and `vitest.config.ts`, then lib/x/ and docs/*.md; see https://x.io/a/b.ts, e.g. Node 20.x, v1.2 and/or that.')).toEqual(
      ['src/a.ts', 'vitest.config.ts', 'lib/x/**', 'docs/*.md'],
    );
  });
});

describe('surfacing by what the plan touches and the error it met', () => {
  /** A drafted lesson about one error, whose words share nothing with the plans below. */
  const LESSON = [
    '---',
    'category: testing',
    'confidence: medium',
    'evidence_count: 6',
    'last_updated: "2026-04-02"',
    'tags: [sqlite-busy]',
    'projects: [notes-service]',
    'files: ["src/store/*.ts"]',
    'signatures: ["Error: SQLITE_BUSY: database is locked (<tmp>, pid <n>)"]',
    '---',
    '',
    '## Lesson',
    '',
    'Plans fail with "Error: SQLITE_BUSY: database is locked (/tmp/v/db.sqlite, pid 4117)" (seen 3 times in 3 places so far). What fixed it: "Gave each test file its own database file".',
    '',
    '## When this applies',
    '',
    'Plans that write or read `src/store/*.ts`.',
    '',
    '## Recommendation',
    '',
    'Do this from the start: "Gave each test file its own database file" (what the agent said fixed it in 3 places, first in SPC-001 01-01).',
    '',
    '## Evidence',
    '',
    '- `signals/notes-service/2026-04-01/20260401T090000Z-0a0b0c0d-struggle.signal.md` (struggle, medium, notes-service SPC-001 01-01, 2026-04-01T09:00:00.000Z)',
    '',
  ].join('\n');
  const store = indexKnowledge([{ path: 'lessons/testing/error-sqlite-busy.lesson.md', text: LESSON }]);

  it('does not surface it to a plan that only writes in the folder its failures were in', () => {
    expect(surface(store, { text: 'Audit trail\nRecord who changed what.', files: ['src/store/audit.ts'] })).toEqual([]);
  });

  it('matches a retried plan by the error its earlier attempt met, first, whatever it touches', () => {
    const subject = { text: 'Billing export\nWrite the CSV export.', files: ['src/export/csv.ts'] };
    expect(surface(store, subject)).toEqual([]);
    const [found] = surface(store, { ...subject, signatures: ['Error: SQLITE_BUSY: database is locked (<tmp>, pid <n>)'] });
    expect(found!.why).toMatch(/^the error of its earlier attempt: Error: SQLITE_BUSY: database is locked \(<tmp>, pid <n>\)(;|$)/);
    expect(surface(store, { ...subject, signatures: ['TypeError: x is undefined'] })).toEqual([]);
  });
});
