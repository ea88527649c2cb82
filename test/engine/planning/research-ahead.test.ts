import { describe, expect, it } from 'vitest';
import type { RoundPlan } from '../../../app/engine/forge/round-plan.js';
import { researchAheadPhases } from '../../../app/engine/planning/research-ahead.js';

type P = RoundPlan['plans'][number];
/** A plan as the App's records say: its recorded status (`ready` and `blocked` are both `queued`), `done` with its verified= record. */
const plan = (id: string, status?: 'ready' | 'blocked' | 'running' | 'verified', done = false): P =>
  ({ plan: id, phase: id.slice(0, 2), state: status === 'ready' || status === 'blocked' ? 'queued' : status, ...(done ? { verified: '7' } : {}) }) as P;

function round(plans: P[], freeSlots: number, dispatch: P[] = []): Pick<RoundPlan, 'phases' | 'plans' | 'dispatch' | 'freeSlots'> {
  return { phases: [...new Set(plans.map((p) => p.phase))], plans, dispatch, freeSlots };
}

describe('research ahead (which phases a round researches)', () => {
  const spec = [plan('01-01', 'running'), plan('02-01', 'blocked'), plan('03-01'), plan('04-01', 'blocked')];

  it('takes the two phases after the one executing, one per idle slot', () => {
    expect(researchAheadPhases({ round: round(spec, 3), claimed: new Set() })).toEqual(['02', '03']);
    expect(researchAheadPhases({ round: round(spec, 1), claimed: new Set() })).toEqual(['02']);
  });

  it('skips a phase claimed before or begun, and never reaches further than two', () => {
    expect(researchAheadPhases({ round: round(spec, 3), claimed: new Set(['02']) })).toEqual(['03']);
    const begun = [plan('01-01', 'running'), plan('02-01', 'verified', true), plan('03-01'), plan('04-01')];
    expect(researchAheadPhases({ round: round(begun, 3), claimed: new Set() })).toEqual(['03']);
  });

  it('does nothing when nothing executes or no slot is idle', () => {
    expect(researchAheadPhases({ round: round([plan('01-01', 'ready'), plan('02-01')], 4), claimed: new Set() })).toEqual([]);
    expect(researchAheadPhases({ round: round(spec, 0), claimed: new Set() })).toEqual([]);
    expect(researchAheadPhases({ round: round(spec, 1, [plan('01-02', 'ready')]), claimed: new Set() })).toEqual([]);
  });
});
