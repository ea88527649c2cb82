import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixEvidence } from '../../../../app/engine/knowledge/lessons/same-fix.js';
import type { Insight } from '../../../../app/engine/core/protocol/messages.js';
import type { Plan } from '../../../../app/engine/core/spec/model.js';
import { loadSpec } from '../../../../app/engine/core/spec/load.js';
import type { SurfacedEntry } from '../../../../app/engine/knowledge/documents/loop.js';
import { parseKnowledge } from '../../../../app/engine/knowledge/documents/parse.js';
import { distill } from '../../../../app/engine/knowledge/lessons/distill.js';
import { readLesson, type LessonRecord } from '../../../../app/engine/knowledge/lessons/lesson-record.js';
import { DEFAULT_SIMILARITY, reflect } from '../../../../app/engine/knowledge/lessons/reflect.js';
import { renderSignal } from '../../../../app/engine/knowledge/signals/signal-file.js';
import { readSignal, type SignalRecord } from '../../../../app/engine/knowledge/signals/signal-record.js';
import { indexKnowledge } from '../../../../app/engine/knowledge/surfacing/knowledge-index.js';
import { planSubject, surface } from '../../../../app/engine/knowledge/surfacing/surface.js';
import { attemptFailure, attemptSignals, phaseCompletion, type AttemptFailure } from '../../../../app/engine/lifecycle/signals.js';
import { ROOT } from '../../../helpers/paths.js';
import { specOf } from '../../../helpers/spec.js';

/**
 * Reflection on a Go service whose failures span folders: a cause met in two wordings (lib/pq's
 * and pgx's) is one lesson with both signatures; another cause in the same folders is another
 * lesson; each says when it applies by what the plans that met it had in common, and a fix
 * that went stale gives way to the newer one.
 */

const SIGNAL_TEMPLATE = readFileSync(join(ROOT, 'templates', 'signal.md'), 'utf8');
const LESSON_TEMPLATE = readFileSync(join(ROOT, 'templates', 'lesson.md'), 'utf8');
const SETTINGS = { minWeight: 4, minPlans: 2, similarity: DEFAULT_SIMILARITY };

const FOLDERS = ['orders', 'users', 'billing'];
/** Plans 01-01…01-12 over three folders; the database ones read `internal/db/pool.go`, the race ones run `go test -race`. */
const KIND: Record<string, 'db' | 'race' | undefined> = {
  '01-01': 'db',
  '01-02': 'db',
  '01-03': 'db',
  '01-04': 'db',
  '01-05': 'race',
  '01-06': 'race',
  '01-07': 'race',
};
const SPEC = loadSpec(
  specOf(
    Array.from({ length: 12 }, (_, i) => {
      const id = `01-${String(i + 1).padStart(2, '0')}`;
      const folder = FOLDERS[i % 3]!;
      const kind = KIND[id];
      return {
        id,
        title: `${folder} ${kind === 'db' ? 'repository' : 'handler'} ${i}`,
        filesModified: [`internal/${folder}/f${i}.go`],
        mustPass: `must_pass:\n  - { id: tests, type: tests_pass, command: "go test ${kind === 'race' ? '-race ' : ''}./internal/${folder}/..." }`,
        ...(kind === 'db' ? { extra: 'files_read: ["internal/db/pool.go"]' } : {}),
      };
    }),
  ),
).spec!;
const plan = (id: string): Plan => SPEC.planById.get(id)!;
const IMPORTS = (id: string) => (KIND[id] === 'db' ? ['github.com/jackc/pgx', 'github.com/jackc/pgx/v5', 'github.com/jackc/pgx/v5/pgxpool'] : []);

const PQ = (table: string) => `the command exited with code 1\n--- FAIL: TestCreate (0.01s)\n    x_test.go:42: pq: relation "${table}" does not exist\nFAIL`;
const PGX = (table: string) =>
  `the command exited with code 1\n--- FAIL: TestList (0.00s)\n    x_test.go:17: ERROR: relation "${table}" does not exist (SQLSTATE 42P01)\nFAIL`;
