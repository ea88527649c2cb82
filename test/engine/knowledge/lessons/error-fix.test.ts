import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Insight } from '../../../../app/engine/core/protocol/messages.js';
import type { Plan } from '../../../../app/engine/core/spec/model.js';
import { loadSpec } from '../../../../app/engine/core/spec/load.js';
import { attemptFailure, attemptSignals, type AttemptFailure } from '../../../../app/engine/lifecycle/signals.js';
import { parseKnowledge } from '../../../../app/engine/knowledge/documents/parse.js';
import { categoryOf, lessonDocument } from '../../../../app/engine/knowledge/lessons/lesson-document.js';
import { draftNote, harnessDraft } from '../../../../app/engine/knowledge/lessons/lesson-draft.js';
import { linkedLesson } from '../../../../app/engine/knowledge/lessons/lesson-link.js';
import { readLesson, type LessonRecord } from '../../../../app/engine/knowledge/lessons/lesson-record.js';
import { DEFAULT_SIMILARITY, reflect } from '../../../../app/engine/knowledge/lessons/reflect.js';
import { reflectorPrompt } from '../../../../app/engine/knowledge/lessons/reflector.js';
import { renderSignal } from '../../../../app/engine/knowledge/signals/signal-file.js';
import { readSignal, type SignalRecord } from '../../../../app/engine/knowledge/signals/signal-record.js';
import { ROOT } from '../../../helpers/paths.js';
import { specOf } from '../../../helpers/spec.js';

/**
 * Learning that names the fix, engine-side: attempts fail with two different errors in plans
 * that read alike, then pass after the agent says what fixed each; the signals capture writes,
 * read back, are reflected on, and the lessons drafted from them say error → fix, one error
 * each, with the files and the signature they apply to.
 */

const SIGNAL_TEMPLATE = readFileSync(join(ROOT, 'templates', 'signal.md'), 'utf8');
const LESSON_TEMPLATE = readFileSync(join(ROOT, 'templates', 'lesson.md'), 'utf8');
const SETTINGS = { minWeight: 4, minPlans: 2, similarity: DEFAULT_SIMILARITY };

/** Six plans of one service that read alike: the same words around different work. */
const SPEC = loadSpec(
  specOf(
    ['01-01', '01-02', '01-03', '01-04', '01-05', '01-06', '01-07'].map((id, i) => ({
      id,
      title: `Store ${['notes', 'tags', 'users', 'comments', 'files', 'teams', 'audit'][i]} with tests`,
      filesModified: [`src/store/${['notes', 'tags', 'users', 'comments', 'files', 'teams', 'audit'][i]}.ts`, `test/${id}.test.ts`],
      mustPass: 'must_pass:\n  - { id: tests, type: tests_pass, command: "npm test" }',
    })),
  ),
).spec!;
const plan = (id: string): Plan => SPEC.planById.get(id)!;

const BUSY = (id: string) =>
  `the command exited with code 1\n> vitest run\nError: SQLITE_BUSY: database is locked (/tmp/vitest-${id}/db.sqlite, pid 41${id.slice(-1)}7)`;
const MODULE = (id: string) =>
  `the command exited with code 1\n> node dist/server.js\nError [ERR_MODULE_NOT_FOUND]: Cannot find module '/home/ci/work/app/dist/db/pool' imported from /home/ci/work/app/dist/store/${id}.js`;

let minute = 0;
function filed(drafts: ReturnType<typeof attemptSignals>): SignalRecord[] {
  return drafts.map((d) => {
    const at = new Date(Date.UTC(2026, 3, 1, 9, minute++));
    const { path, text } = renderSignal(SIGNAL_TEMPLATE, d, { project: 'notes-service', at, key: `k${minute}` });
    const read = readSignal(`.harness/knowledge/${path}`, text);
    if ('problem' in read) throw new Error(read.problem);
    return read;
  });
}

