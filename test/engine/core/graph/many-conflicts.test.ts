import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../app/engine/core/analysis/analyze.js';
import { graphText, MAX_LISTED_CONFLICTS } from '../../../../app/engine/core/analysis/render.js';
import { loadSpec } from '../../../../app/engine/core/spec/load.js';
import { specOf } from '../../../helpers/spec.js';

// When most plans overlap, conflicts are most of n²/2: `harness graph` printed every one
// (1.6 million lines, 72 MB, for 3,000 plans sharing docs/*.md). The text lists the first
// MAX_LISTED_CONFLICTS and counts the rest; --format json still lists every one.
describe('harness graph with thousands of conflicts', () => {
  it('lists the first conflicts and counts the rest', () => {
    const plans = Array.from({ length: 30 }, (_, i) => ({ id: `01-${String(i + 1).padStart(2, '0')}`, filesModified: ['docs/*.md', `src/p${i}.ts`] }));
    const spec = loadSpec(specOf(plans)).spec!;
    const analysis = analyzeGraph(spec);
    expect(analysis.conflicts).toHaveLength(435);
    const lines = graphText(spec, analysis).trimEnd().split('\n');
    const listed = lines.filter((l) => / × /.test(l));
    expect(listed).toHaveLength(MAX_LISTED_CONFLICTS);
    expect(listed[0]).toBe('  01-01 × 01-02  docs/*.md ∩ docs/*.md');
    expect(lines.at(-1)).toBe('  … and 235 more (435 in all; --format json lists every one)');
  });
});