const RACE = `the command exited with code 1\n==================\nWARNING: DATA RACE\nWrite at 0x00c000124000 by goroutine 8:\n  example.com/svc/internal/cache.(*Cache).Put()\n==================\n--- FAIL: TestPut (0.00s)\n    testing.go:1465: race detected during execution of test\nFAIL`;
const RACE_SIGNATURE = attemptFailure({ agentError: RACE, timedOut: false }).signature!;
const MIGRATE_A: Insight = { kind: 'pattern', summary: 'Run the migrations in TestMain with testdb.Migrate(t) before any test touches the database' };
const MIGRATE_B: Insight = { kind: 'pattern', summary: 'Call testdb.Migrate from TestMain so the tables exist before the tests run' };
const MUTEX: Insight = { kind: 'pattern', summary: 'Guard the shared cache map with a sync.Mutex' };

let minute = 0;
function filed(drafts: ReturnType<typeof attemptSignals>): SignalRecord[] {
  return drafts.map((d) => {
    const { path, text } = renderSignal(SIGNAL_TEMPLATE, d, { project: 'svc', at: new Date(Date.UTC(2026, 3, 1, 9, minute++)), key: `k${minute}` });
    const read = readSignal(`.harness/knowledge/${path}`, text);
    if ('problem' in read) throw new Error(read.problem);
    return read;
  });
}

function failThenFix(id: string, error: string, insight: Insight, o: { spec?: string; knowledge?: SurfacedEntry[] } = {}): SignalRecord[] {
  const failure: AttemptFailure = attemptFailure({ agentError: error, timedOut: false });
  const base = { spec: o.spec ?? 'SPC-001', plan: plan(id), agent: 'command', timedOut: false, undeclaredWrites: [], imports: IMPORTS(id) };
  return [
    ...filed(attemptSignals({ ...base, attempt: 1, failedBefore: 0, end: 'failed', failure, ...(o.knowledge ? { knowledge: o.knowledge } : {}) })),
    ...filed(
      attemptSignals({ ...base, attempt: 2, failedBefore: 1, previous: { attempt: 1, failure }, end: 'verified', changed: [], seen: { insights: [insight] } }),
    ),
  ];
}

/** The phase's completion: every plan's profile, the ones that met nothing among them. */
function completion(spec = 'SPC-001'): SignalRecord[] {
  const plans = [...SPEC.planById.values()];
  const phase = SPEC.phases[0]!;
  return filed([
    phaseCompletion({ spec, phase, plans, done: plans.map((p) => ({ id: p.id, title: p.title })), imports: new Map(plans.map((p) => [p.id, IMPORTS(p.id)])) }),
  ]);
}

const signals = [
  ...failThenFix('01-01', PQ('orders'), MIGRATE_A),
  ...failThenFix('01-02', PQ('users'), MIGRATE_A),
  ...failThenFix('01-03', PGX('invoices'), MIGRATE_B),
  ...failThenFix('01-04', PGX('orders'), MIGRATE_B),
  ...failThenFix('01-05', RACE, MUTEX),
  ...failThenFix('01-06', RACE, MUTEX),
  ...completion(),
];

