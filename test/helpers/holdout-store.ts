import type { SignalDraft } from '../../app/engine/knowledge/documents/loop.js';
import type { PlanOutcome } from '../../app/engine/knowledge/signals/plan-outcome.js';
import { renderSignal } from '../../app/engine/knowledge/signals/signal-file.js';
import { loadTemplate } from '../../app/machine/templates.js';
import { lessonText } from './surfacing.js';

/** A knowledge store for the holdout comparison, by hand, as both runtimes file it (templates/signal.md). */

export const W = 'lessons/testing/worse.lesson.md';
export const K = 'skills/keep-going/SKILL.md';
export const G = 'genes/gene-20260301-0a1b2c3d.gene.md';

export function outcome(plan: string, attempts: number, cost: number | undefined, knowledge: string[], heldOut = false): PlanOutcome {
  return { plan, held_out: heldOut, attempts, first_pass: attempts === 1, ...(cost === undefined ? {} : { cost_usd: cost }), knowledge };
}

const id = (i: number) => `01-${String(i).padStart(2, '0')}`;
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/**
 * A store by hand, as the runtimes file it (templates/signal.md). Held out: SPC-001, ten plans,
 * nine passing at once (01-01 on its second attempt, its first costing $0.30). Offered: SPC-002,
 * ten plans with the lesson W, four passing at once (two of the six others with their failed
 * attempt's cost on record); SPC-003, three with the skill K, all at once; SPC-004, ten with the
 * gene G, all at once; SPC-005 01-01 with K, failed once and not passed.
 */
export async function holdoutStore(): Promise<Record<string, string>> {
  const template = await loadTemplate('signal.md');
  const at = Date.parse('2026-04-01T09:00:00Z');
  let n = 0;
  const file = (d: Omit<SignalDraft, 'severity' | 'tags' | 'happened' | 'context' | 'cause'>): [string, string] => {
    n++;
    const { path, text } = renderSignal(
      template,
      { severity: 'low', tags: [], happened: 'It happened.', context: '', cause: '', ...d },
      { project: 'notes', at: new Date(at + n * 60_000), key: n.toString(16).padStart(8, '0') },
    );
    return [`.harness/knowledge/${path}`, text];
  };
  const completion = (spec: string, outcomes: PlanOutcome[]) => file({ type: 'completion', spec, phase: '01', metadata: { plans: outcomes.length, outcomes } });
  const failed = (spec: string, plan: string, attempt: number, trial: Record<string, unknown>) =>
    file({ type: 'struggle', spec, phase: '01', plan, metadata: { attempt, outcome: 'failed', failure: 'checks:tests', trial } });
  return Object.fromEntries([
    failed('SPC-001', '01-01', 1, { held_out: true, cost_usd: 0.3, knowledge: [] }),
    completion(
      'SPC-001',
      range(10).map((i) => outcome(id(i), i === 1 ? 2 : 1, i === 1 ? 0.2 : 0.4, [], true)),
    ),
    failed('SPC-002', '01-05', 1, { held_out: false, cost_usd: 0.25, knowledge: [W] }),
    failed('SPC-002', '01-06', 1, { held_out: false, cost_usd: 0.25, knowledge: [W] }),
    completion(
      'SPC-002',
      range(10).map((i) => outcome(id(i), i <= 4 ? 1 : 2, i <= 4 ? 0.5 : 0.8, [W])),
    ),
    completion(
      'SPC-003',
      range(3).map((i) => outcome(id(i), 1, 0.3, [K])),
    ),
    completion(
      'SPC-004',
      range(10).map((i) => outcome(id(i), 1, undefined, [G])),
    ),
    failed('SPC-005', '01-01', 1, { held_out: false, cost_usd: 0.1, knowledge: [K] }),
    [
      `.harness/knowledge/${W}`,
      lessonText({ tags: ['sqlite'], lesson: 'Open the database once.', when: 'Plans with SQLite.', recommendation: 'Share one connection.' }),
    ],
  ]);
}
