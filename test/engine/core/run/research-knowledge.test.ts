import { describe, expect, it } from 'vitest';
import { researchDocument } from '../../../../app/engine/core/run/research.js';
import { loadSpec } from '../../../../app/engine/core/spec/load.js';
import { specOf } from '../../../helpers/spec.js';

const spec = loadSpec(specOf([{ id: '01-01' }, { id: '02-01', dependsOn: ['01-01'] }, { id: '02-02' }])).spec!;
const phase = spec.phases.find((p) => p.id === '02')!;
const entry = {
  path: 'lessons/testing/sqlite-parallel-tests.lesson.md',
  kind: 'lesson' as const,
  title: 'Test files that share one SQLite database file fail in parallel.',
  text: 'Give each test file its own database.',
  score: 7.5,
  why: 'tags sqlite, tests',
};

describe('research ahead with surfaced knowledge', () => {
  it('lists under each plan what harness has learned that applies to it, and nothing under a plan nothing applies to', () => {
    const text = researchDocument({
      spec,
      phase,
      tracked: [],
      commit: 'abcdef1234567',
      now: new Date('2024-05-01T12:00:00Z'),
      knowledge: new Map([
        ['02-01', [entry]],
        ['02-02', []],
      ]),
    });
    const [first, second] = text.split('## 02-02');
    expect(first).toContain(
      '**Learned before (knowledge store):**\n\n- `lessons/testing/sqlite-parallel-tests.lesson.md` (lesson): Test files that share one SQLite database file fail in parallel. (tags sqlite, tests)\n',
    );
    expect(second).not.toContain('Learned before');
    expect(researchDocument({ spec, phase, tracked: [], commit: 'abcdef1234567', now: new Date('2024-05-01T12:00:00Z') })).not.toContain('Learned before');
  });
});
