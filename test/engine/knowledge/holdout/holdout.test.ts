import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../../../app/engine/core/config/schema.js';
import { parseConfig } from '../../../../app/engine/core/config/parse.js';
import { heldOutLine, holdoutDraw, holdoutSettings, isHeldOut } from '../../../../app/engine/knowledge/holdout/holdout.js';

/** 10,000 plan ids across 100 specs, as ids are written. */
const PLANS = Array.from({ length: 100 }, (_, s) => `SPC-${String(s + 1).padStart(3, '0')}`).flatMap((spec) =>
  Array.from({ length: 100 }, (_, i) => ({ spec, plan: `${String(Math.floor(i / 10) + 1).padStart(2, '0')}-${String((i % 10) + 1).padStart(2, '0')}` })),
);

function heldOut(fraction: number, seed = 'harness'): Set<string> {
  return new Set(PLANS.filter((p) => isHeldOut({ fraction, seed }, p.spec, p.plan)).map((p) => `${p.spec}/${p.plan}`));
}

describe('the holdout choice', () => {
  it('is a pure function of the seed, the spec and the plan: sha256 of the three, pinned', () => {
    // sha256("harness\0SPC-001\001-01\0"), first 52 bits over 2^52 (python3 hashlib gives the same).
    expect(holdoutDraw('harness', 'SPC-001', '01-01')).toBe(0.16339753916513944);
    expect(holdoutDraw('harness', 'SPC-001', '01-02')).toBe(0.9043044718050655);
    expect(holdoutDraw('acme', 'SPC-001', '01-01')).toBe(0.02634990715490737);
    // The same plan, asked again (another attempt, a resume, a runner): the same answer.
    for (let i = 0; i < 3; i++) expect(isHeldOut({ fraction: 0.1, seed: 'acme' }, 'SPC-001', '01-01')).toBe(true);
    expect(isHeldOut({ fraction: 0.1, seed: 'harness' }, 'SPC-001', '01-01')).toBe(false);
  });

  it('holds out close to the fraction over many plans', () => {
    // Deterministic: these are the counts, every time; the bounds are ±4 standard deviations of a binomial.
    const tenth = heldOut(0.1).size;
    expect(tenth).toBeGreaterThan(880);
    expect(tenth).toBeLessThan(1120);
    const third = heldOut(1 / 3).size;
    expect(third).toBeGreaterThan(3333 - 190);
    expect(third).toBeLessThan(3333 + 190);
    expect(heldOut(0).size).toBe(0);
    expect(heldOut(1).size).toBe(PLANS.length);
  });

  it('a larger fraction keeps the plans a smaller one held out', () => {
    const small = heldOut(0.1);
    const large = heldOut(0.3);
    for (const p of small) expect(large.has(p)).toBe(true);
  });

  it('another seed holds out other plans', () => {
    const a = heldOut(0.2, 'harness');
    const b = heldOut(0.2, 'acme');
    const both = [...a].filter((p) => b.has(p)).length;
    // Independent draws: about 0.2 × 0.2 of the plans are held out by both, not 0.2.
    expect(both).toBeGreaterThan(400 - 100);
    expect(both).toBeLessThan(400 + 100);
  });

  it('is off by default, and the config names a fraction and a seed', () => {
    expect(DEFAULT_CONFIG.knowledge.holdout).toBe(0);
    expect(holdoutSettings(DEFAULT_CONFIG.knowledge)).toBeUndefined();
    const { config } = parseConfig('knowledge:\n  holdout: 0.1\n  holdout_seed: acme\n');
    expect(holdoutSettings(config!.knowledge)).toEqual({ fraction: 0.1, seed: 'acme' });
    expect(holdoutSettings(parseConfig('knowledge:\n  holdout: 0.25\n').config!.knowledge)).toEqual({ fraction: 0.25, seed: 'harness' });
    expect(parseConfig('knowledge:\n  holdout: 1.5\n').problems.map((p) => p.line)).toEqual([2]);
    expect(heldOutLine('01-02', 0.1)).toBe('01-02 held out: runs without surfaced knowledge (knowledge.holdout 0.1)');
  });
});
