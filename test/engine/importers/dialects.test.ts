import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../../app/engine/core/spec/load.js';
import { formatProblem } from '../../../app/engine/core/spec/problem.js';
import { PLAN_READING } from '../../../app/engine/importers/dialects.js';
import { SPEC_MD, specFiles } from '../../helpers/spec.js';

/** A plan as GSD writes it, in the place harness reads plans from. */
const GSD_PLAN = `---
phase: 01-foundation
plan: 02
wave: 1
depends_on: ["01"]
files_modified: [src/money.ts]
autonomous: true
must_haves:
  truths: ["Summing never produces a fractional cent"]
  artifacts:
    - path: src/money.ts
      exports: ["addCents"]
---
<objective>
Money arithmetic, test-first.
</objective>
`;

const HARNESS_PLAN = `---
plan_id: "01-01"
title: Scaffold
files_modified: [package.json]
must_pass:
  - { id: pkg, type: file_exists, path: package.json }
---
`;

describe('plans in GSD form, read wherever harness reads plans', () => {
  const files = () =>
    specFiles({ 'SPEC.md': SPEC_MD, 'planning/plans/01-foundation/01-01-PLAN.md': HARNESS_PLAN, 'planning/plans/01-foundation/01-02-PLAN.md': GSD_PLAN });

  it('are normalised by the importer before the spec loader sees them', () => {
    const loaded = loadSpec(files(), PLAN_READING);
    expect(loaded.problems.map((p) => formatProblem(p))).toEqual([]);
    const plan = loaded.spec!.planById.get('01-02')!;
    expect(plan).toMatchObject({
      format: 'gsd',
      title: 'Money arithmetic, test-first',
      dependsOn: ['01-01'],
      truths: ['Summing never produces a fractional cent'],
    });
    expect(plan.mustPass).toEqual([expect.objectContaining({ type: 'artifact', path: 'src/money.ts', exports: ['addCents'] })]);
    expect(loaded.spec!.planById.get('01-01')!.format).toBe('harness');
  });

  it('keep the lines of the file as written, so that a problem points into it', () => {
    const broken = GSD_PLAN.replace('depends_on: ["01"]', 'depends_on: ["07"]');
    const loaded = loadSpec(
      specFiles({ 'SPEC.md': SPEC_MD, 'planning/plans/01-foundation/01-01-PLAN.md': HARNESS_PLAN, 'planning/plans/01-foundation/01-02-PLAN.md': broken }),
      PLAN_READING,
    );
    expect(loaded.problems.map((p) => formatProblem(p))).toEqual([
      expect.stringMatching(/^planning\/plans\/01-foundation\/01-02-PLAN\.md:5: depends_on "01-07" is not a plan in this spec/),
    ]);
  });

  it('are not read by the spec model on its own: it knows no importer', () => {
    const loaded = loadSpec(files());
    expect(loaded.valid).toBe(false);
    expect(loaded.problems.map((p) => formatProblem(p)).join('\n')).toMatch(/01-02-PLAN\.md:\d+: .*plan_id/);
  });
});
