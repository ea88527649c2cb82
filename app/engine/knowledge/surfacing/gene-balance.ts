import { knowledgeLine } from '../../core/agents/knowledge-brief.js';
import { DEFAULT_GENE_SETTINGS } from '../genes/gene-settings.js';
import type { IndexedEntry } from './knowledge-index.js';
import type { SurfacedEntry } from '../documents/loop.js';

/**
 * The 70/30 balance of a brief (docs/design.md, Genes): most of what surfacing may put into a
 * brief goes to proven knowledge (lessons, skills, active genes), a share to candidate genes,
 * which must be applied to earn a record but must not crowd out what has one. Candidates take
 * at most `candidateShare` of the entries (at least one, when the share is not 0) and of the
 * budget's characters; and no one gene's line takes more than `geneShare` of the budget (its
 * text is cut to fit), so that however well one gene scores, it cannot monopolise a brief.
 */

export interface GeneBalance {
  /** Whether the entry may still be surfaced at all. */
  admits(entry: IndexedEntry): boolean;
  /** A gene's text cut so that its line keeps within its share of the budget. */
  cap(entry: IndexedEntry, chosen: SurfacedEntry): void;
  /** Count the line in; false when a candidate's line would go over the candidates' share. */
  take(entry: IndexedEntry, line: string): boolean;
}

const MIN_TEXT = 60;

export function geneBalance(options: { maxEntries: number; candidateShare?: number }, budgetChars: number): GeneBalance {
  const share = options.candidateShare ?? DEFAULT_GENE_SETTINGS.candidateShare;
  const slots = share <= 0 ? 0 : Math.max(1, Math.floor(options.maxEntries * share));
  const chars = budgetChars * share;
  const perGene = budgetChars * DEFAULT_GENE_SETTINGS.geneShare;
  let taken = 0;
  let used = 0;
  const candidate = (e: IndexedEntry) => e.kind === 'gene' && e.status === 'candidate';
  return {
    admits: (entry) => !candidate(entry) || taken < slots,
    cap(entry, chosen) {
      if (entry.kind !== 'gene') return;
      const over = knowledgeLine(chosen).length - perGene;
      if (over <= 0) return;
      const keep = Math.max(MIN_TEXT, chosen.text.length - over - 1);
      if (keep < chosen.text.length) chosen.text = `${chosen.text.slice(0, keep).trimEnd()}…`;
    },
    take(entry, line) {
      if (!candidate(entry)) return true;
      if (used + line.length + 1 > chars) return false;
      taken++;
      used += line.length + 1;
      return true;
    },
  };
}
