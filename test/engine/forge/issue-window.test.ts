import { describe, expect, it } from 'vitest';
import { issueWindow, issueWindowSize, partialPhases, windowSlack } from '../../../app/engine/forge/issue-window.js';

/** Phases of the given sizes, plans `PP-NN`. */
function spec(sizes: number[]) {
  const phases = sizes.map((n, i) => ({
    id: String(i + 1).padStart(2, '0'),
    plans: Array.from({ length: n }, (_, j) => `${String(i + 1).padStart(2, '0')}-${String(j + 1).padStart(2, '0')}`),
  }));
  return { phases, plans: phases.flatMap((p) => p.plans.map((id) => ({ id }))) };
}

const ids = (s: ReturnType<typeof spec>) => s.plans.map((p) => p.id);

describe('the issue window', () => {
  it('is twice the slots, never fewer than 100, unless issue_window says', () => {
    expect(issueWindowSize({ slots: 4 })).toBe(100);
    expect(issueWindowSize({ slots: 64 })).toBe(128);
    expect(issueWindowSize({ slots: 64, issue_window: 30 })).toBe(30);
  });

  it('is the whole spec for a spec of that many plans or fewer', () => {
    const s = spec([50, 50]);
    expect(issueWindow(s, 100, () => false, ids(s))).toBeUndefined();
  });

  it('takes plans in the order a run starts them until that many not done are in it, whatever their phase', () => {
    const s = spec([3, 3, 3]);
    // A chain through the last phase starts first in a run: its plans come first.
    const order = ['01-01', '03-01', '01-02', '02-01', '03-02', '01-03', '02-02', '02-03', '03-03'];
    expect(issueWindow(s, 4, () => false, order)).toEqual(new Set(['01-01', '03-01', '01-02', '02-01']));
  });

  it('moves on as plans finish: done plans count for nothing', () => {
    const s = spec([3, 3, 3]);
    const order = ['01-01', '03-01', '01-02', '02-01', '03-02', '01-03', '02-02', '02-03', '03-03'];
    const done = (plan: string) => plan === '01-01' || plan === '03-01';
    expect(issueWindow(s, 4, done, order)).toEqual(new Set(['01-01', '03-01', '01-02', '02-01', '03-02', '01-03']));
  });

  it('takes plans the order leaves out last, in spec order', () => {
    const s = spec([2, 2]);
    expect(issueWindow(s, 3, () => false, ['02-02', 'gone'])).toEqual(new Set(['02-02', '01-01', '01-02']));
  });

  it('is the whole spec again once it reaches the last plan', () => {
    const s = spec([50, 50, 50]);
    expect(issueWindow(s, 100, (plan) => plan.startsWith('01-'), ids(s))).toBeUndefined();
  });

  it('moves once half of it is done, a batch at a time', () => {
    expect(windowSlack(128)).toBe(64);
    expect(windowSlack(3)).toBe(1);
  });

  it('tells the phases it holds only part of', () => {
    const s = spec([2, 2, 2]);
    const issued = new Set(['01-01', '01-02', '02-01']);
    expect(partialPhases(s, (p) => issued.has(p))).toEqual(new Set(['02', '03']));
  });
});
