import { gdi } from './gdi.js';
import type { GeneMetrics } from './gene-metrics.js';
import type { GeneSettings } from './gene-settings.js';
import type { Gene } from '../documents/schema.js';

/**
 * Tiered validation (docs/design.md, Genes): the riskier the gene, the more it must show before
 * it is proposed active. A gene's tier follows its type: a pattern is simple (tier 1); a
 * prompt or a config changes how agents or tools behave across the work (tier 2); a workflow
 * is core (tier 3). `metadata.tier` may raise a gene's tier, never lower it.
 *
 * - tier 1: success rate ≥ minSuccess and applications ≥ minUses;
 * - tier 2: also GDI ≥ minGdi and impact scope ≤ maxImpactFiles files;
 * - tier 3: also each of its validation commands seen passing in a worker (a capsule of a
 *   verified plan ran it), and a person's review, which is the promotion PR's merge: harness
 *   never merges it.
 *
 * Meeting its tier only makes a gene a promotion proposal: promotion is always a PR.
 */

export type Tier = 1 | 2 | 3;

const TYPE_TIER: Readonly<Record<Gene['type'], Tier>> = { pattern: 1, prompt: 2, config: 2, workflow: 3 };

export function tierOf(gene: Gene): Tier {
  const asked = gene.metadata?.tier;
  const raised = asked === 2 || asked === 3 || asked === '2' || asked === '3' ? (Number(asked) as Tier) : 1;
  return Math.max(TYPE_TIER[gene.type], raised) as Tier;
}

export interface Criterion {
  name: string;
  met: boolean;
  /** What was found against what is asked, for the PR body and the report. */
  detail: string;
}

export interface TierVerdict {
  tier: Tier;
  criteria: Criterion[];
  /** Every criterion met. */
  promote: boolean;
  gdi: number;
}

export interface TierEvidence {
  /** The most files a verified plan that applied the gene changed (its capsules' impact scope); undefined: none recorded. */
  impactScope?: number;
  /** Commands seen passing in a worker (the steps of its capsules). */
  passedCommands: ReadonlySet<string>;
}

function pct(n: number): string {
  return `${Math.round(n * 1000) / 10}%`;
}

export function tierVerdict(gene: Gene, metrics: GeneMetrics, evidence: TierEvidence, settings: GeneSettings, now: Date): TierVerdict {
  const tier = tierOf(gene);
  const score = gdi(metrics, now).score;
  const criteria: Criterion[] = [
    { name: 'success rate', met: metrics.successRate >= settings.minSuccess, detail: `${pct(metrics.successRate)} (needs ≥ ${pct(settings.minSuccess)})` },
    { name: 'applications', met: metrics.usageCount >= settings.minUses, detail: `${metrics.usageCount} (needs ≥ ${settings.minUses})` },
  ];
  if (tier >= 2) {
    criteria.push({ name: 'GDI score', met: score >= settings.minGdi, detail: `${score.toFixed(3)} (needs ≥ ${settings.minGdi})` });
    const scope = evidence.impactScope;
    criteria.push({
      name: 'impact scope',
      met: scope !== undefined && scope <= settings.maxImpactFiles,
      detail:
        scope === undefined
          ? `unknown: no capsule records the files a plan with it changed (needs ≤ ${settings.maxImpactFiles})`
          : `${scope} file${scope === 1 ? '' : 's'} (needs ≤ ${settings.maxImpactFiles})`,
    });
  }
  if (tier === 3) {
    const missing = gene.validation.filter((c) => !evidence.passedCommands.has(c));
    criteria.push({
      name: 'validation in a worker',
      met: gene.validation.length > 0 && missing.length === 0,
      detail:
        gene.validation.length === 0
          ? 'the gene names no validation commands; add them under `validation`'
          : missing.length === 0
            ? `${gene.validation.map((c) => `\`${c}\``).join(', ')} passed in a verified plan`
            : `not yet seen passing: ${missing.map((c) => `\`${c}\``).join(', ')}`,
    });
    criteria.push({ name: "a person's review", met: true, detail: 'the merge of the promotion PR; harness never merges it' });
  }
  return { tier, criteria, promote: criteria.every((c) => c.met), gdi: score };
}
