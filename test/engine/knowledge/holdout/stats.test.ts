import { describe, expect, it } from 'vitest';
import { newcombe, studentTQuantile, welch, wilson, Z95 } from '../../../../app/engine/knowledge/holdout/stats.js';

/**
 * The intervals against values from elsewhere: Newcombe's own worked example (Statistics in
 * Medicine 17, 1998, table II, method 10) and scipy 1.17 (stats.norm.ppf, stats.t.ppf).
 */
describe('the intervals of the holdout comparison', () => {
  it("Wilson and Newcombe's hybrid score interval, as Newcombe's paper gives them", () => {
    expect(Z95).toBeCloseTo(1.959963984540054, 14);
    const w = wilson(11, 14);
    expect(w.low).toBeCloseTo(0.524108, 6);
    expect(w.high).toBeCloseTo(0.924286, 6);
    // 56/70 against 48/80: 0.2000 (0.0524 to 0.3339) in the paper.
    const d = newcombe(56, 70, 48, 80)!;
    expect(d.estimate).toBeCloseTo(0.2, 12);
    expect(d.low).toBeCloseTo(0.0524, 4);
    expect(d.high).toBeCloseTo(0.3339, 4);
    // At the edges (0 of 5 against 10 of 10) it stays within -1 to 1.
    const edge = newcombe(0, 5, 10, 10)!;
    expect(edge.low).toBeCloseTo(-1, 12);
    expect(edge.high).toBeCloseTo(-0.484443, 6);
    expect(newcombe(0, 0, 1, 2)).toBeUndefined();
  });

  it("Student's t quantile and Welch's interval, as scipy gives them", () => {
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.706204736174694, 9);
    expect(studentTQuantile(0.975, 3.7)).toBeCloseTo(2.8675207071911895, 9);
    expect(studentTQuantile(0.975, 30)).toBeCloseTo(2.0422724563012378, 9);
    expect(studentTQuantile(0.975, 1000)).toBeCloseTo(1.9623390808264083, 9);
    // [1,1,2,1,3] against [2,1,3,4]: -0.9 (-2.832466 to 1.032466), 5.17 degrees of freedom.
    const d = welch([1, 1, 2, 1, 3], [2, 1, 3, 4])!;
    expect(d.estimate).toBeCloseTo(-0.9, 12);
    expect(d.low).toBeCloseTo(-2.832466188351164, 9);
    expect(d.high).toBeCloseTo(1.032466188351164, 9);
    // No spread at all, or a group of one: no interval to give.
    expect(welch([1, 1, 1], [1, 1])).toBeUndefined();
    expect(welch([1, 2, 3], [1])).toBeUndefined();
  });
});
