/**
 * The scheduler's rules, one `it` each: what may start, in which order, what a failure
 * blocks, when phases are verified and what idle slots may research.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PlanState } from '../../../../app/engine/core/state/plan-state.js';
import { Scheduler } from '../../../../app/engine/core/schedule/scheduler.js';
import { loadSpec } from '../../../../app/engine/core/spec/load.js';
import type { Spec } from '../../../../app/engine/core/spec/model.js';
import { specOf, type PlanOptions } from '../../../helpers/spec.js';

function spec(plans: PlanOptions[]): Spec {
  const loaded = loadSpec(specOf(plans));
  expect(loaded.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return loaded.spec!;
}

describe('pick: what may start', () => {
  it('starts plans whose dependencies are all verified, and no others', () => {
    const s = new Scheduler(spec([{ id: '01-01' }, { id: '01-02', dependsOn: ['01-01'] }, { id: '01-03' }]));
    const state = s.state();
    expect(s.pick(state, 4)).toEqual(['01-01', '01-03']);
    state.setPlan('01-01', 'running');
    expect(s.pick(state, 4)).toEqual(['01-03']);
    state.setPlan('01-01', 'verified');
    expect(s.pick(state, 4)).toEqual(['01-02', '01-03']);
  });

  it('starts no more plans than there are free slots', () => {
    const s = new Scheduler(spec([{ id: '01-01' }, { id: '01-02' }, { id: '01-03' }]));
    expect(s.pick(s.state(), 2)).toHaveLength(2);
    expect(s.pick(s.state(), 0)).toEqual([]);
  });

  it('lets a later phase start as soon as its own dependencies are verified', () => {
    const s = new Scheduler(spec([{ id: '01-01' }, { id: '01-02', dependsOn: ['01-01'] }, { id: '02-01', dependsOn: ['01-01'] }]));
    const state = s.state({ plans: { '01-01': 'verified' } });
    expect(s.pick(state, 4)).toEqual(['01-02', '02-01']);
  });

  it('never picks two plans whose files_modified overlap in one call', () => {
    const s = new Scheduler(spec([{ id: '01-01', filesModified: ['src/auth/**'] }, { id: '01-02', filesModified: ['src/auth/login.ts'] }, { id: '01-03' }]));
    expect(s.pick(s.state(), 4)).toEqual(['01-01', '01-03']);
  });

  it('never picks a plan while a plan it overlaps is running or at a checkpoint', () => {
    const s = new Scheduler(
      spec([
        { id: '01-01', filesModified: ['src/*.ts'] },
        { id: '01-02', filesModified: ['src/{a,b}.ts'] },
      ]),
    );
    for (const active of ['running', 'checkpoint'] as const) {
      const state = s.state({ plans: { '01-01': active } });
      expect(s.pick(state, 4)).toEqual([]);
      state.setPlan('01-01', 'verified');
      expect(s.pick(state, 4)).toEqual(['01-02']);
    }
  });

  it('compares globs, not strings: globs that name no common file do not conflict', () => {
    const s = new Scheduler(
      spec([
        { id: '01-01', filesModified: ['src/*.ts'] },
        { id: '01-02', filesModified: ['src/*.css', 'src/a/b.ts'] },
      ]),
    );
    const state = s.state({ plans: { '01-01': 'running' } });
    expect(s.pick(state, 4)).toEqual(['01-02']);
  });

  it('never treats readers as conflicting: a plan may read what a running plan writes', () => {
    const s = new Scheduler(
      spec([
        { id: '01-01', filesModified: ['src/a.ts'], extra: 'files_read: ["src/b.ts"]' },
        { id: '01-02', filesModified: ['src/b.ts'], extra: 'files_read: ["src/a.ts"]' },
        { id: '01-03', filesModified: ['src/c.ts'], extra: 'files_read: ["src/a.ts", "src/b.ts"]' },
      ]),
    );
    expect(s.pick(s.state(), 4)).toEqual(['01-01', '01-02', '01-03']);
    expect(s.pick(s.state({ plans: { '01-01': 'running' } }), 4)).toEqual(['01-02', '01-03']);
  });

  it('does not start plans that failed, are blocked, or are already running or verified', () => {
    const s = new Scheduler(spec([{ id: '01-01' }, { id: '01-02' }, { id: '01-03' }, { id: '01-04' }, { id: '01-05' }]));
    const state = s.state({ plans: { '01-01': 'failed', '01-02': 'blocked', '01-03': 'running', '01-04': 'verified', '01-05': 'ready' } });
    expect(s.pick(state, 4)).toEqual(['01-05']);
  });

  it('refuses a state made by another scheduler', () => {
    const a = new Scheduler(spec([{ id: '01-01' }]));
    const b = new Scheduler(spec([{ id: '01-01' }]));
    expect(() => a.pick(b.state(), 1)).toThrow(/another scheduler/);
  });
});

describe('pick: which first', () => {
  it('picks the plan with the longest remaining critical path first, whatever its place in the spec', () => {
    // 01-03 heads a chain of three; 01-01 and 01-02 end nothing.
    const s = new Scheduler(
      spec([{ id: '01-01' }, { id: '01-02' }, { id: '01-03' }, { id: '01-04', dependsOn: ['01-03'] }, { id: '01-05', dependsOn: ['01-04'] }]),
    );
    expect(s.pick(s.state(), 1)).toEqual(['01-03']);
    expect(s.pick(s.state(), 3)).toEqual(['01-03', '01-01', '01-02']);
  });

  it('weighs the critical path by the given durations', () => {
    const plans = [{ id: '01-01' }, { id: '01-02' }, { id: '01-03', dependsOn: ['01-01'] }];
    const minutes: Record<string, number> = { '01-01': 1, '01-02': 30, '01-03': 5 };
    const s = new Scheduler(spec(plans), { duration: (id) => minutes[id]! });
    // 01-02 alone (30) outweighs 01-01 → 01-03 (1 + 5).
    expect(s.pick(s.state(), 1)).toEqual(['01-02']);
    // One unit per plan unless told: the chain comes first.
    const unweighted = new Scheduler(spec(plans));
    expect(unweighted.pick(unweighted.state(), 1)).toEqual(['01-01']);
  });

  it('breaks ties by plan order', () => {
    const s = new Scheduler(spec([{ id: '02-01' }, { id: '01-02' }, { id: '01-01' }]));
    expect(s.pick(s.state(), 3)).toEqual(['01-01', '01-02', '02-01']);
  });

  it('among conflicting plans, starts the more critical one', () => {
    const s = new Scheduler(
      spec([
        { id: '01-01', filesModified: ['src/shared.ts'] },
        { id: '01-02', filesModified: ['src/shared.ts'] },
        { id: '01-03', dependsOn: ['01-02'] },
      ]),
    );
    expect(s.pick(s.state(), 4)).toEqual(['01-02']);
  });

  it('keeps a plan back when it would take the files of the most critical plan, due as soon as running plans end', () => {
    // 01-02 → 01-03 → 01-04 is the critical path; 01-03 writes what 01-05 writes.
    const s = new Scheduler(
      spec([
        { id: '01-01' },
        { id: '01-02' },
        { id: '01-03', dependsOn: ['01-02'], filesModified: ['src/shared.ts'] },
        { id: '01-04', dependsOn: ['01-03'] },
        { id: '01-05', filesModified: ['src/shared.ts'] },
      ]),
    );
    const state = s.state({ plans: { '01-02': 'running' } });
    expect(s.pick(state, 4)).toEqual(['01-01']);
    // At a checkpoint, 01-02 waits for a person: nothing is due, so 01-05 may go, and first:
    // it and 01-03 write one file, 2 units of work that must run one after the other.
    state.setPlan('01-02', 'checkpoint');
    expect(s.pick(state, 4)).toEqual(['01-05', '01-01']);
  });
});

describe('blockedBy', () => {
  const plans: PlanOptions[] = [
    { id: '01-01' },
    { id: '01-02', dependsOn: ['01-01'] },
    { id: '01-03', dependsOn: ['01-02'] },
    { id: '01-04' },
    { id: '02-01', dependsOn: ['01-04'] },
    { id: '02-02', dependsOn: ['01-03', '01-04'] },
  ];

  it('blocks exactly the plans that depend on a failed plan, directly or not', () => {
    const s = new Scheduler(spec(plans));
    const state = s.state({ plans: { '01-01': 'failed' } });
    expect(s.blockedBy(state)).toEqual([
      { plan: '01-02', because: { plan: '01-01' } },
      { plan: '01-03', because: { plan: '01-01' } },
      { plan: '02-02', because: { plan: '01-01' } },
    ]);
    expect(s.pick(state, 4)).toEqual(['01-04']);
  });

  it('lists nothing when nothing failed, and frees the plans again when the failed plan is retried', () => {
    const s = new Scheduler(spec(plans));
    const state = s.state({ plans: { '01-01': 'failed', '01-02': 'blocked', '01-03': 'blocked' } });
    expect(s.blockedBy(state).map((b) => b.plan)).toEqual(['01-02', '01-03', '02-02']);
    state.setPlan('01-01', 'running');
    expect(s.blockedBy(state)).toEqual([]);
    expect(s.blockedBy(s.state())).toEqual([]);
  });

  it('blocks the plans that depend on a phase that failed its verification, and no others', () => {
    const s = new Scheduler(
      spec([
        { id: '01-01' },
        { id: '01-02' },
        { id: '02-01', dependsOn: ['01-01'] },
        { id: '02-02' },
        { id: '02-03', dependsOn: ['02-01'] },
        { id: '02-04', dependsOn: ['02-02'] },
      ]),
    );
    const state = s.state({ plans: { '01-01': 'verified', '01-02': 'verified', '02-02': 'verified' } });
    expect(s.pick(state, 4)).toEqual(['02-01', '02-04']);
    state.setPhase('01', 'failed');
    expect(state.failedPhases).toEqual(new Set(['01']));
    expect(s.blockedBy(state)).toEqual([
      { plan: '02-01', because: { phase: '01' } },
      { plan: '02-03', because: { phase: '01' } },
    ]);
    expect(s.pick(state, 4)).toEqual(['02-04']);
    // Verified again after a fix: the plans are free.
    state.setPhase('01', 'verified');
    expect(s.blockedBy(state)).toEqual([]);
    expect(s.pick(state, 4)).toEqual(['02-01', '02-04']);
  });

  it('does not list plans that already started or ended', () => {
    const s = new Scheduler(spec([{ id: '01-01' }, { id: '02-01', dependsOn: ['01-01'] }, { id: '02-02', dependsOn: ['01-01'] }]));
    const state = s.state({ plans: { '01-01': 'verified', '02-01': 'running' }, phases: { '01': 'failed' } });
    expect(s.blockedBy(state)).toEqual([{ plan: '02-02', because: { phase: '01' } }]);
  });
});

describe('phaseReady', () => {
  const plans: PlanOptions[] = [{ id: '01-01' }, { id: '01-02' }, { id: '02-01' }, { id: '03-01', dependsOn: ['02-01'] }];

  it('offers a phase once all its plans are verified', () => {
    const s = new Scheduler(spec(plans));
    const state = s.state({ plans: { '01-01': 'verified' } });
    expect(s.phaseReady(state)).toEqual([]);
    state.setPlan('01-02', 'verified');
    expect(s.phaseReady(state)).toEqual(['01']);
  });

  it('verifies phases in order: a later phase waits for the earlier one, even when its plans are done', () => {
    const s = new Scheduler(spec(plans));
    const state = s.state({ plans: { '02-01': 'verified', '03-01': 'verified', '01-01': 'verified' } });
    expect(s.phaseReady(state)).toEqual([]);
    state.setPlan('01-02', 'verified');
    expect(s.phaseReady(state)).toEqual(['01']);
    state.setPhase('01', 'verifying');
    expect(s.phaseReady(state)).toEqual([]);
    state.setPhase('01', 'verified');
    expect(s.phaseReady(state)).toEqual(['02']);
    state.setPhase('02', 'verified');
    expect(s.phaseReady(state)).toEqual(['03']);
    state.setPhase('03', 'verified');
    expect(s.phaseReady(state)).toEqual([]);
  });

  it('does not offer a failed phase again until someone acts', () => {
    const s = new Scheduler(spec(plans));
    const state = s.state({ plans: { '01-01': 'verified', '01-02': 'verified' }, phases: { '01': 'failed' } });
    expect(s.phaseReady(state)).toEqual([]);
    state.setPhase('01', 'pending');
    expect(s.phaseReady(state)).toEqual(['01']);
  });
});

describe('researchCandidates', () => {
  const plans: PlanOptions[] = [{ id: '01-01' }, { id: '02-01' }, { id: '03-01' }, { id: '04-01' }, { id: '05-01' }];

  it('offers the earliest unverified phase and the two after it, not yet researched, in order', () => {
    const s = new Scheduler(spec(plans));
    const state = s.state();
    expect(s.researchCandidates(state)).toEqual(['01', '02', '03']);
    state.setResearch('01', 'done');
    state.setResearch('02', 'running');
    expect(s.researchCandidates(state)).toEqual(['03']);
  });

  it('moves the window as phases are verified', () => {
    const s = new Scheduler(spec(plans));
    const state = s.state({ plans: { '01-01': 'verified' }, research: { '01': 'done', '02': 'done', '03': 'done' } });
    expect(s.researchCandidates(state)).toEqual([]);
    state.setPhase('01', 'verified');
    expect(s.researchCandidates(state)).toEqual(['04']);
    for (const p of ['02', '03', '04', '05']) state.setPhase(p, 'verified');
    expect(s.researchCandidates(state)).toEqual([]);
  });

  it('gives research only the slots that plans leave idle', () => {
    const s = new Scheduler(spec(plans));
    const state = s.state({ research: { '01': 'done' } });
    expect(s.next(state, 4)).toEqual({ start: ['01-01', '02-01', '03-01', '04-01'], verifyPhases: [], research: [] });
    expect(s.next(s.state({ plans: { '01-01': 'running', '02-01': 'running', '03-01': 'running', '04-01': 'running' } }), 2)).toEqual({
      start: ['05-01'],
      verifyPhases: [],
      research: ['01'],
    });
  });
});

describe('state', () => {
  it('rejects unknown plans and phases', () => {
    const s = new Scheduler(spec([{ id: '01-01' }]));
    expect(() => s.state({ plans: { '09-09': 'running' } })).toThrow('unknown plan "09-09"');
    expect(() => s.state().setPhase('09', 'verified')).toThrow('unknown phase "09"');
  });

  it('picks the same whether the state was built at once or changed step by step', () => {
    const STATES: PlanState[] = ['pending', 'ready', 'running', 'checkpoint', 'verified', 'failed', 'blocked'];
    const plans: PlanOptions[] = [
      { id: '01-01', filesModified: ['src/a.ts'] },
      { id: '01-02', dependsOn: ['01-01'], filesModified: ['src/**'] },
      { id: '01-03', filesModified: ['src/b.ts'] },
      { id: '02-01', dependsOn: ['01-01', '01-03'], filesModified: ['src/a.ts'] },
      { id: '02-02', filesModified: ['lib/x.ts'] },
      { id: '02-03', dependsOn: ['02-02'], filesModified: ['lib/*.ts'] },
    ];
    const s = new Scheduler(spec(plans));
    const ids = plans.map((p) => p.id);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...ids), fc.constantFrom(...STATES)), { maxLength: 30 }), fc.boolean(), (steps, phaseFailed) => {
        const stepwise = s.state();
        const final: Record<string, PlanState> = {};
        for (const [id, st] of steps) {
          stepwise.setPlan(id, st);
          final[id] = st;
        }
        if (phaseFailed) stepwise.setPhase('01', 'failed');
        const atOnce = s.state({ plans: final, phases: phaseFailed ? { '01': 'failed' } : {} });
        expect(s.pick(stepwise, 6)).toEqual(s.pick(atOnce, 6));
        expect(s.blockedBy(stepwise)).toEqual(s.blockedBy(atOnce));
        expect(s.phaseReady(stepwise)).toEqual(s.phaseReady(atOnce));
      }),
    );
  });
});
