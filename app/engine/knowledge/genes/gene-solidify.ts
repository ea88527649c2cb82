import { createHash } from 'node:crypto';
import { renderTemplate } from '../../core/documents/render-template.js';
import { geneEvent, type GeneEvent } from './gene-events.js';
import type { GeneSettings } from './gene-settings.js';
import type { SignalRecord } from '../signals/signal-record.js';
import type { Gene } from '../documents/schema.js';
import type { EntryStats } from '../documents/trajectory-stats.js';

/**
 * Solidify (docs/design.md, Genes): the same error signature repaired successfully at least
 * `solidifyAfter` times becomes a candidate gene. A repair is a `repair` signal: an attempt
 * verified after failed ones, whose `metadata.repaired` is the failure's fingerprint (the
 * failing checks, or the agent's error with its numbers and paths taken out, so that the same
 * failure has the same signature wherever it happened). Distinct plans count, not retries of
 * one: the same plan repaired twice is one repair.
 *
 * The gene says what it answers (`signals`), how to proceed (the strategy: what the agents
 * reported about the fix, when they did), its constraints (where it was seen, what it was not
 * seen to do) and how to check it (`validation`: the repaired checks' commands). It starts a
 * candidate with no applications: the repairs made it, only its own applications can promote it.
 * Its id carries a hash of the signature, so the same signature proposes the same gene again
 * (its PR is found, not doubled) and a gene already on record for it is never proposed twice.
 */

export interface SolidifyInput {
  signals: readonly SignalRecord[];
  /** The genes on record (any status), and those proposed in open PRs: their signatures are taken. */
  genes: readonly { path: string; gene: Pick<Gene, 'id' | 'signals'> }[];
  /** The trajectory's figures: a signature whose gene was removed counts only repairs after its removal. */
  stats: ReadonlyMap<string, EntryStats>;
  settings: GeneSettings;
  /** templates/gene.md. */
  template: string;
  now: Date;
  project: string;
}

export interface GeneCandidate {
  path: string;
  id: string;
  signature: string;
  name: string;
  text: string;
  /** The repair signals it was solidified from, by path. */
  evidence: string[];
  event: GeneEvent;
}

export interface SolidifyResult {
  candidates: GeneCandidate[];
  /** Signatures repaired too few times yet: what a person may want to know is coming. */
  waiting: { signature: string; repairs: number }[];
}

function hash8(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

export function geneIdFor(signature: string, at: Date): string {
  return `gene-${at.toISOString().slice(0, 10).replace(/-/g, '')}-${hash8(signature)}`;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '') : [];
}

/** How a person reads a signature: `checks:01-02/unit` → the checks 01-02/unit failing. */
export function describeSignature(signature: string): string {
  const colon = signature.indexOf(':');
  const kind = colon === -1 ? '' : signature.slice(0, colon);
  const rest = colon === -1 ? signature : signature.slice(colon + 1);
  if (kind === 'checks') return `the check${rest.includes(',') ? 's' : ''} ${rest.split(',').join(', ')} failing`;
  if (rest.startsWith('step:')) return `${kind === 'timeout' ? 'time running out in' : 'the agent failing at'} step "${rest.slice(5)}"`;
  if (kind === 'timeout') return `time running out ("${rest}")`;
  if (kind === 'verification') return `verification failing: ${rest}`;
  return `the agent failing with "${rest}"`;
}

function typeOf(signature: string): Gene['type'] {
  // A timeout is repaired by giving the work the time or the split it needs: a setting, not a code pattern.
  return signature.startsWith('timeout:') ? 'config' : 'pattern';
}

function list(items: readonly string[]): string {
  return items.map((i) => `- ${i}`).join('\n');
}

/** Repairs by signature, one per plan (the latest), after the signature's gene was last removed. */
function repairsBySignature(input: SolidifyInput): Map<string, SignalRecord[]> {
  const removedAt = new Map<string, string>();
  for (const [path, s] of input.stats) {
    const removed = s.events.remove;
    const m = /-([0-9a-f]{8})\.gene\.md$/.exec(path);
    if (removed !== undefined && m) removedAt.set(m[1]!, removed > (removedAt.get(m[1]!) ?? '') ? removed : removedAt.get(m[1]!)!);
  }
  const out = new Map<string, Map<string, SignalRecord>>();
  for (const record of input.signals) {
    const { signal } = record;
    const signature = signal.metadata?.repaired;
    if (signal.type !== 'repair' || typeof signature !== 'string' || signature === '') continue;
    const removed = removedAt.get(hash8(signature));
    if (removed !== undefined && Date.parse(signal.timestamp) <= Date.parse(removed)) continue;
    const plan = `${signal.project}/${signal.spec ?? ''}/${signal.plan ?? record.file}`;
    let byPlan = out.get(signature);
    if (!byPlan) out.set(signature, (byPlan = new Map()));
    const had = byPlan.get(plan);
    if (!had || had.signal.timestamp < signal.timestamp) byPlan.set(plan, record);
  }
  return new Map([...out].map(([sig, byPlan]) => [sig, [...byPlan.values()].sort((a, b) => (a.signal.timestamp < b.signal.timestamp ? -1 : 1))]));
}

