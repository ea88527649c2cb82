import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../../../app/engine/core/spec/problem.js';
import { distill, NO_REFLECTOR } from '../../../../app/engine/knowledge/lessons/distill.js';
import { readLesson, type LessonRecord } from '../../../../app/engine/knowledge/lessons/lesson-record.js';
import { parseKnowledge } from '../../../../app/engine/knowledge/documents/parse.js';
import { DEFAULT_SIMILARITY, reflect, type ReflectSettings } from '../../../../app/engine/knowledge/lessons/reflect.js';
import { ReflectorError, type Reflector } from '../../../../app/engine/knowledge/lessons/reflector.js';
import { readSignal, type SignalRecord } from '../../../../app/engine/knowledge/signals/signal-record.js';
import { skippedSummary } from '../../../../app/engine/knowledge/lessons/skipped-summary.js';
import { stem, terms } from '../../../../app/engine/knowledge/lessons/terms.js';
import { readReflectionStore } from '../../../../app/machine/reflection-store.js';
import { FIXTURES, ROOT } from '../../../helpers/paths.js';

/**
 * Reflection over a recorded store (test/fixtures/knowledge/reflect/store): three signals of one
 * problem (SQLite locked by parallel tests) in three plans of two projects, each in its own
 * words and with its own partial tags; one-offs of every kind; two signals of one problem in
 * one plan; a lesson with its evidence, and a new signal of what that lesson says.
 */

const STORE = join(FIXTURES, 'knowledge', 'reflect', 'store');
const PREFIX = '.harness/knowledge/';
const SETTINGS: ReflectSettings = { minWeight: 4, minPlans: 2, similarity: DEFAULT_SIMILARITY };
const TEMPLATE = readFileSync(join(ROOT, 'templates', 'lesson.md'), 'utf8');
const TODAY = new Date('2026-03-11T10:00:00Z');

const sig = (path: string) => `${PREFIX}signals/${path}`;
const SQLITE = [
  sig('notes-service/2026-03-02/2026-03-02T09-14-00Z-struggle.signal.md'),
  sig('notes-service/2026-03-04/2026-03-04T15-40-00Z-repair.signal.md'),
  sig('tags-service/2026-03-09/2026-03-09T11-02-00Z-struggle.signal.md'),
];
const PORT_LESSON = `${PREFIX}lessons/tooling/stop-background-servers.lesson.md`;
const PORT_CITED = [
  sig('notes-service/2026-02-20/2026-02-20T14-00-00Z-struggle.signal.md'),
  sig('tags-service/2026-02-24/2026-02-24T16-10-00Z-struggle.signal.md'),
];
const PORT_NEW = sig('tags-service/2026-03-10/2026-03-10T13-25-00Z-struggle.signal.md');
const STUCK_PAIR = [sig('notes-service/2026-03-05/2026-03-05T09-00-00Z-stuck.signal.md'), sig('notes-service/2026-03-05/2026-03-05T09-40-00Z-stuck.signal.md')];
const ONE_OFFS = [
  sig('notes-service/2026-03-03/2026-03-03T10-05-00Z-deviation.signal.md'),
  sig('notes-service/2026-03-03/2026-03-03T12-30-00Z-config.signal.md'),
  sig('notes-service/2026-03-05/2026-03-05T08-20-00Z-timeout.signal.md'),
];
const COMPLETION = sig('notes-service/2026-03-06/2026-03-06T17-00-00Z-completion.signal.md');

async function fixture(): Promise<{ signals: SignalRecord[]; lessons: LessonRecord[] }> {
  const store = await readReflectionStore(STORE, PREFIX);
  expect(store.unreadableSignals).toEqual([]);
  expect(store.unreadableLessons).toEqual([]);
  return { signals: store.signals, lessons: store.lessons };
}

function signal(file: string, fields: Record<string, string>, what: string, tags: string[] = []): SignalRecord {
  const type = /-([a-z]+)\.signal\.md$/.exec(file)![1]!;
  const front = Object.entries({ type, severity: 'medium', project: 'app', timestamp: '2026-04-01T10:00:00Z', ...fields })
    .map(([k, v]) => `${k}: ${/^\d/.test(v) && k !== 'timestamp' ? `"${v}"` : v}`)
    .join('\n');
  const read = readSignal(file, `---\n${front}\ntags: [${tags.join(', ')}]\n---\n\n## What happened\n\n${what}\n`);
  if ('problem' in read) throw new Error(read.problem);
  return read;
}

