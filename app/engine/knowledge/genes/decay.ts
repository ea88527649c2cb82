import { geneEvent, type GeneEvent } from './gene-events.js';
import { changeGene } from './gene-history.js';
import { geneMetrics, metricsFrontmatter, type GeneMetrics } from './gene-metrics.js';
import type { GeneSettings } from './gene-settings.js';
import type { Capsule, Gene } from '../documents/schema.js';
import { tierVerdict, type TierVerdict } from './tiers.js';
import type { EntryStats } from '../documents/trajectory-stats.js';

/**
 * A gene's life after it is solidified (docs/design.md, Genes), decided in one pass over the
 * store's genes with the trajectory's figures, on a schedule (the decay workflow) or by
 * `harness prune`:
 *
 * - a candidate that meets its tier is proposed active (tiers.ts);
 * - an active gene whose success rate fell below `demoteBelow`, over at least `minUses`
 *   applications, goes back to candidate: one bad run of a young gene is not a verdict;
 * - a candidate or active gene not applied for `deprecateDays` is deprecated (no longer surfaced);
 * - a deprecated gene not applied for `removeDays` is removed.
 *
 * "Not applied for" counts from its last application, or from its creation when it never had
 * one. Each change is one PR (or, locally, one file written and a report line), with the
 * gene's metrics written into it as the trajectory has them, and one trajectory line.
 */

export type GeneAction = 'promote' | 'deprecate' | 'demote' | 'remove';

export interface GeneRecord {
  /** Relative to the store's root: `genes/<id>.gene.md`. */
  path: string;
  gene: Gene;
  text: string;
}

export interface CapsuleRecord {
  path: string;
  capsule: Capsule;
}

export interface GeneChange {
  action: GeneAction;
  path: string;
  gene: Gene;
  from: Gene['status'];
  /** Undefined: the file is removed. */
  to?: Gene['status'];
  reason: string;
  metrics: GeneMetrics;
  verdict?: TierVerdict;
  /** The gene's new text; undefined when it is removed. */
  text?: string;
  event: GeneEvent;
}

export interface DecayInput {
  genes: readonly GeneRecord[];
  capsules: readonly CapsuleRecord[];
  stats: ReadonlyMap<string, EntryStats>;
  settings: GeneSettings;
  now: Date;
  project: string;
  /** Write each changed gene's new text (default true); an audit that only reports leaves it out. */
  render?: boolean;
}

export interface DecayResult {
  changes: GeneChange[];
  /** Genes left as they are, with why: what a person auditing the store wants to see too. */
  kept: { path: string; status: Gene['status']; why: string; verdict?: TierVerdict; metrics: GeneMetrics }[];
  /** Gene files whose frontmatter could not be edited. */
  problems: { path: string; line: number; message: string }[];
}

const DAY = 86_400_000;

function daysSince(now: Date, when: string): number {
  return (now.getTime() - Date.parse(when)) / DAY;
}

function days(n: number): string {
  const whole = Math.floor(n);
  return `${whole} day${whole === 1 ? '' : 's'}`;
}

/** What the capsules of a gene show: the most files a plan with it changed, and the commands that passed there. */
export function capsuleEvidence(id: string, capsules: readonly CapsuleRecord[]): { impactScope?: number; passedCommands: Set<string> } {
  let impactScope: number | undefined;
  const passedCommands = new Set<string>();
  for (const { capsule } of capsules) {
    if (!capsule.genes.includes(id)) continue;
    impactScope = Math.max(impactScope ?? 0, capsule.validation.impact_scope);
    for (const step of capsule.steps) if (step.command !== undefined && step.outcome === 'success') passedCommands.add(step.command);
  }
  return { ...(impactScope === undefined ? {} : { impactScope }), passedCommands };
}

export function decay(input: DecayInput): DecayResult {
  const { settings, now } = input;
  const result: DecayResult = { changes: [], kept: [], problems: [] };
  for (const record of input.genes) {
    const { gene, path } = record;
    const metrics = geneMetrics(gene, input.stats.get(path));
    const idle = daysSince(now, metrics.lastUsed ?? gene.created);
    const since = metrics.lastUsed === undefined ? 'since it was created' : 'since its last application';
    let action: GeneAction | undefined;
    let to: Gene['status'] | undefined;
    let reason = '';
    let verdict: TierVerdict | undefined;
    if (gene.status === 'deprecated') {
      if (idle >= settings.removeDays) {
        action = 'remove';
        reason = `deprecated and not applied for ${days(idle)} ${since} (removed after ${settings.removeDays})`;
      }
    } else {
      if (gene.status === 'candidate') verdict = tierVerdict(gene, metrics, capsuleEvidence(gene.id, input.capsules), settings, now);
      if (gene.status === 'active' && metrics.usageCount >= settings.minUses && metrics.successRate < settings.demoteBelow) {
        action = 'demote';
        to = 'candidate';
        reason = `its success rate fell to ${Math.round(metrics.successRate * 100)}% over ${metrics.usageCount} applications (below ${Math.round(settings.demoteBelow * 100)}%)`;
      } else if (idle >= settings.deprecateDays) {
        action = 'deprecate';
        to = 'deprecated';
        reason = `not applied for ${days(idle)} ${since} (deprecated after ${settings.deprecateDays})`;
      } else if (verdict?.promote) {
        action = 'promote';
        to = 'active';
        reason = `it meets tier ${verdict.tier}: ${verdict.criteria.map((c) => `${c.name} ${c.detail}`).join('; ')}`;
      }
    }
    if (action === undefined) {
      const why =
        gene.status === 'deprecated'
          ? `deprecated; removed after ${settings.removeDays} days without an application (${days(idle)} so far)`
          : verdict && !verdict.promote
            ? `tier ${verdict.tier} not met: ${verdict.criteria
                .filter((c) => !c.met)
                .map((c) => `${c.name} ${c.detail}`)
                .join('; ')}`
            : `applied ${days(idle)} ago; ${Math.round(metrics.successRate * 100)}% of ${metrics.usageCount} applications verified`;
      result.kept.push({ path, status: gene.status, why, ...(verdict ? { verdict } : {}), metrics });
      continue;
    }
    const event = geneEvent({
      at: now,
      basis: gene.updated,
      type: action,
      entry: path,
      kind: 'gene',
      project: input.project,
      reason,
      from: gene.status,
      ...(to === undefined ? {} : { to }),
      ...(verdict && action === 'promote' ? { tier: verdict.tier } : {}),
    });
    const change: GeneChange = {
      action,
      path,
      gene,
      from: gene.status,
      reason,
      metrics,
      event,
      ...(to === undefined ? {} : { to }),
      ...(verdict ? { verdict } : {}),
    };
    if (to !== undefined && input.render !== false) {
      const edited = changeGene(
        path,
        record.text,
        { status: to, updated: now.toISOString(), ...metricsFrontmatter(metrics) },
        `${now.toISOString().slice(0, 10)}: ${gene.status} → ${to}: ${reason}.`,
      );
      if (!edited.ok) {
        result.problems.push({ path, line: edited.problem.line, message: edited.problem.message });
        continue;
      }
      change.text = edited.text;
    }
    result.changes.push(change);
  }
  return result;
}