describe('one cause in two wordings, another cause in the same folders', () => {
  const { patterns } = reflect({ signals, lessons: [], settings: SETTINGS });

  it('makes one lesson of the two wordings the same fix put right, and another of the race, never mixed', () => {
    expect(RACE_SIGNATURE).toMatch(/race/i);
    expect(patterns.map((p) => p.pattern.signatures).sort()).toEqual(
      [[RACE_SIGNATURE], ['pq: relation "<name>" does not exist', 'ERROR: relation "<name>" does not exist (SQLSTATE 42P01)'].sort()].sort(),
    );
    const db = patterns.find((p) => p.pattern.signatures!.length === 2)!.pattern;
    expect(db.wordings).toMatch(
      /^the same fix in other words \(both name `testmain`, `testdb\.migrate`|^the same fix in other words \(both name `testdb\.migrate`, `testmain`/,
    );
    const places = (p: typeof db) => new Set(p.signals.map((s) => s.signal.plan));
    expect(places(db)).toEqual(new Set(['01-01', '01-02', '01-03', '01-04']));
    expect(places(patterns.find((p) => p.pattern.signatures![0] === RACE_SIGNATURE)!.pattern)).toEqual(new Set(['01-05', '01-06']));
  });

  it('says when each applies by what its plans had and the others had not: the driver they import, the command they run, never a folder', () => {
    const db = patterns.find((p) => p.pattern.signatures!.length === 2)!.pattern;
    const race = patterns.find((p) => p.pattern.signatures![0] === RACE_SIGNATURE)!.pattern;
    const features = (p: typeof db) => p.conditions!.flatMap((c) => c.features.map((f) => `${f.kind} ${f.value}`));
    expect(features(db)).toContain('imports github.com/jackc/pgx');
    expect(features(race)).toEqual(['runs go test -race']);
    // The module the plans read (internal/db/pool) is what they use; the folders they write in are no evidence.
    for (const f of [...features(db), ...features(race)]) expect(f).not.toMatch(/orders|users|billing/);
  });

  it('drafts a lesson that names both wordings, one fix, and surfaces it to a new plan that reads the pool in a folder it was never met in', async () => {
    const changes = await distill({
      reflection: reflect({ signals, lessons: [], settings: SETTINGS }),
      template: LESSON_TEMPLATE,
      storePrefix: '.harness/knowledge/',
      today: new Date('2026-04-02T00:00:00Z'),
      taken: new Set(),
    });
    const db = changes.find((c) => c.pattern.signatures?.length === 2)!;
    const parsed = parseKnowledge('lesson', db.path, db.content);
    expect(parsed.problems).toEqual([]);
    expect(db.content).toMatch(
      /The same cause also shows as "ERROR: relation "(orders|invoices)" does not exist \(SQLSTATE 42P01\)"|The same cause also shows as "pq: relation/,
    );
    const index = indexKnowledge(changes.map((c) => ({ path: c.path.slice('.harness/knowledge/'.length), text: c.content })));
    const fresh = loadSpec(
      specOf([
        { id: '02-01', title: 'Reports repository', filesModified: ['internal/reports/repo.go'], extra: 'files_read: ["internal/db/pool.go"]' },
        {
          id: '02-02',
          title: 'Reports handler',
          filesModified: ['internal/reports/handler.go'],
          mustPass: 'must_pass:\n  - { id: tests, type: tests_pass, command: "go test -race ./internal/reports/..." }',
        },
        { id: '02-03', title: 'Orders export', filesModified: ['internal/orders/export.go'] },
      ]),
    ).spec!;
    const got = (id: string, imports: string[] = []) => surface(index, planSubject(fresh.planById.get(id)!, imports)).map((e) => e.path);
    expect(got('02-01', IMPORTS('01-01'))).toEqual([db.path.slice('.harness/knowledge/'.length)]);
    expect(got('02-02')).toEqual([changes.find((c) => c.pattern.signatures?.[0] === RACE_SIGNATURE)!.path.slice('.harness/knowledge/'.length)]);
    // A plan in a folder both causes met, showing neither: nothing.
    expect(got('02-03')).toEqual([]);
    const [entry] = surface(index, planSubject(fresh.planById.get('02-01')!, IMPORTS('01-01')));
    expect(entry!.why).toMatch(
      /^a plan whose files import `github\.com\/jackc\/pgx[^`]*`.*\(\d of the 4 plans that met it; 0 of the \d+ others\): \d+% likely to meet it/,
    );
  });
});

describe('a fix that went stale', () => {
  const LINT = 'the command exited with code 1\nError: can\'t load config: unsupported version of the configuration: ""';
  const OLD: Insight = { kind: 'pattern', summary: 'Pin golangci-lint to v1.55 in the Makefile (GOLANGCI_VERSION=v1.55)' };
  const NEW: Insight = { kind: 'pattern', summary: 'Run golangci-lint with --config .golangci.v2.yml: v2 reads only the new config format' };
  const first = [...failThenFix('01-08', LINT, OLD), ...failThenFix('01-09', LINT, OLD), ...completion()];

  async function lessonFrom(all: SignalRecord[]): Promise<LessonRecord> {
    const [change] = await distill({
      reflection: reflect({ signals: all, lessons: [], settings: SETTINGS }),
      template: LESSON_TEMPLATE,
      storePrefix: '.harness/knowledge/',
      today: new Date('2026-04-02T00:00:00Z'),
      taken: new Set(),
    });
    return readLesson(change!.path, change!.content) as LessonRecord;
  }

  it('gives way to the newer fix when a plan with the old one in its brief failed the same way, and keeps the old one on record, never surfaced', async () => {
    const lesson = await lessonFrom(first);
    expect(lesson.text.recommendation).toContain('Pin golangci-lint to v1.55');
    const briefed: SurfacedEntry[] = [
      { path: lesson.file.slice('.harness/knowledge/'.length), kind: 'lesson', title: 'x', text: 'Pin golangci-lint', score: 9, why: 'x' },
    ];
    const later = [
      ...failThenFix('01-10', LINT, NEW, { spec: 'SPC-002', knowledge: briefed }),
      ...failThenFix('01-11', LINT, NEW, { spec: 'SPC-002', knowledge: briefed }),
    ];
    const reflection = reflect({ signals: [...first, ...later], lessons: [lesson], settings: SETTINGS });
    expect(reflection.links).toHaveLength(1);
    expect(reflection.links[0]!.supersede?.failed.map((s) => s.signal.plan)).toEqual(['01-10', '01-11']);
    const [change] = await distill({
      reflection,
      template: LESSON_TEMPLATE,
      storePrefix: '.harness/knowledge/',
      today: new Date('2026-04-09T00:00:00Z'),
      taken: new Set([lesson.file]),
    });
    expect(parseKnowledge('lesson', change!.path, change!.content).problems).toEqual([]);
    const updated = readLesson(change!.path, change!.content) as LessonRecord;
    expect(updated.text.recommendation).toMatch(/^Run golangci-lint with --config \.golangci\.v2\.yml/);
    expect(updated.text.recommendation).not.toContain('v1.55');
    expect(change!.content).toMatch(
      /## Superseded\n\n- Until 2026-04-09: "Pin golangci-lint to v1\.55 in the Makefile \(GOLANGCI_VERSION=v1\.55\)\." — plans with it in their brief still failed the same way \(SPC-002 01-10; SPC-002 01-11\)/,
    );
    const [entry] = indexKnowledge([{ path: 'lessons/x.lesson.md', text: change!.content }]).entries;
    expect(entry!.text).toMatch(/^Run golangci-lint with --config/);
    expect(entry!.text).not.toContain('v1.55');

    // A skill about the same error written before the fix went stale is never surfaced again, and a person hears why.
    const sig = updated.lesson.signatures![0]!;
    const skill = (day: string) =>
      [
        '---',
        'name: golangci-config',
        'description: When the config is refused → pin golangci-lint v1.55.',
        'metadata:',
        `  extracted-on: "${day}"`,
        `  signatures: ${JSON.stringify(sig)}`,
        '---',
        '',
        '# Config',
        '',
        ...['Problem', 'Trigger conditions', 'Root cause', 'Solution', 'Verification', 'Anti-patterns', 'Related', 'Changelog'].flatMap((t) => [
          `## ${t}`,
          '',
          t === 'Solution' ? 'Pin golangci-lint to v1.55.' : 'See the lesson.',
          '',
        ]),
      ].join('\n');
    const index = indexKnowledge([
      { path: 'lessons/x.lesson.md', text: change!.content },
      { path: 'skills/golangci-config/SKILL.md', text: skill('2026-04-03') },
    ]);
    expect(index.entries.map((e) => e.path)).toEqual(['lessons/x.lesson.md']);
    expect(index.problems.map((p) => `${p.file}: ${p.severity}: ${p.message}`)).toEqual([
      `skills/golangci-config/SKILL.md: warning: its fix for \`${sig}\` went stale: lessons/x.lesson.md gave it a newer one on 2026-04-09; it is not surfaced until it is brought up to date (metadata updated-on) or archived`,
    ]);
    expect(
      indexKnowledge([
        { path: 'lessons/x.lesson.md', text: change!.content },
        { path: 'skills/golangci-config/SKILL.md', text: skill('2026-04-10') },
      ]).entries,
    ).toHaveLength(2);
  });

  it('knows the fix went stale when a skill about the same error stood for the lesson in the brief (a brief holds one item per error)', async () => {
    const lesson = await lessonFrom(first);
    const skill: SurfacedEntry[] = [
      {
        path: 'skills/golangci-config/SKILL.md',
        kind: 'skill',
        title: 'x',
        text: 'Pin golangci-lint',
        score: 9,
        why: 'x',
        signatures: [...lesson.lesson.signatures!],
      },
    ];
    const other: SurfacedEntry[] = [
      { path: 'skills/other/SKILL.md', kind: 'skill', title: 'x', text: 'x', score: 9, why: 'x', signatures: ['TypeError: x is undefined'] },
    ];
    const stale = reflect({
      signals: [...first, ...failThenFix('01-10', LINT, NEW, { spec: 'SPC-002', knowledge: skill })],
      lessons: [lesson],
      settings: SETTINGS,
    });
    expect(stale.links[0]!.supersede?.failed.map((s) => s.signal.plan)).toEqual(['01-10']);
    expect(stale.links[0]!.supersede?.briefed).toBe(true);
    // An item about another error in the brief says nothing of this one's fix: only the repair's other fix tells.
    const unrelated = reflect({
      signals: [...first, ...failThenFix('01-11', LINT, NEW, { spec: 'SPC-002', knowledge: other })],
      lessons: [lesson],
      settings: SETTINGS,
    });
    expect(unrelated.links[0]!.supersede?.briefed).toBe(false);
  });

  it('gives way to the newer fix when the latest repair of the same failure recorded another one, though no brief carried the old', async () => {
    const lesson = await lessonFrom(first);
    const later = failThenFix('01-10', LINT, NEW, { spec: 'SPC-002' });
    const reflection = reflect({ signals: [...first, ...later], lessons: [lesson], settings: SETTINGS });
    expect(reflection.links).toHaveLength(1);
    const supersede = reflection.links[0]!.supersede!;
    expect([supersede.briefed, supersede.failed.map((s) => s.signal.plan), supersede.repairs.map((s) => s.signal.plan)]).toEqual([false, ['01-10'], ['01-10']]);
    const [change] = await distill({
      reflection,
      template: LESSON_TEMPLATE,
      storePrefix: '.harness/knowledge/',
      today: new Date('2026-04-09T00:00:00Z'),
      taken: new Set([lesson.file]),
    });
    const updated = readLesson(change!.path, change!.content) as LessonRecord;
    expect(updated.text.recommendation).toMatch(/^Run golangci-lint with --config \.golangci\.v2\.yml/);
    expect(change!.content).toContain(
      '## Superseded\n\n- Until 2026-04-09: "Pin golangci-lint to v1.55 in the Makefile (GOLANGCI_VERSION=v1.55)." — the latest repairs of the same failure (SPC-002 01-10) recorded another fix, the one now under Recommendation.',
    );
  });

  it('keeps the fix when a later repair says it again in other words, or when the latest repair went back to it', async () => {
    const lesson = await lessonFrom(first);
    const AGAIN: Insight = { kind: 'pattern', summary: 'Pin golangci-lint to v1.55 in the Makefile (GOLANGCI_VERSION=v1.55), then run `make lint` again' };
    expect(
      reflect({ signals: [...first, ...failThenFix('01-10', LINT, AGAIN, { spec: 'SPC-002' })], lessons: [lesson], settings: SETTINGS }).links[0]!.supersede,
    ).toBeUndefined();
    // A repair whose agent said nothing of its fix: what its diff added is one plan's change, never a reason to replace the fix.
    const failure = attemptFailure({ agentError: LINT, timedOut: false });
    const base = { spec: 'SPC-002', plan: plan('01-10'), agent: 'command', timedOut: false, undeclaredWrites: [], imports: IMPORTS('01-10') };
    const silent = [
      ...filed(attemptSignals({ ...base, attempt: 1, failedBefore: 0, end: 'failed', failure })),
      ...filed(
        attemptSignals({
          ...base,
          attempt: 2,
          failedBefore: 1,
          previous: { attempt: 1, failure },
          end: 'verified',
          changed: ['.golangci.yml'],
          diff: 'diff --git a/.golangci.yml b/.golangci.yml\n--- a/.golangci.yml\n+++ b/.golangci.yml\n@@ -0,0 +1 @@\n+run: { timeout: 5m, go: "1.22" }\n',
        }),
      ),
    ];
    expect(fixEvidence(silent).lines.size).toBeGreaterThan(0);
    expect(reflect({ signals: [...first, ...silent], lessons: [lesson], settings: SETTINGS }).links[0]!.supersede).toBeUndefined();
    const back = [...failThenFix('01-10', LINT, NEW, { spec: 'SPC-002' }), ...failThenFix('01-11', LINT, OLD, { spec: 'SPC-002' })];
    expect(reflect({ signals: [...first, ...back], lessons: [lesson], settings: SETTINGS }).links[0]!.supersede).toBeUndefined();
  });

  it('keeps the fix when the plans that failed with it in their brief were put right by the same fix again', async () => {
    const lesson = await lessonFrom(first);
    const briefed: SurfacedEntry[] = [{ path: lesson.file.slice('.harness/knowledge/'.length), kind: 'lesson', title: 'x', text: 'x', score: 9, why: 'x' }];
    const later = failThenFix('01-10', LINT, OLD, { spec: 'SPC-002', knowledge: briefed });
    const reflection = reflect({ signals: [...first, ...later], lessons: [lesson], settings: SETTINGS });
    expect(reflection.links).toHaveLength(1);
    expect(reflection.links[0]!.supersede).toBeUndefined();
  });
});
