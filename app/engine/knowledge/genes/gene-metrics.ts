import type { Gene } from '../documents/schema.js';
import type { EntryStats } from '../documents/trajectory-stats.js';

/**
 * A gene's record as decisions read it. The trajectory is the record: every application of
 * the gene is a `match` line and every verified one a `use` line, so the figures are counted
 * from it. The figures in the gene's own frontmatter are a snapshot written when it was last
 * promoted or decayed; they stand only for a gene the trajectory has never seen applied (one
 * brought in from another project, whose trajectory is not here). Adding the two would count
 * this project's applications twice.
 */
export interface GeneMetrics {
  /** Verified applications over all applications; 0 when never applied. */
  successRate: number;
  /** Applications: plans that ran with it in their brief and ended (verified or failed). */
  usageCount: number;
  consecutiveSuccesses: number;
  consecutiveFailures: number;
  /** The last application, from the trajectory or the gene's own record, whichever is later. */
  lastUsed?: string;
  /** Distinct plans verified with it. */
  places: number;
  from: 'trajectory' | 'gene';
}

function later(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

export function geneMetrics(gene: Gene, stats: EntryStats | undefined): GeneMetrics {
  const applied = stats === undefined ? 0 : stats.successes + stats.failures;
  const lastUsed = later(gene.last_used, stats?.lastMatch ?? stats?.lastUse);
  if (stats === undefined || applied === 0) {
    return {
      successRate: gene.success_rate,
      usageCount: gene.usage_count,
      consecutiveSuccesses: gene.consecutive_successes,
      consecutiveFailures: gene.consecutive_failures,
      ...(lastUsed === undefined ? {} : { lastUsed }),
      places: 0,
      from: 'gene',
    };
  }
  return {
    successRate: stats.successRate ?? 0,
    usageCount: applied,
    consecutiveSuccesses: stats.consecutiveSuccesses,
    consecutiveFailures: stats.consecutiveFailures,
    ...(lastUsed === undefined ? {} : { lastUsed }),
    places: stats.places,
    from: 'trajectory',
  };
}

/** The frontmatter keys that carry the metrics, rounded as a person reads them. */
export function metricsFrontmatter(metrics: GeneMetrics): Record<string, unknown> {
  return {
    success_rate: Math.round(metrics.successRate * 1000) / 1000,
    usage_count: metrics.usageCount,
    consecutive_successes: metrics.consecutiveSuccesses,
    consecutive_failures: metrics.consecutiveFailures,
    ...(metrics.lastUsed === undefined ? {} : { last_used: metrics.lastUsed }),
  };
}
