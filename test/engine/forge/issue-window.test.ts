import { describe, expect, it } from 'vitest';
import { issueWindow, issueWindowSize } from '../../../app/engine/forge/issue-window.js';

/** Phases of the given sizes, plans `PP-NN`. */
function spec(sizes: number[]) {
  const phases = sizes.map((n, i) => ({ id: String(i + 1).padStart(2, '0'), plans: Array.from({ length: n }, (_, j) => `${String(i + 1).padStart(2, '0')}-${String(j + 1).padStart(2, '0')}`) }));
  return { phases, plans: phases.flatMap((p) => p.plans.map((id) => ({ id }))) } as never;
}

describe('the issue window', () => {
  it('is twice the slots, never fewer than 100, unless issue_window says', () => {
    expect(issueWindowSize({ slots: 4 })).toBe(100);
    expect(issueWindowSize({ slots: 64 })).toBe(128);
    expect(issueWindowSize({ slots: 64, issue_window: 30 })).toBe(30);
  });

  it('is the whole spec for a spec of that many plans or fewer', () => {
    expect(issueWindow(spec([50, 50]), 100, () => false)).toBeUndefined();
  });

  it('takes whole phases in order until that many plans not done are in it, the phase that reaches it included', () => {
    expect(issueWindow(spec([50, 50, 50, 50]), 100, () => false)).toEqual(new Set(['01', '02']));
    expect(issueWindow(spec([40, 50, 50, 50]), 100, () => false)).toEqual(new Set(['01', '02', '03']));
  });

  it('moves on as plans finish: a phase of done plans counts for nothing', () => {
    const done = (plan: string) => plan.startsWith('01-') || plan === '02-01';
    expect(issueWindow(spec([50, 50, 50, 50, 50]), 100, done)).toEqual(new Set(['01', '02', '03', '04']));
  });

  it('is the whole spec again once it reaches the last phase', () => {
    expect(issueWindow(spec([50, 50, 50]), 100, (plan) => plan.startsWith('01-'))).toBeUndefined();
  });
});
