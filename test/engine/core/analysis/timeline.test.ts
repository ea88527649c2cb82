import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../app/engine/core/analysis/analyze.js';
import { MERMAID_MAX_TEXT } from '../../../../app/engine/core/analysis/render.js';
import { timelineMermaid, TIMELINE_MAX_BARS, type PlanSpan } from '../../../../app/engine/core/analysis/timeline.js';
import { loadSpec } from '../../../../app/engine/core/spec/load.js';
import type { PlanState } from '../../../../app/engine/core/state/plan-state.js';
import { specOf, type PlanOptions } from '../../../helpers/spec.js';
import { ganttProblems } from './gantt-grammar.js';

/**
 * The timeline STATUS.md draws (engine/core/analysis/timeline.ts): a Mermaid gantt of where the
 * time went, held to the subset of Mermaid's gantt grammar it writes, and to Mermaid's limits on
 * large specs.
 */

const NOW = new Date('2026-12-05T10:00:00Z');

function specWith(plans: PlanOptions[]) {
  const spec = loadSpec(specOf(plans)).spec!;
  return { spec, analysis: analyzeGraph(spec) };
}

describe("the run's timeline", () => {
  it('draws each plan that ran from its start to its end, a section per phase, done and active as they are, the critical path marked', () => {
    const { spec, analysis } = specWith([
      { id: '01-01', title: 'Reset tokens' },
      { id: '01-02', title: '"Mail: the #1 template; short"' },
      { id: '02-01', title: 'Endpoint', dependsOn: ['01-01'] },
    ]);
    const spans = new Map<string, PlanSpan>([
      ['01-01', { start: '2026-12-05T09:00:00Z', end: '2026-12-05T09:12:30Z' }],
      ['01-02', { start: '2026-12-05T09:00:05Z', end: '2026-12-05T09:04:00Z' }],
      ['02-01', { start: '2026-12-05T09:13:00Z' }],
    ]);
    const states = new Map<string, PlanState>([
      ['01-01', 'verified'],
      ['01-02', 'failed'],
      ['02-01', 'running'],
    ]);

    const text = timelineMermaid(spec, analysis, spans, states, NOW)!;

    expect(text.split('\n').slice(4)).toEqual([
      '  section 01 Phase',
      '  01-01 Reset tokens :crit, done, 2026-12-05T09:00:00, 2026-12-05T09:12:30',
      '  01-02 Mail the 1 template short :2026-12-05T09:00:05, 2026-12-05T09:04:00',
      '  section 02 Phase',
      // Still running: to now.
      '  02-01 Endpoint :crit, active, 2026-12-05T09:13:00, 2026-12-05T10:00:00',
      '',
    ]);
    expect(ganttProblems(text)).toEqual([]);
  });

  it('is nothing before any plan has run', () => {
    const { spec, analysis } = specWith([{ id: '01-01' }]);
    expect(timelineMermaid(spec, analysis, new Map(), new Map(), NOW)).toBeUndefined();
  });

  it("at 1,000 plans, one bar per phase, within the grammar and Mermaid's limit", () => {
    const plans: PlanOptions[] = [];
    for (let phase = 1; phase <= 20; phase++)
      for (let n = 1; n <= 50; n++) plans.push({ id: `${String(phase).padStart(2, '0')}-${String(n).padStart(2, '0')}`, title: `"Plan ${n}: with a colon"` });
    const { spec, analysis } = specWith(plans);
    const spans = new Map(
      plans.map(
        (p, i) =>
          [
            p.id,
            {
              start: new Date(Date.parse('2026-12-01T00:00:00Z') + i * 60_000).toISOString(),
              end: new Date(Date.parse('2026-12-01T00:30:00Z') + i * 60_000).toISOString(),
            },
          ] as const,
      ),
    );
    const states = new Map(plans.map((p) => [p.id, 'verified' as PlanState]));

    const text = timelineMermaid(spec, analysis, spans, states, NOW)!;

    expect(spec.plans.length).toBeGreaterThan(TIMELINE_MAX_BARS);
    const bars = text.split('\n').filter((l) => / :/.test(l));
    expect(bars).toHaveLength(20);
    // The phase holds the critical path's first plan: marked as its plans would be.
    expect(bars[0]).toBe('  01 Phase (50 of 50 plans) :crit, done, 2026-12-01T00:00:00, 2026-12-01T01:19:00');
    expect(text.length).toBeLessThan(MERMAID_MAX_TEXT);
    expect(ganttProblems(text)).toEqual([]);
  });
});
