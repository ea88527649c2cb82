/**
 * The thresholds of a gene's life (docs/design.md, Genes), as `.github/harness.yml`'s
 * `knowledge.genes` sets them; these are the defaults.
 */
export interface GeneSettings {
  /** Tier 1: success rate and applications a candidate needs. */
  minSuccess: number;
  minUses: number;
  /** Tier 2: the GDI score and the files a capsule that applied it may have touched at most. */
  minGdi: number;
  maxImpactFiles: number;
  /** Days without an application after which a gene is deprecated. */
  deprecateDays: number;
  /** An active gene whose success rate falls below this (over at least minUses applications) goes back to candidate. */
  demoteBelow: number;
  /** Days without an application after which a deprecated gene is removed. */
  removeDays: number;
  /** Repairs of one error signature that make a candidate gene. */
  solidifyAfter: number;
  /** The share of a brief's surfacing budget candidate genes may take (the rest is for proven knowledge). */
  candidateShare: number;
  /** The share of the budget one gene may take, so that none crowds out the rest. */
  geneShare: number;
}

export const DEFAULT_GENE_SETTINGS: GeneSettings = {
  minSuccess: 0.7,
  minUses: 2,
  minGdi: 0.6,
  maxImpactFiles: 5,
  deprecateDays: 7,
  demoteBelow: 0.5,
  removeDays: 14,
  solidifyAfter: 2,
  candidateShare: 0.3,
  geneShare: 0.4,
};

/** `knowledge.genes` of `.github/harness.yml` (every key optional) as the engine takes it. */
export function geneSettingsOf(genes: Partial<Record<string, number>> | undefined): GeneSettings {
  const d = DEFAULT_GENE_SETTINGS;
  if (genes === undefined) return d;
  return {
    ...d,
    solidifyAfter: genes.solidify_after ?? d.solidifyAfter,
    minSuccess: genes.min_success ?? d.minSuccess,
    minUses: genes.min_uses ?? d.minUses,
    minGdi: genes.min_gdi ?? d.minGdi,
    maxImpactFiles: genes.max_impact_files ?? d.maxImpactFiles,
    deprecateDays: genes.deprecate_days ?? d.deprecateDays,
    demoteBelow: genes.demote_below ?? d.demoteBelow,
    removeDays: genes.remove_days ?? d.removeDays,
    candidateShare: genes.candidate_share ?? d.candidateShare,
  };
}