/** A failed first attempt, then a second that passes with the agent's account of the fix. */
function failThenFix(id: string, error: string, insight: Insight, changed: string[]): SignalRecord[] {
  const failure: AttemptFailure = { ...attemptFailure({ agentError: error, timedOut: false }), changed: [`src/store/${id}.ts`] };
  const base = { spec: 'SPC-001', plan: plan(id), agent: 'command', timedOut: false, undeclaredWrites: [] };
  return [
    ...filed(attemptSignals({ ...base, attempt: 1, failedBefore: 0, end: 'failed', failure })),
    ...filed(
      attemptSignals({
        ...base,
        attempt: 2,
        failedBefore: 1,
        previous: { attempt: 1, failure },
        end: 'verified',
        changed: [`src/store/${id}.ts`, ...changed],
        seen: { insights: [insight] },
      }),
    ),
  ];
}

const BUSY_FIX: Insight = {
  kind: 'pattern',
  summary: 'Gave each test file its own database file (test/<file>.db) instead of one shared database',
  tags: ['sqlite'],
};
const MODULE_FIX: Insight = {
  kind: 'pattern',
  summary: 'Import compiled modules with their .js extension (./db/pool.js): Node ESM resolves no bare paths',
  tags: ['esm'],
};

function lessonOf(signals: SignalRecord[], lessons: LessonRecord[] = []) {
  return reflect({ signals, lessons, settings: SETTINGS });
}

