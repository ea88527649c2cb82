import { describe, expect, it } from 'vitest';
import { hypergeometricTail } from '../../../app/engine/core/stats.js';

describe("Fisher's exact test, one-sided (what a condition must pass)", () => {
  it('gives the chance of drawing as many marked plans or more, as counted by hand', () => {
    // Two plans of eight, three of which are marked: both marked 3 times in C(8,2) = 28.
    expect(hypergeometricTail(2, 2, 3, 8)).toBeCloseTo(3 / 28, 12);
    expect(hypergeometricTail(2, 2, 2, 8)).toBeCloseTo(1 / 28, 12);
    // Three of three among 17 plans, five marked: C(5,3) / C(17,3) = 10 / 680.
    expect(hypergeometricTail(3, 3, 5, 17)).toBeCloseTo(10 / 680, 12);
    // One or more of two, with four of ten marked: 1 - C(6,2)/C(10,2) = 1 - 15/45.
    expect(hypergeometricTail(1, 2, 4, 10)).toBeCloseTo(1 - 15 / 45, 12);
    expect(hypergeometricTail(0, 2, 4, 10)).toBe(1);
    expect(hypergeometricTail(3, 2, 4, 10)).toBe(0);
    // Large stores: 40 of 40 among 10,000 plans, 60 marked, is vanishingly rare, and finite.
    const rare = hypergeometricTail(40, 40, 60, 10_000);
    expect(rare).toBeGreaterThanOrEqual(0);
    expect(rare).toBeLessThan(1e-50);
  });
});
