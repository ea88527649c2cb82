import { describe, expect, it } from 'vitest';
import { captureFiles, type CaptureBatch } from '../../../../app/engine/knowledge/signals/capture.js';
import type { SignalDraft, SurfacedEntry } from '../../../../app/engine/knowledge/documents/loop.js';
import { parseKnowledge } from '../../../../app/engine/knowledge/documents/parse.js';
import { keyOfSignalPath, renderSignal, signalKey } from '../../../../app/engine/knowledge/signals/signal-file.js';
import { deriveTags } from '../../../../app/engine/knowledge/signals/signal-tags.js';
import { parseIndex, signalEntries, updateIndex } from '../../../../app/engine/knowledge/documents/store-index.js';
import { appendTrajectory, trajectoryEvents } from '../../../../app/engine/knowledge/documents/trajectory.js';
import { loadTemplate } from '../../../../app/machine/templates.js';

const AT = new Date('2026-03-02T09:30:00.000Z');

function draft(over: Partial<SignalDraft> = {}): SignalDraft {
  return {
    type: 'deviation',
    severity: 'medium',
    spec: 'SPC-007',
    phase: '01',
    plan: '01-02',
    agent: 'claude',
    tags: ['sqlite', 'migrations'],
    happened: 'Plan 01-02 changed a file outside its files_modified: `db/schema.sql`.\n\nMore lines.',
    context: 'Attempt 1.',
    cause: 'The plan does not declare it.',
    metadata: { attempt: 1 },
    ...over,
  };
}

async function batch(over: Partial<CaptureBatch> = {}): Promise<CaptureBatch> {
  return { drafts: [draft()], project: 'widgets', origin: 'local:run-1', at: AT, template: await loadTemplate('signal.md'), cap: { max: 20 }, ...over };
}

describe('tags from what was involved', () => {
  it('names the subject (languages, tools, directories, kinds of check) and never the incidental', () => {
    expect(
      deriveTags({
        files: ['src/store/sqlite-store.ts', 'test/store.test.ts', 'migrations/001_init.sql'],
        commands: ['npm test', 'node -e "const x = require(\'./a\'); console.log(x)"', 'python3 -m pytest tests/'],
        checks: ['tests_pass'],
      }),
    ).toEqual(['testing', 'store', 'node', 'npm', 'pytest', 'python', 'migrations', 'typescript']);
  });

  it('puts given words first and keeps at most eight', () => {
    const tags = deriveTags({ words: ['SQLite', 'Locking'], files: Array.from({ length: 20 }, (_, i) => `pkg${String.fromCharCode(97 + i)}/x.go`) });
    expect(tags.slice(0, 3)).toEqual(['sqlite', 'locking', 'go']);
    expect(tags).toHaveLength(8);
  });
});

describe('a signal as a file', () => {
  it('renders a valid signal document from the shipped template, at signals/<project>/<day>/<time>-<key>-<type>.signal.md', async () => {
    const key = signalKey('local:run-1', draft());
    const file = renderSignal(await loadTemplate('signal.md'), draft(), {
      project: 'widgets',
      at: AT,
      key,
      related: ['signals/widgets/2026-03-01/x-deviation.signal.md'],
      occurrences: 2,
    });

    expect(file.path).toBe(`signals/widgets/2026-03-02/20260302T093000Z-${key}-deviation.signal.md`);
    expect(keyOfSignalPath(file.path)).toBe(key);
    const parsed = parseKnowledge('signal', file.path, file.text);
    expect(parsed.problems).toEqual([]);
    expect(parsed.data).toEqual({
      type: 'deviation',
      severity: 'medium',
      project: 'widgets',
      spec: 'SPC-007',
      phase: '01',
      plan: '01-02',
      timestamp: '2026-03-02T09:30:00.000Z',
      agent: 'claude',
      tags: ['sqlite', 'migrations'],
      metadata: { key, attempt: 1, occurrences: 2, related: ['signals/widgets/2026-03-01/x-deviation.signal.md'] },
    });
    expect(file.text).toContain('## What happened\n\nPlan 01-02 changed a file outside its files_modified: `db/schema.sql`.');
  });

  it('keys a signal by where it was captured and what it is about, not by when', () => {
    expect(signalKey('actions:42', draft())).toBe(signalKey('actions:42', draft({ happened: 'other words' })));
    expect(signalKey('actions:42', draft())).not.toBe(signalKey('actions:43', draft()));
    expect(signalKey('actions:42', draft())).not.toBe(signalKey('actions:42', draft({ metadata: { attempt: 2 } })));
  });
});