describe('learning that names the fix', () => {
  const signals = [
    ...failThenFix('01-01', BUSY('01-01'), BUSY_FIX, ['test/setup.ts']),
    ...failThenFix('01-02', MODULE('tags'), MODULE_FIX, ['tsconfig.json']),
    ...failThenFix('01-03', BUSY('01-03'), BUSY_FIX, ['test/setup.ts']),
    ...failThenFix('01-04', MODULE('comments'), MODULE_FIX, ['tsconfig.json']),
    ...failThenFix('01-05', BUSY('01-05'), BUSY_FIX, ['test/setup.ts']),
    // A one-off of another error, in a plan that reads like the rest.
    ...filed(
      attemptSignals({
        spec: 'SPC-001',
        plan: plan('01-06'),
        agent: 'command',
        attempt: 1,
        failedBefore: 0,
        end: 'failed',
        timedOut: false,
        undeclaredWrites: [],
        failure: attemptFailure({
          agentError: 'the command exited with code 1\nTypeError: Cannot read properties of undefined (reading "id")',
          timedOut: false,
        }),
      }),
    ),
  ];

  it('every failure-bearing signal carries the signature of its telling line, the same in every plan', () => {
    const byType = (type: string) => signals.filter((s) => s.signal.type === type).map((s) => s.signal.metadata?.signature);
    expect(new Set(byType('struggle'))).toEqual(
      new Set([
        'Error: SQLITE_BUSY: database is locked (<tmp>, pid <n>)',
        // Where the project was checked out is no part of the error: the same in every plan.
        "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '<path>' imported from <path>",
        'TypeError: Cannot read properties of undefined (reading "id")',
      ]),
    );
    // The repair names what it repaired, and the agent's account of the fix is evidence of the same failure.
    const repair = signals.find((s) => s.signal.type === 'repair')!;
    expect(repair.signal.metadata).toMatchObject({
      signature: 'Error: SQLITE_BUSY: database is locked (<tmp>, pid <n>)',
      said: 'Error: SQLITE_BUSY: database is locked (/tmp/vitest-01-01/db.sqlite, pid 4117)',
      fix: { said: [BUSY_FIX.summary], files: ['test/01-01.test.ts', 'test/setup.ts'].filter((f) => f !== 'test/01-01.test.ts') },
    });
    expect(repair.text!.happened).toContain(`What fixed it: The agent said: "${BUSY_FIX.summary}". It changed \`test/setup.ts\`.`);
    const insight = signals.find((s) => s.signal.type === 'pattern')!;
    expect(insight.signal.metadata).toMatchObject({ signature: 'Error: SQLITE_BUSY: database is locked (<tmp>, pid <n>)', repairs: true });
  });

  it('reflection groups by signature: one lesson per error, never two errors in one, and a one-off joins nothing', () => {
    const { patterns, skipped } = lessonOf(signals);
    const busy = patterns.find((p) => p.pattern.signature?.startsWith('Error: SQLITE_BUSY'));
    expect(busy).toBeDefined();
    expect(new Set(busy!.pattern.signals.map((s) => s.signal.metadata?.signature))).toEqual(new Set([busy!.pattern.signature]));
    expect(busy!.pattern.signals.map((s) => s.signal.type).sort()).toEqual([
      'pattern',
      'pattern',
      'pattern',
      'repair',
      'repair',
      'repair',
      'struggle',
      'struggle',
      'struggle',
    ]);
    for (const { pattern } of patterns) expect(new Set(pattern.signals.map((s) => s.signal.metadata?.signature)).size).toBe(1);
    const oneOff = signals.find((s) => String(s.signal.metadata?.signature).startsWith('TypeError'))!;
    expect(skipped).toContainEqual({ signal: oneOff.file, reason: 'a one-off: no other unprocessed signal says the same thing (yet)' });
  });

  it('the drafted lesson says error → fix, with the files and the signature in its frontmatter', () => {
    const { patterns } = lessonOf(signals);
    const busy = patterns.find((p) => p.pattern.signature?.startsWith('Error: SQLITE_BUSY'))!.pattern;
    const text = harnessDraft(busy);
    expect(text.title).toBe('Error: SQLITE_BUSY: database is locked (<tmp>, pid <n>) → Gave each test file its own database file (test/<file>.db)…');
    expect(text.lesson).toBe(
      'Plans fail with "Error: SQLITE_BUSY: database is locked (/tmp/vitest-01-01/db.sqlite, pid 4117)" (seen 3 times in 3 places so far).',
    );
    // The fix whole, as a paragraph of its own (what a brief carries), then where it comes from; said once.
    expect(text.recommendation).toBe(
      `${BUSY_FIX.summary}.\n\nThat is what the agent said fixed it in 3 places, first in SPC-001 01-01; it changed \`test/setup.ts\`, and it stopped "Error: SQLITE_BUSY: database is locked (/tmp/vitest-01-01/db.sqlite, pid 4117)".`,
    );
    expect([text.lesson, text.when, text.recommendation].join('\n').split(BUSY_FIX.summary)).toHaveLength(2);
    // Seven plans that read alike, each in a folder of its own: nothing the three that met it had sets them apart, and the lesson says so.
    expect(busy.conditions).toEqual([]);
    expect(text.when).toMatch(/had nothing in common that the others lacked/);
    const doc = lessonDocument({
      template: LESSON_TEMPLATE,
      pattern: busy,
      text,
      category: categoryOf(busy),
      note: draftNote('no reflector agent is configured'),
      today: new Date('2026-04-02T00:00:00Z'),
    });
    const parsed = parseKnowledge('lesson', 'lessons/testing/x.lesson.md', doc);
    expect(parsed.problems).toEqual([]);
    expect(parsed.data).toMatchObject({ files: ['src/store/*.ts', 'test/*.ts'], signatures: ['Error: SQLITE_BUSY: database is locked (<tmp>, pid <n>)'] });
  });

  it('a reflector agent gets the signature and the fixes with the evidence', () => {
    const { patterns } = lessonOf(signals);
    const { pattern, why } = patterns.find((p) => p.pattern.signature?.startsWith('Error: SQLITE_BUSY'))!;
    const prompt = reflectorPrompt({ instructions: 'Write the lesson.', source: 'reflector.md', pattern, why, draft: harnessDraft(pattern) });
    expect(prompt).toContain('Failure signature (every signal here is this error): Error: SQLITE_BUSY: database is locked (<tmp>, pid <n>)');
    expect(prompt).toContain(`Fix the evidence records (3 places, first SPC-001 01-01): ${BUSY_FIX.summary} (changing test/setup.ts)`);
  });

  it("new evidence of the same signature links to the lesson and brings its generated count up to date; a person's words stay", () => {
    const { patterns } = lessonOf(signals);
    const busy = patterns.find((p) => p.pattern.signature?.startsWith('Error: SQLITE_BUSY'))!.pattern;
    const text = harnessDraft(busy);
    const doc = lessonDocument({
      template: LESSON_TEMPLATE,
      pattern: busy,
      text,
      category: 'testing',
      note: draftNote('no reflector agent is configured'),
      today: new Date('2026-04-02T00:00:00Z'),
    });
    // A person sharpened the recommendation before merging.
    const edited = doc.replace(/## Recommendation\n\n[^\n]+/, '## Recommendation\n\nOne database file per test file; see test/setup.ts.');
    const lesson = readLesson('.harness/knowledge/lessons/testing/x.lesson.md', edited) as LessonRecord;
    const later = failThenFix('01-07', BUSY('01-07'), BUSY_FIX, ['test/setup.ts']);
    // Worded unlike the lesson, yet the same error: linked by signature.
    const { links, patterns: fresh } = lessonOf(later, [lesson]);
    expect(fresh).toEqual([]);
    expect(links).toHaveLength(1);
    expect(links[0]!.similarity).toBe(1);
    const updated = linkedLesson(lesson, links[0]!.pattern.signals, new Date('2026-04-03T00:00:00Z'))!;
    expect(updated).toContain('(seen 6 times in 4 places so far)');
    expect(updated).toContain('One database file per test file; see test/setup.ts.');
    expect(parseKnowledge('lesson', 'x.lesson.md', updated).data).toMatchObject({ evidence_count: 12 });
  });
});

describe('a fix the agent did not put into words', () => {
  const SEED = (id: string) =>
    `the command exited with code 1\n> vitest run\nError: ENOENT: no such file or directory, open '/tmp/run-${id}/test/fixtures/seed.json'`;
  /** The passing attempt's diff since the failed one: a script added to package.json, a line of code, a blank. */
  const DIFF = [
    'diff --git a/package.json b/package.json',
    '--- a/package.json',
    '+++ b/package.json',
    '@@ -3,0 +4 @@',
    '+    "pretest": "node scripts/seed.js --out test/fixtures",',
    'diff --git a/src/store/x.ts b/src/store/x.ts',
    '--- a/src/store/x.ts',
    '+++ b/src/store/x.ts',
    '@@ -1,0 +2,2 @@',
    '+export const x = 1;',
    '+',
    'diff --git a/.harness/knowledge/index.md b/.harness/knowledge/index.md',
    '+++ b/.harness/knowledge/index.md',
    '+| signal | x: y |',
  ].join('\n');
  const signals = ['01-01', '01-02', '01-03'].flatMap((id) => {
    const failure: AttemptFailure = { ...attemptFailure({ agentError: SEED(id), timedOut: false }), head: 'c1' };
    const base = { spec: 'SPC-001', plan: plan(id), agent: 'command', timedOut: false, undeclaredWrites: [] };
    return [
      ...filed(attemptSignals({ ...base, attempt: 1, failedBefore: 0, end: 'failed', failure })),
      ...filed(
        attemptSignals({
          ...base,
          attempt: 2,
          failedBefore: 1,
          previous: { attempt: 1, failure },
          end: 'verified',
          changed: ['package.json'],
          summary: '`npm test` finished',
          diff: DIFF,
        }),
      ),
    ];
  });

  it('the repair records the settings its diff added, and the failure the commit it ended on', () => {
    const repair = signals.find((s) => s.signal.type === 'repair')!;
    expect(repair.signal.metadata?.fix).toEqual({
      files: ['package.json'],
      added: [{ file: 'package.json', line: '"pretest": "node scripts/seed.js --out test/fixtures"' }],
    });
    expect(repair.text!.happened).toContain('Its diff adds `"pretest": "node scripts/seed.js --out test/fixtures"` (in `package.json`).');
    expect(signals.find((s) => s.signal.type === 'struggle')!.signal.metadata).toMatchObject({ head: 'c1' });
  });

  it("the drafted lesson recommends what the diff added, said as the diff's, not the agent's", () => {
    const { patterns } = lessonOf(signals);
    const seed = patterns.find((p) => p.pattern.signature?.startsWith('Error: ENOENT'))!.pattern;
    const text = harnessDraft(seed);
    expect(text.lesson).not.toContain('pretest');
    expect(text.recommendation).toMatch(
      /^Add `"pretest": "node scripts\/seed.js --out test\/fixtures"` \(in `package.json`\)\.\n\nThat is what the passing attempt's diff added in 3 places, first in SPC-001 01-01; it changed `package.json`, and it stopped "Error: ENOENT/,
    );
  });
});
