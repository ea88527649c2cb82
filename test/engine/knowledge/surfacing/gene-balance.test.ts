import { describe, expect, it } from 'vitest';
import { indexKnowledge } from '../../../../app/engine/knowledge/surfacing/knowledge-index.js';
import { surface } from '../../../../app/engine/knowledge/surfacing/surface.js';
import { knowledgeLine } from '../../../../app/engine/core/agents/knowledge-brief.js';
import { geneText } from '../genes/gene-helpers.js';

/** The 70/30 balance: proven knowledge gets most of a brief, candidate genes a share, and no gene all of it. */

const subject = { text: 'Store notes in the SQLite database; cover it with vitest tests that run in parallel.', files: ['src/db/notes.ts'] };

// Each its own fix: a brief holds one fix once, whichever entries say it.
function gene(n: number, status: 'candidate' | 'active', description = `Give each parallel vitest worker its own SQLite database file, number ${n}.`) {
  const id = `gene-20260301-0000000${n}`;
  return {
    path: `genes/${id}.gene.md`,
    text: geneText({ id, status, success_rate: 0.9, usage_count: 3, description, tags: ['sqlite', 'vitest'], metadata: { files: ['src/db/notes.ts'] } }),
  };
}

describe('surfacing genes', () => {
  it('gives candidate genes at most their share of the entries, proven ones the rest', () => {
    const index = indexKnowledge([gene(1, 'candidate'), gene(2, 'candidate'), gene(3, 'candidate'), gene(4, 'active'), gene(5, 'active')]);
    expect(index.problems).toEqual([]);
    const found = surface(index, subject, { budgetTokens: 500, maxEntries: 5 });
    expect(found.map((e) => e.path)).toEqual([
      'genes/gene-20260301-00000004.gene.md',
      'genes/gene-20260301-00000005.gene.md',
      'genes/gene-20260301-00000001.gene.md',
    ]);
    // Ten entries allowed: three candidates (30%).
    expect(surface(index, subject, { budgetTokens: 2000, maxEntries: 10 }).filter((e) => !/0000000[45]/.test(e.path))).toHaveLength(3);
    expect(surface(index, subject, { budgetTokens: 500, maxEntries: 5, candidateShare: 0 }).map((e) => e.path)).toEqual([
      'genes/gene-20260301-00000004.gene.md',
      'genes/gene-20260301-00000005.gene.md',
    ]);
  });

  it('cuts a gene whose text would take more than its share of the budget', () => {
    const long = `Give each parallel vitest worker its own SQLite database file. ${'Name it after the pool id and remove it after the run. '.repeat(15)}`.slice(
      0,
      1000,
    );
    const index = indexKnowledge([gene(4, 'active', long)]);
    // 300 tokens are 1,200 characters; the whole entry (600 characters of text) would fit, 40% of it is the gene's share.
    const [only] = surface(index, subject, { budgetTokens: 300, maxEntries: 5 });
    expect(only!.text.endsWith('…')).toBe(true);
    expect(knowledgeLine(only!).length).toBeGreaterThan(470);
    expect(knowledgeLine(only!).length).toBeLessThanOrEqual(300 * 4 * 0.4);
  });
});
