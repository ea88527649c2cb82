import { describe, expect, it } from 'vitest';
import { parseKnowledge } from '../../../../app/engine/knowledge/documents/parse.js';
import { retireItem, stillSurfaced } from '../../../../app/engine/knowledge/holdout/retirement.js';
import { indexKnowledge } from '../../../../app/engine/knowledge/surfacing/knowledge-index.js';
import { storeFiles } from '../../../helpers/surfacing.js';

const AT = '2026-05-04T10:00:00.000Z';
const REASON = 'surfaced into 10 plans, of which 4 passed on their first attempt (40%), against 9 of 10 held-out plans (90%)';

function retiredStore(path: string, kind: 'lesson' | 'skill' | 'gene') {
  const files = storeFiles();
  const text = files.find((f) => f.path === path)!.text;
  const change = retireItem({ path, kind, reason: REASON }, text, AT);
  if (!change.ok) throw new Error(change.why);
  const after = files.filter((f) => !change.deletions.includes(f.path)).map((f) => change.files.find((c) => c.path === f.path) ?? f);
  for (const c of change.files) if (!after.some((f) => f.path === c.path)) after.push(c);
  return { change, before: indexKnowledge(files), after: indexKnowledge(after), text: (p: string) => after.find((f) => f.path === p)?.text };
}

describe('retiring a piece of knowledge', () => {
  it('a lesson keeps its place, marked retired with the reason, and is surfaced no more', () => {
    const path = 'lessons/testing/sqlite-parallel-tests.lesson.md';
    const { change, before, after, text } = retiredStore(path, 'lesson');
    expect(change).toMatchObject({ ok: true, deletions: [] });
    const lesson = parseKnowledge('lesson', path, text(path)!);
    expect(lesson.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(lesson.data!.metadata).toMatchObject({ retired: '2026-05-04', 'retired-reason': `retired by the holdout comparison: ${REASON}` });
    expect(before.entries.map((e) => e.path)).toContain(path);
    expect(after.entries.map((e) => e.path)).not.toContain(path);
    expect(after.entries).toHaveLength(before.entries.length - 1);
    expect(stillSurfaced({ path, kind: 'lesson' }, text(path))).toBe(false);
    expect(retireItem({ path, kind: 'lesson', reason: REASON }, text(path)!, AT)).toEqual({ ok: false, why: `${path} is retired already` });
  });

  it('a skill moves to skills-archived/ with the reason, as a prune does', () => {
    const path = 'skills/sqlite-busy-in-parallel-tests/SKILL.md';
    const { change, after, text } = retiredStore(path, 'skill');
    expect(change).toMatchObject({ ok: true, deletions: [path] });
    const archived = text('skills-archived/sqlite-busy-in-parallel-tests/SKILL.md')!;
    expect(archived).toContain(`archived-reason: "retired by the holdout comparison: ${REASON}"`);
    expect(archived).toContain(`- archived on 2026-05-04: retired by the holdout comparison: ${REASON}`);
    expect(after.entries.map((e) => e.path)).not.toContain(path);
  });

  it('a gene becomes deprecated, with a History line', () => {
    const path = 'genes/gene-20260302-a1b2c3d4.gene.md';
    const { change, after, text } = retiredStore(path, 'gene');
    expect(change).toMatchObject({ ok: true, deletions: [] });
    const gene = parseKnowledge('gene', path, text(path)!);
    expect(gene.data).toMatchObject({ status: 'deprecated', updated: AT });
    expect(text(path)).toContain(`- 2026-05-04: active → deprecated: retired by the holdout comparison: ${REASON}.`);
    expect(after.entries.map((e) => e.path)).not.toContain(path);
    expect(stillSurfaced({ path, kind: 'gene' }, text(path))).toBe(false);
    expect(stillSurfaced({ path: 'skills/gone/SKILL.md', kind: 'skill' }, undefined)).toBe(false);
  });
});
