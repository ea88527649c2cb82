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

/** The rules of the module's comment over every gene of the store. */
export function decay(input: DecayInput): DecayResult {
  const result: DecayResult = { changes: [], kept: [], problems: [] };
  for (const record of input.genes) decayGene(input, record, result);
  return result;
}

/** One gene: kept with why, or changed (its new text rendered unless told not to; a text that cannot be edited is a problem instead). */
function decayGene(input: DecayInput, record: GeneRecord, result: DecayResult): void {
  const { gene, path } = record;
  const { now } = input;
  const standing = standingOf(input, record);
  const decided = decide(input.settings, standing);
  if (decided === undefined) {
    const { verdict, metrics } = standing;
    result.kept.push({ path, status: gene.status, why: keptWhy(input.settings, standing), ...(verdict ? { verdict } : {}), metrics });
    return;
  }
  const change = geneChange(input, standing, decided);
  const { to, reason } = decided;
  if (to !== undefined && input.render !== false) {
    const edited = changeGene(
      path,
      record.text,
      { status: to, updated: now.toISOString(), ...metricsFrontmatter(standing.metrics) },
      `${now.toISOString().slice(0, 10)}: ${gene.status} → ${to}: ${reason}.`,
    );
    if (!edited.ok) {
      result.problems.push({ path, line: edited.problem.line, message: edited.problem.message });
      return;
    }
    change.text = edited.text;
  }
  result.changes.push(change);
}

/** A gene as the trajectory's figures show it. */
interface Standing {
  record: GeneRecord;
  metrics: GeneMetrics;
  /** Days since its last application, or since it was created when it never had one. */
  idle: number;
  /** Which of the two `idle` counts from, in words. */
  since: string;
  /** A candidate's tier, met or not. */
  verdict: TierVerdict | undefined;
}

function standingOf(input: DecayInput, record: GeneRecord): Standing {
  const { gene, path } = record;
  const metrics = geneMetrics(gene, input.stats.get(path));
  return {
    record,
    metrics,
    idle: daysSince(input.now, metrics.lastUsed ?? gene.created),
    since: metrics.lastUsed === undefined ? 'since it was created' : 'since its last application',
    verdict: gene.status === 'candidate' ? tierVerdict(gene, metrics, capsuleEvidence(gene.id, input.capsules), input.settings, input.now) : undefined,
  };
}

/** What the figures decide for a gene: the action, the status it goes to (none: it is removed), and why. */
interface Decided {
  action: GeneAction;
  to: Gene['status'] | undefined;
  reason: string;
}

/** The rules of the module's comment, in order: removal of a deprecated gene; else demotion, deprecation, promotion. */
function decide(settings: GeneSettings, standing: Standing): Decided | undefined {
  const { record, metrics, idle, since, verdict } = standing;
  const { gene } = record;
  if (gene.status === 'deprecated') {
    if (idle < settings.removeDays) return undefined;
    return { action: 'remove', to: undefined, reason: `deprecated and not applied for ${days(idle)} ${since} (removed after ${settings.removeDays})` };
  }
  if (gene.status === 'active' && metrics.usageCount >= settings.minUses && metrics.successRate < settings.demoteBelow) {
    return {
      action: 'demote',
      to: 'candidate',
      reason: `its success rate fell to ${Math.round(metrics.successRate * 100)}% over ${metrics.usageCount} applications (below ${Math.round(settings.demoteBelow * 100)}%)`,
    };
  }
  if (idle >= settings.deprecateDays) {
    return { action: 'deprecate', to: 'deprecated', reason: `not applied for ${days(idle)} ${since} (deprecated after ${settings.deprecateDays})` };
  }
  if (verdict?.promote) {
    return { action: 'promote', to: 'active', reason: `it meets tier ${verdict.tier}: ${verdict.criteria.map((c) => `${c.name} ${c.detail}`).join('; ')}` };
  }
  return undefined;
}

/** Why a gene stays as it is. */
function keptWhy(settings: GeneSettings, standing: Standing): string {
  const { record, metrics, idle, verdict } = standing;
  if (record.gene.status === 'deprecated') return `deprecated; removed after ${settings.removeDays} days without an application (${days(idle)} so far)`;
  if (verdict && !verdict.promote)
    return `tier ${verdict.tier} not met: ${verdict.criteria
      .filter((c) => !c.met)
      .map((c) => `${c.name} ${c.detail}`)
      .join('; ')}`;
  return `applied ${days(idle)} ago; ${Math.round(metrics.successRate * 100)}% of ${metrics.usageCount} applications verified`;
}

/** The change, with its trajectory line. */
function geneChange(input: DecayInput, standing: Standing, decided: Decided): GeneChange {
  const { record, metrics, verdict } = standing;
  const { gene, path } = record;
  const { action, to, reason } = decided;
  const event = geneEvent({
    at: input.now,
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
  return {
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
}