/** What the agents said about the fix: their reported insights on the repaired plans. */
function accounts(signals: readonly SignalRecord[], repairs: readonly SignalRecord[]): string[] {
  const plans = new Set(repairs.map((r) => `${r.signal.spec}/${r.signal.plan}`));
  return signals
    .filter((s) => (s.signal.type === 'innovation' || s.signal.type === 'pattern') && plans.has(`${s.signal.spec}/${s.signal.plan}`))
    .map((s) => s.summary ?? '')
    .filter((s) => s !== '');
}

/** The module's rule over the repair signals: the candidate genes, and the signatures not repaired often enough yet. */
export function solidify(input: SolidifyInput): SolidifyResult {
  const taken = new Set(input.genes.flatMap((g) => g.gene.signals));
  const takenHashes = new Set(input.genes.map((g) => /-([0-9a-f]{8})$/.exec(g.gene.id)?.[1]).filter((h) => h !== undefined));
  const result: SolidifyResult = { candidates: [], waiting: [] };
  for (const [signature, repairs] of repairsBySignature(input)) {
    if (taken.has(signature) || takenHashes.has(hash8(signature))) continue;
    if (repairs.length < input.settings.solidifyAfter) {
      result.waiting.push({ signature, repairs: repairs.length });
      continue;
    }
    result.candidates.push(geneCandidate(input, signature, repairs));
  }
  return result;
}

/** A signature's repairs as its gene tells them. */
interface Repaired {
  id: string;
  signature: string;
  /** The signature as a person reads it. */
  what: string;
  name: string;
  repairs: SignalRecord[];
  /** The repaired checks' commands. */
  validation: string[];
}

/** The candidate gene of a signature repaired often enough, and its trajectory line. */
function geneCandidate(input: SolidifyInput, signature: string, repairs: SignalRecord[]): GeneCandidate {
  const first = new Date(repairs[0]!.signal.timestamp);
  const id = geneIdFor(signature, first);
  const path = `genes/${id}.gene.md`;
  const what = describeSignature(signature);
  const name = `Repair: ${what}`.slice(0, 200);
  const validation = [...new Set(repairs.flatMap((r) => strings(r.signal.metadata?.validation)))];
  const text = geneText(input, { id, signature, what, name, repairs, validation });
  const event = geneEvent({
    at: input.now,
    basis: signature,
    type: 'solidify',
    entry: path,
    kind: 'gene',
    project: input.project,
    reason: `${repairs.length} repairs of ${signature}`,
    to: 'candidate',
  });
  return { path, id, signature, name, text, evidence: repairs.map((r) => r.file), event };
}

/** The gene's file: a candidate with no applications yet, from templates/gene.md. */
function geneText(input: SolidifyInput, g: Repaired): string {
  const { id, signature, what, name, repairs, validation } = g;
  const description = `When work hits ${what}, a retry put it right in ${repairs.length} plans; this gene carries what they did.`.slice(0, 1024);
  return renderTemplate(
    input.template,
    {
      id,
      type: typeOf(signature),
      name,
      description,
      version: 1,
      status: 'candidate',
      success_rate: 0,
      usage_count: 0,
      consecutive_successes: 0,
      consecutive_failures: 0,
      created: input.now.toISOString(),
      updated: input.now.toISOString(),
      scenarios: [...new Set(repairs.map((r) => r.signal.spec).filter((s): s is string => s !== undefined))],
      signals: [signature],
      validation,
      tags: commonTags(repairs),
      publishable: false,
      source: 'signal',
      mutations: [],
    },
    geneSections(input, g),
  );
}

/** The tags the repairs carry most (at most eight). */
function commonTags(repairs: readonly SignalRecord[]): string[] {
  const tagCount = new Map<string, number>();
  for (const r of repairs) for (const t of r.signal.tags) tagCount.set(t, (tagCount.get(t) ?? 0) + 1);
  return [...tagCount]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 8)
    .map(([t]) => t);
}

/** The gene's sections: how to proceed (what the agents reported), its constraints, where it was repaired, its history. */
function geneSections(input: SolidifyInput, g: Repaired): Record<string, string> {
  const { signature, what, repairs, validation } = g;
  const places = repairs.map(
    (r) =>
      `${r.signal.spec ?? r.signal.project}${r.signal.plan ? ` plan ${r.signal.plan}` : ''} (${r.signal.timestamp.slice(0, 10)}, after ${String(r.signal.metadata?.failedBefore ?? 1)} failed attempt${r.signal.metadata?.failedBefore === 1 ? '' : 's'})`,
  );
  const told = accounts(input.signals, repairs);
  const strategy =
    told.length > 0
      ? `What the agents reported while repairing it:\n\n${list(told)}`
      : `No agent reported how it repaired this; each retry started from the failure above and ended verified. Write the strategy the repairs had in common (read their plans' commits) before merging this gene.`;
  const constraints = [
    `Applies to work that hits ${what}; the signature it answers is \`${signature}\`.`,
    validation.length > 0
      ? `Run ${validation.map((c) => `\`${c}\``).join(', ')} to see it worked: these are the checks it repaired.`
      : "No command check was repaired: its validation is the plan's own verification.",
    'Seen only in the plans listed under When it applies: check that a new plan is the same situation before applying it.',
  ].join('\n');
  return {
    content: strategy,
    constraints,
    when: `Repaired ${repairs.length} times, in:\n\n${list(places)}\n\nThe repair signals:\n\n${list(repairs.map((r) => `\`${r.file}\``))}`,
    history: `- ${input.now.toISOString().slice(0, 10)}: solidified from ${repairs.length} repairs of \`${signature}\`; a candidate until its own applications promote it.`,
  };
}