describe('terms: the words signals are compared by', () => {
  it('meet at a common stem whatever the form, and split identifiers', () => {
    expect(['failing', 'failed', 'fails'].map(stem)).toEqual(['fail', 'fail', 'fail']);
    expect(['retries', 'retried', 'retry'].map(stem)).toEqual(['retry', 'retry', 'retry']);
    expect(['migration', 'migrate', 'migrated'].map(stem)).toEqual(['migrat', 'migrat', 'migrat']);
    expect(terms('SQLITE_BUSY: the db was locked by better-sqlite3').map((t) => t.stem)).toEqual(['sqlit', 'busy', 'databas', 'lock', 'better', 'sqlit']);
    expect(terms('listenEADDRINUSE on 0.0.0.0:3000 at 2026-03-02T09:14:00Z, commit 9f8e7d6c').map((t) => t.word)).toEqual(['listen', 'eaddrinuse', 'commit']);
  });
});

describe('reflect: recurring patterns among the signals no lesson cites yet', () => {
  it('makes one pattern of a failure that recurs in three plans in different words and with partial tags', async () => {
    const { patterns } = reflect({ ...(await fixture()), settings: SETTINGS });

    expect(patterns).toHaveLength(1);
    const [{ pattern, why }] = patterns as [(typeof patterns)[0]];
    expect(pattern.signals.map((s) => s.file)).toEqual(SQLITE);
    expect(pattern.type).toBe('struggle');
    expect(pattern.weight).toBe(7);
    expect(pattern.places).toEqual(['notes-service SPC-001 01-02', 'notes-service SPC-001 02-01', 'tags-service SPC-002 01-03']);
    // No tag is on all three, and only one word of the tags is on two (sqlite, sqlite3): the words carry it.
    expect(pattern.terms).toEqual(expect.arrayContaining(['sqlite', 'database', 'test']));
    expect(pattern.tags.slice(0, 1)).toEqual(['sqlite']);
    expect(why).toMatch(
      /^3 signals say the same thing \(similarity 0\.\d\d, at least 0\.35 needed\) in 3 distinct places \(.*\), with weight 7 \(1 high, 2 medium; at least 4 needed\)$/,
    );
  });

  it('never makes a lesson of a one-off, of one plan going wrong twice, or of what a lesson cites already', async () => {
    const { skipped, links } = reflect({ ...(await fixture()), settings: SETTINGS });
    const reason = (file: string) => skipped.find((s) => s.signal === file)?.reason;

    for (const file of ONE_OFFS) expect(reason(file)).toBe('a one-off: no other unprocessed signal says the same thing (yet)');
    for (const file of STUCK_PAIR) {
      expect(reason(file)).toMatch(
        /^2 alike signals \(similarity 0\.\d\d\), all in one place \(notes-service SPC-001 02-02\): a pattern must recur in 2 distinct plans or projects \(knowledge\.reflect\.min_plans\)$/,
      );
    }
    for (const file of PORT_CITED) expect(reason(file)).toBe(`already evidence of lesson ${PORT_LESSON}`);
    expect(reason(COMPLETION)).toBe('a completion signal counts work that went as planned; reflection distils problems and discoveries');
    // Counted by kind for people (the CLI and the App's answer), each reason of a kind they know.
    expect(skippedSummary(skipped)).toBe(
      '2 evidence of a lesson already, 3 one-offs, 2 recurring in one place only, 1 completion or use signals, which are not reflected on',
    );
    // Every signal is accounted for exactly once: in a pattern, a link, or skipped with its reason.
    const accounted = [...SQLITE, ...links.flatMap((l) => l.pattern.signals.map((s) => s.file)), ...skipped.map((s) => s.signal)];
    expect(accounted.sort()).toEqual((await fixture()).signals.map((s) => s.file).sort());
  });

  it('links a pattern an accepted lesson already says, rather than extracting it again', async () => {
    const { links, patterns } = reflect({ ...(await fixture()), settings: SETTINGS });

    expect(links.map((l) => ({ lesson: l.lesson.file, signals: l.pattern.signals.map((s) => s.file) }))).toEqual([
      { lesson: PORT_LESSON, signals: [PORT_NEW] },
    ]);
    expect(links[0]!.why).toMatch(
      /^1 new signal \(tags-service SPC-002 02-02\) says what .*stop-background-servers\.lesson\.md says \(similarity 0\.\d\d\): more evidence for it, not a new lesson$/,
    );
    expect(patterns.flatMap((p) => p.pattern.signals.map((s) => s.file))).not.toContain(PORT_NEW);
  });

  it('needs the weight: two low signals in two plans are not yet a pattern', () => {
    const a = signal(
      'signals/app/2026-04-01/a-struggle.signal.md',
      { severity: 'low', spec: 'SPC-001', plan: '01-01' },
      'The docker build failed pulling node:20-alpine from the registry mirror.',
    );
    const b = signal(
      'signals/app/2026-04-02/b-struggle.signal.md',
      { severity: 'low', spec: 'SPC-001', plan: '01-02', timestamp: '2026-04-02T10:00:00Z' },
      'Docker build could not pull the node:20-alpine image through the registry mirror.',
    );
    const { patterns, skipped } = reflect({ signals: [a, b], lessons: [], settings: SETTINGS });
    expect(patterns).toEqual([]);
    expect(skipped.map((s) => s.reason)[0]).toMatch(
      /^2 alike signals \(similarity 0\.\d\d\) in 2 places, of weight 2: a pattern needs 4 \(knowledge\.reflect\.min_weight; low 1, medium 2, high 3\)$/,
    );
    expect(reflect({ signals: [a, b], lessons: [], settings: { ...SETTINGS, minWeight: 2 } }).patterns).toHaveLength(1);
  });

  it('keeps unlike kinds apart: a deviation and a struggle in the same words are not one pattern', () => {
    const a = signal('signals/app/2026-04-01/a-struggle.signal.md', { spec: 'SPC-001', plan: '01-01' }, 'The agent edited package-lock.json by hand.');
    const b = signal(
      'signals/app/2026-04-02/b-deviation.signal.md',
      { spec: 'SPC-001', plan: '01-02', timestamp: '2026-04-02T10:00:00Z' },
      'The agent edited package-lock.json by hand.',
    );
    expect(reflect({ signals: [a, b], lessons: [], settings: SETTINGS }).patterns).toEqual([]);
  });

  it('takes the signals of a proposed lesson, and links nothing to it until it is merged', async () => {
    const { signals, lessons } = await fixture();
    const lesson = lessons[0]!;
    const proposal = {
      file: lesson.file,
      number: 12,
      url: 'https://github.com/o/r/pull/12',
      text: `${lesson.text.lesson}\n${lesson.text.when}\n${lesson.text.evidence}`,
      evidence: lesson.evidence,
    };
    const { links, skipped } = reflect({ signals, lessons: [], proposals: [proposal], settings: SETTINGS });
    expect(links).toEqual([]);
    expect(skipped.find((s) => s.signal === PORT_CITED[0])?.reason).toBe(`already evidence of lesson ${PORT_LESSON} (proposed in #12)`);
    expect(skipped.find((s) => s.signal === PORT_NEW)?.reason).toMatch(
      /^says what the lesson .* \(proposed in #12\) says \(similarity 0\.\d\d\); reflect again once it is merged$/,
    );
  });

  it('keeps the signals a broken lesson cites taken, and says which file to fix', async () => {
    const { signals } = await fixture();
    const broken = { file: PORT_LESSON, line: 2, problem: 'category must be one of …', evidence: PORT_CITED };
    const { skipped } = reflect({ signals, lessons: [], unreadableLessons: [broken], settings: SETTINGS });
    expect(skipped.find((s) => s.signal === PORT_CITED[0])?.reason).toBe(
      `cited by ${PORT_LESSON}, which cannot be read: fix ${PORT_LESSON}:2: category must be one of …`,
    );
  });

  it('answers the same whatever order the signals come in', async () => {
    const { signals, lessons } = await fixture();
    const first = reflect({ signals, lessons, settings: SETTINGS });
    const again = reflect({ signals: [...signals].reverse(), lessons: [...lessons].reverse(), settings: SETTINGS });
    expect(again).toEqual(first);
  });

  it('reports unreadable signals and signals left unread', () => {
    const { skipped } = reflect({
      signals: [],
      lessons: [],
      unreadable: [{ file: 'signals/a/x-stuck.signal.md', line: 3, problem: 'missing required key "project"' }],
      unread: ['signals/a/y-stuck.signal.md'],
      settings: SETTINGS,
    });
    expect(skipped).toEqual([
      { signal: 'signals/a/x-stuck.signal.md', reason: 'cannot be read: signals/a/x-stuck.signal.md:3: missing required key "project"' },
      { signal: 'signals/a/y-stuck.signal.md', reason: 'not read this time (beyond the newest signals a reflection reads); a later reflection reads it' },
    ]);
  });
});

/** A reflector agent behind the port: answers from a function, and keeps the prompts it was given. */
class ScriptedReflector implements Reflector {
  readonly name = 'scripted';
  readonly prompts: string[] = [];
  constructor(private readonly answer: (prompt: string) => string) {}
  async write(prompt: string): Promise<string> {
    this.prompts.push(prompt);
    return this.answer(prompt);
  }
}

const INSTRUCTIONS = readFileSync(join(ROOT, 'templates', 'agents', 'reflector.md'), 'utf8');

describe('distill: each pattern a lesson, each link more evidence', () => {
  it('without an agent, drafts a valid lesson from the evidence itself and says no agent wrote it', async () => {
    const { signals, lessons } = await fixture();
    const reflection = reflect({ signals, lessons, settings: SETTINGS });
    const changes = await distill({ reflection, template: TEMPLATE, storePrefix: PREFIX, today: TODAY, taken: new Set(lessons.map((l) => l.file)) });

    const created = changes.find((c) => c.action === 'create')!;
    expect(created).toMatchObject({
      path: `${PREFIX}lessons/testing/struggle-test-sqlite-database.lesson.md`,
      links: [],
      evidence: SQLITE,
      writtenBy: 'harness',
      category: 'testing',
    });
    const parsed = parseKnowledge('lesson', created.path, created.content);
    expect(parsed.problems.map((p) => formatProblem(p))).toEqual([]);
    expect(parsed.data).toMatchObject({
      category: 'testing',
      confidence: 'medium',
      evidence_count: 3,
      last_updated: '2026-03-11',
      projects: ['notes-service', 'tags-service'],
    });
    expect(parsed.data!.tags).toContain('sqlite');
    const lesson = readLesson(created.path, created.content) as LessonRecord;
    // The pattern stated from the evidence: the shared words and the most central signal's excerpt.
    expect(lesson.text.lesson).toMatch(/^Work involving .*sqlite.* keeps going wrong the same way, in 3 places so far: ".*SQLITE_BUSY.*"\.$/);
    expect(lesson.text.when).toContain('Seen in notes-service SPC-001 01-02, notes-service SPC-001 02-01 and tags-service SPC-002 01-03.');
    expect(lesson.text.recommendation).toContain('SQLite lets one writer in at a time');
    expect(lesson.evidence).toEqual(SQLITE);
    expect(created.content).toContain(`_Drafted by harness from this evidence, not written by an agent: ${NO_REFLECTOR}.`);
    expect(created.content).not.toMatch(/To be written|\{\{/);
  });

  it('updates a linked lesson: its evidence, evidence_count, last_updated; the rest as it was', async () => {
    const { signals, lessons } = await fixture();
    const reflection = reflect({ signals, lessons, settings: SETTINGS });
    const changes = await distill({ reflection, template: TEMPLATE, storePrefix: PREFIX, today: TODAY, taken: new Set(lessons.map((l) => l.file)) });

    const link = changes.find((c) => c.action === 'link')!;
    expect(link).toMatchObject({ path: PORT_LESSON, links: [PORT_LESSON], evidence: [PORT_NEW] });
    const before = readFileSync(join(STORE, 'lessons/tooling/stop-background-servers.lesson.md'), 'utf8');
    const newLine = `- \`${PORT_NEW}\` (struggle, medium, tags-service SPC-002 02-02, 2026-03-10T13:25:00Z): The server failed to start with EADDRINUSE :::3000; an old node process still held the port.`;
    expect(link.content).toBe(
      `${before.replace('evidence_count: 2', 'evidence_count: 3').replace('last_updated: 2026-02-25', 'last_updated: "2026-03-11"')}${newLine}\n`,
    );
    const relinked = readLesson(PORT_LESSON, link.content) as LessonRecord;
    expect(relinked.lesson.evidence_count).toBe(3);

    // Reflecting again on the updated lesson finds nothing more to do with that signal.
    const again = reflect({ signals, lessons: [relinked, ...lessons.filter((l) => l.file !== PORT_LESSON)], settings: SETTINGS });
    expect(again.links).toEqual([]);
    expect(again.skipped.find((s) => s.signal === PORT_NEW)?.reason).toBe(`already evidence of lesson ${PORT_LESSON}`);
  });

  it('with a reflector agent, the agent writes the lesson from a prompt that carries the evidence', async () => {
    const { signals, lessons } = await fixture();
    const reflection = reflect({ signals, lessons, settings: SETTINGS });
    const agent = new ScriptedReflector(() =>
      [
        'Here is the lesson.',
        '',
        '## Title',
        'One SQLite file per test worker',
        '',
        '## Lesson',
        'Give every test worker its own SQLite database file; a shared file makes parallel tests fail with SQLITE_BUSY.',
        '',
        '## When this applies',
        'Plans whose tests open a SQLite database and run in parallel (vitest, jest workers).',
        '',
        '## Recommendation',
        'Derive the database path from the worker id (VITEST_POOL_ID), or use :memory: in tests.',
        '',
        '## Category',
        'Testing',
      ].join('\n'),
    );
    const changes = await distill({
      reflection,
      template: TEMPLATE,
      storePrefix: PREFIX,
      today: TODAY,
      taken: new Set(),
      reflector: { agent, instructions: INSTRUCTIONS, source: 'templates/agents/reflector.md' },
    });

    expect(agent.prompts).toHaveLength(1);
    const prompt = agent.prompts[0]!;
    expect(prompt).toContain('You are the reflector of harness');
    for (const text of ['SQLITE_BUSY: database is locked', 'gave each worker its own db file', 'Concurrent test processes write to one shared SQLite file'])
      expect(prompt).toContain(text);
    expect(prompt).toContain('Places: notes-service SPC-001 01-02; notes-service SPC-001 02-01; tags-service SPC-002 01-03');
    expect(prompt).not.toMatch(/\{\{/);

    const created = changes.find((c) => c.action === 'create')!;
    expect(created).toMatchObject({ title: 'One SQLite file per test worker', writtenBy: 'scripted', category: 'testing' });
    const lesson = readLesson(created.path, created.content) as LessonRecord;
    expect(lesson.text.lesson).toBe('Give every test worker its own SQLite database file; a shared file makes parallel tests fail with SQLITE_BUSY.');
    expect(lesson.text.recommendation).toBe('Derive the database path from the worker id (VITEST_POOL_ID), or use :memory: in tests.');
    expect(lesson.evidence).toEqual(SQLITE);
    expect(created.content).toContain('_Written by the reflector agent (scripted) from this evidence, which harness chose._');
  });

  it('drafts the lesson itself, and says why, when the agent fails or answers out of form', async () => {
    const { signals, lessons } = await fixture();
    const reflection = reflect({ signals, lessons, settings: SETTINGS });
    const run = (agent: Reflector) =>
      distill({
        reflection,
        template: TEMPLATE,
        storePrefix: PREFIX,
        today: TODAY,
        taken: new Set(),
        reflector: { agent, instructions: INSTRUCTIONS, source: 'x' },
      });

    const failing = await run(
      new ScriptedReflector(() => {
        throw new ReflectorError('claude could not start: spawn claude ENOENT');
      }),
    );
    expect(failing[0]).toMatchObject({
      writtenBy: 'harness',
      agentProblem: 'the reflector agent (scripted) failed: claude could not start: spawn claude ENOENT',
    });
    expect(failing[0]!.content).toContain('not written by an agent: the reflector agent (scripted) failed: claude could not start');

    const rambling = await run(new ScriptedReflector(() => 'I think the tests should not share a database.'));
    expect(rambling[0]).toMatchObject({
      writtenBy: 'harness',
      agentProblem:
        'the reflector agent (scripted) answered out of form: its answer has no ## Lesson, no ## When this applies, no ## Recommendation section with text in it',
    });
    expect(parseKnowledge('lesson', rambling[0]!.path, rambling[0]!.content).problems).toEqual([]);
  });

  it("fills a repository's own instructions, and appends the evidence to instructions that leave it out", async () => {
    const { signals, lessons } = await fixture();
    const reflection = reflect({ signals, lessons, settings: SETTINGS });
    const agent = new ScriptedReflector(() => '## Lesson\nA.\n## When this applies\nB.\n## Recommendation\nC.\n');
    await distill({
      reflection,
      template: TEMPLATE,
      storePrefix: PREFIX,
      today: TODAY,
      taken: new Set(),
      reflector: { agent, instructions: 'Write a lesson in French.', source: '.github/harness/agents/reflector.md' },
    });
    expect(agent.prompts[0]).toMatch(/^Write a lesson in French\.\n\n## The pattern\n\nType: struggle/);
    expect(agent.prompts[0]).toContain('SQLITE_BUSY');

    const broken = distill({
      reflection,
      template: TEMPLATE,
      storePrefix: PREFIX,
      today: TODAY,
      taken: new Set(),
      reflector: { agent, instructions: '{{evidence}} {{nonsense}}', source: '.github/harness/agents/reflector.md' },
    });
    // A placeholder the reflector cannot fill is the instructions' problem: the lesson is drafted and the file named.
    expect((await broken)[0]!.agentProblem).toMatch(
      /^the reflector agent \(scripted\) failed: \.github\/harness\/agents\/reflector\.md: no value for \{\{nonsense\}\}/,
    );
  });
});