describe("the store's index.md", () => {
  const entry = (path: string, timestamp: string, over: Record<string, unknown> = {}) => ({
    kind: 'signal' as const,
    path,
    timestamp,
    type: 'struggle' as const,
    severity: 'low' as const,
    project: 'widgets',
    spec: 'SPC-007',
    phase: '01',
    plan: '01-01',
    tags: ['npm'],
    summary: 'It | failed',
    ...over,
  });

  it('reads back what it wrote, newest first, a section per project and spec', () => {
    const text = updateIndex(undefined, [
      entry('signals/a.signal.md', '2026-03-01T00:00:00.000Z'),
      entry('signals/b.signal.md', '2026-03-02T00:00:00.000Z', { spec: 'SPC-008' }),
    ]);
    expect(text).toContain('## Signals · widgets · SPC-007');
    expect(text).toContain('## Signals · widgets · SPC-008');
    expect(text).toContain('| 2026-03-01T00:00:00.000Z | struggle | low | 01-01 | npm | It \\| failed | [a.signal.md](signals/a.signal.md) |');
    expect(signalEntries(text)).toEqual([
      entry('signals/a.signal.md', '2026-03-01T00:00:00.000Z'),
      entry('signals/b.signal.md', '2026-03-02T00:00:00.000Z', { spec: 'SPC-008' }),
    ]);
  });

  it('is updated incrementally: the rows there stay as they are, new ones go on top of their section, a phase-level signal keeps its phase', () => {
    const first = updateIndex(undefined, [entry('signals/a.signal.md', '2026-03-01T00:00:00.000Z')]);
    const next = updateIndex(first, [entry('signals/c.signal.md', '2026-03-03T00:00:00.000Z', { type: 'completion', plan: undefined })]);
    const lines = next.split('\n');
    const at = (needle: string) => lines.findIndex((l) => l.includes(needle));
    expect(at('c.signal.md')).toBeLessThan(at('a.signal.md'));
    expect(next).toContain('| completion | low | phase 01 |');
    expect(first.split('\n').filter((l) => l.includes('a.signal.md'))).toEqual(lines.filter((l) => l.includes('a.signal.md')));
    expect(parseIndex(next).map((e) => e.path)).toEqual(['signals/c.signal.md', 'signals/a.signal.md']);
    expect(signalEntries(next)[0]).toMatchObject({ phase: '01' });
    expect(signalEntries(next)[0]!.plan).toBeUndefined();
  });

  it('indexes the other kinds in their own sections, for the parts of the loop that write them', () => {
    const text = updateIndex(undefined, [
      { kind: 'lesson', path: 'lessons/testing/sqlite-busy.lesson.md', updated: '2026-03-04', title: 'SQLite needs a busy timeout', tags: ['sqlite'] },
    ]);
    expect(text).toContain('## Lessons\n\n| Updated | Title | Tags | File |');
    expect(parseIndex(text)).toEqual([
      { kind: 'lesson', path: 'lessons/testing/sqlite-busy.lesson.md', updated: '2026-03-04', title: 'SQLite needs a busy timeout', tags: ['sqlite'] },
    ]);
  });
});

