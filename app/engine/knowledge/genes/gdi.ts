import type { GeneMetrics } from './gene-metrics.js';

/**
 * The GDI score of a gene (docs/design.md, Genes): one number from 0 to 1 for how far its
 * record can be trusted, a weighted blend of four things, each scaled to 0–1:
 *
 * - success (0.4): its success rate. It weighs most because it is what a gene is for; but alone
 *   it rewards a gene used once and lucky, hence the others.
 * - usage (0.25): ln(1 + uses) / ln(1 + 10), capped at 1: evidence grows with use, but the
 *   tenth application says less than the second, so it saturates at ten.
 * - recency (0.2): 0.5 ^ (days since last used / 7): a week-old record counts half. Code and
 *   tools move; what worked last month may not now. Seven days matches the decay window.
 * - breadth (0.15): distinct plans it was verified in, over 5, capped at 1: a gene that worked
 *   in five different plans is a pattern, one that worked five times in one plan may be that
 *   plan's quirk.
 *
 * Tier 2 asks for 0.6: a gene with a 0.8 success rate over 4 uses in 3 plans, used today,
 * scores 0.4·0.8 + 0.25·0.67 + 0.2·1 + 0.15·0.6 ≈ 0.78; the same gene idle for three weeks
 * scores ≈ 0.60 and sits on the line; one lucky use scores ≈ 0.4 + 0.07 + 0.2 + 0.03 = 0.70 only
 * when it is fresh, and tier 2 asks for two uses as well.
 */
export const GDI_WEIGHTS = { success: 0.4, usage: 0.25, recency: 0.2, breadth: 0.15 } as const;
export const GDI_USAGE_SATURATION = 10;
export const GDI_HALF_LIFE_DAYS = 7;
export const GDI_BREADTH_SATURATION = 5;

const DAY = 86_400_000;

export interface GdiParts {
  success: number;
  usage: number;
  recency: number;
  breadth: number;
  score: number;
}

export function gdi(metrics: GeneMetrics, now: Date): GdiParts {
  const success = metrics.successRate;
  const usage = Math.min(1, Math.log(1 + metrics.usageCount) / Math.log(1 + GDI_USAGE_SATURATION));
  const days = metrics.lastUsed === undefined ? Infinity : Math.max(0, (now.getTime() - Date.parse(metrics.lastUsed)) / DAY);
  const recency = days === Infinity ? 0 : Math.pow(0.5, days / GDI_HALF_LIFE_DAYS);
  // A gene known only by its own record (no trajectory here) has its breadth unknown: its usage stands in, as one plan.
  const breadth = Math.min(1, (metrics.from === 'gene' ? Math.min(1, metrics.usageCount) : metrics.places) / GDI_BREADTH_SATURATION);
  const score = GDI_WEIGHTS.success * success + GDI_WEIGHTS.usage * usage + GDI_WEIGHTS.recency * recency + GDI_WEIGHTS.breadth * breadth;
  return { success, usage, recency, breadth, score: Math.round(score * 1000) / 1000 };
}