describe('one batch into the store', () => {
  it('files new signals with the index, and files nothing twice (a resumed run, a re-run job)', async () => {
    const first = captureFiles(await batch(), {});
    expect(first.files.map((f) => f.path)).toEqual([first.filed[0]!.path, 'index.md']);
    expect(first.skipped).toEqual([]);

    const index = first.files.find((f) => f.path === 'index.md')!.text;
    const again = captureFiles(await batch({ at: new Date('2026-03-02T10:00:00Z') }), { index });
    expect(again.files).toEqual([]);
    expect(again.skipped.map((s) => s.reason)).toEqual(['duplicate']);
  });

  it('links a signal to earlier ones of its type and project that share a tag, and counts them', async () => {
    const first = captureFiles(await batch(), {});
    const index = first.files.find((f) => f.path === 'index.md')!.text;
    const later = new Date('2026-03-05T08:00:00Z');
    const next = captureFiles(
      await batch({
        at: later,
        origin: 'local:run-2',
        drafts: [
          draft({ plan: '02-01', phase: '02', tags: ['sqlite', 'locking'] }),
          draft({ plan: '02-02', phase: '02', tags: ['locking'] }),
          draft({ type: 'struggle', plan: '02-03', phase: '02', tags: ['sqlite'] }),
          draft({ plan: '02-04', phase: '02', tags: ['css'] }),
        ],
      }),
      { index },
    );
    const meta = next.files.filter((f) => f.path.endsWith('.signal.md')).map((f) => parseKnowledge('signal', f.path, f.text).data!.metadata);
    expect(meta[0]).toMatchObject({ occurrences: 2, related: [first.filed[0]!.path] });
    // The second shares `locking` only with the first of this batch.
    expect(meta[1]).toMatchObject({ occurrences: 2, related: [next.filed[0]!.path] });
    // Another type, or no shared tag: not related.
    expect(meta[2]!.related).toBeUndefined();
    expect(meta[3]!.related).toBeUndefined();
  });

  it('caps the signals of one phase, counting those filed since the run began, and files the first ones', async () => {
    const drafts = Array.from({ length: 4 }, (_, i) => draft({ plan: `01-0${i + 1}`, tags: [`t${i}`] }));
    const first = captureFiles(await batch({ drafts: drafts.slice(0, 2), cap: { max: 3, since: '2026-03-02T00:00:00Z' } }), {});
    const index = first.files.find((f) => f.path === 'index.md')!.text;

    const next = captureFiles(
      await batch({ drafts: [...drafts.slice(2), draft({ plan: '02-01', phase: '02' })], cap: { max: 3, since: '2026-03-02T00:00:00Z' } }),
      { index },
    );
    expect(next.filed.map((e) => e.plan)).toEqual(['01-03', '02-01']);
    expect(next.skipped.map((s) => [s.draft.plan, s.reason])).toEqual([['01-04', 'cap']]);

    // A new run (a later start) counts afresh.
    const later = captureFiles(await batch({ drafts: drafts.slice(3), cap: { max: 3, since: '2026-03-03T00:00:00Z' } }), { index });
    expect(later.skipped).toEqual([]);
  });

  it("appends match and use lines to the day's trajectory, each once", async () => {
    const entries: SurfacedEntry[] = [
      { path: 'lessons/testing/sqlite-busy.lesson.md', kind: 'lesson', title: 'SQLite busy', text: 'Set a busy timeout.', score: 0.8123, why: 'tags sqlite' },
    ];
    const events = trajectoryEvents({ entries, project: 'widgets', spec: 'SPC-007', plan: '01-02', attempt: 1, verified: true, at: AT, origin: 'local:run-1' });
    const result = captureFiles(await batch({ drafts: [], trajectory: events }), { trajectory: '{"note":"by hand"}\n' });
    expect(result.files.map((f) => f.path)).toEqual(['trajectory/2026-03-02.jsonl']);
    const lines = result.files[0]!.text.trim().split('\n');
    expect(lines[0]).toBe('{"note":"by hand"}');
    expect(lines.slice(1).map((l) => JSON.parse(l))).toEqual([
      {
        timestamp: AT.toISOString(),
        type: 'match',
        project: 'widgets',
        spec: 'SPC-007',
        plan: '01-02',
        attempt: 1,
        entry: entries[0]!.path,
        kind: 'lesson',
        title: 'SQLite busy',
        score: 0.812,
        why: 'tags sqlite',
        key: `local:run-1/SPC-007/01-02/1/match/${entries[0]!.path}`,
      },
      {
        timestamp: AT.toISOString(),
        type: 'use',
        project: 'widgets',
        spec: 'SPC-007',
        plan: '01-02',
        attempt: 1,
        entry: entries[0]!.path,
        kind: 'lesson',
        title: 'SQLite busy',
        score: 0.812,
        why: 'tags sqlite',
        key: `local:run-1/SPC-007/01-02/1/use/${entries[0]!.path}`,
      },
    ]);
    expect(appendTrajectory(result.files[0]!.text, events)).toBeUndefined();
  });
});
