import type { Usage } from '../protocol/messages.js';
import type { Spec } from '../spec/model.js';

/**
 * Where the money went: what each plan's agents reported they used, over all its attempts, added
 * up per phase, per engine and for the spec. One place for every view of it: STATUS.md's Spend
 * section, `harness status --json`'s `spend`, and the retrospective's costliest plans. Only what
 * an agent reported counts: a figure nobody reported stays unknown, never zero.
 */

/** What one plan used, as its runtime recorded it. */
export interface PlanUse {
  /** Turns, tokens and dollars over every attempt that ended, as the agents reported them. */
  usage: Usage;
  /** Attempts that ended (verified or failed). */
  attempts: number;
  /** The engines that worked on it, the one that ended its last attempt last. */
  engines: readonly string[];
}

/** Turns, tokens and dollars added up, with how many plans and attempts they came from. */
export interface SpendLine extends Usage {
  plans: number;
  attempts: number;
}

export interface Spend {
  total: SpendLine;
  /** By phase, in the spec's order; a phase none of whose plans reported anything is left out. */
  phases: (SpendLine & { phase: string })[];
  /** By engine, the costliest first; a plan several engines worked on counts under the one that ended it. */
  engines: (SpendLine & { engine: string })[];
  /** Every plan that reported something, the costliest first (by dollars, then tokens). */
  plans: (SpendLine & { plan: string; phase: string; engine: string })[];
}

const FIGURES = ['costUsd', 'turns', 'inputTokens', 'outputTokens'] as const;

/** Two usages added: a figure either reported is summed; one neither reported stays unknown. */
export function addUsage(a: Usage | undefined, b: Usage | undefined): Usage {
  const out: Usage = {};
  for (const key of FIGURES) {
    const x = a?.[key];
    const y = b?.[key];
    if (x === undefined && y === undefined) continue;
    const sum = (x ?? 0) + (y ?? 0);
    out[key] = key === 'costUsd' ? Math.round(sum * 1e6) / 1e6 : sum;
  }
  return out;
}

function line(uses: readonly PlanUse[]): SpendLine {
  let usage: Usage = {};
  for (const u of uses) usage = addUsage(usage, u.usage);
  return { ...usage, plans: uses.length, attempts: uses.reduce((n, u) => n + u.attempts, 0) };
}

const costlier = (a: SpendLine, b: SpendLine) =>
  (b.costUsd ?? -1) - (a.costUsd ?? -1) || (b.inputTokens ?? 0) + (b.outputTokens ?? 0) - ((a.inputTokens ?? 0) + (a.outputTokens ?? 0));

/** The spec's spend from each plan's use; undefined when no plan reported anything. */
export function spendOf(spec: Spec, uses: ReadonlyMap<string, PlanUse>): Spend | undefined {
  const reported = spec.plans.filter((p) => uses.has(p.id));
  if (reported.length === 0) return undefined;
  const byEngine = new Map<string, PlanUse[]>();
  for (const p of reported) {
    const use = uses.get(p.id)!;
    const engine = use.engines.at(-1) ?? 'unknown';
    byEngine.set(engine, [...(byEngine.get(engine) ?? []), use]);
  }
  return {
    total: line(reported.map((p) => uses.get(p.id)!)),
    phases: spec.phases.flatMap((phase) => {
      const mine = phase.plans.flatMap((id) => (uses.has(id) ? [uses.get(id)!] : []));
      return mine.length === 0 ? [] : [{ phase: phase.id, ...line(mine) }];
    }),
    engines: [...byEngine].map(([engine, mine]) => ({ engine, ...line(mine) })).sort(costlier),
    plans: reported
      .map((p) => ({ plan: p.id, phase: p.phase, engine: uses.get(p.id)!.engines.join(' → ') || 'unknown', ...line([uses.get(p.id)!]) }))
      .sort(costlier),
  };
}

const usd = (n: number | undefined) => (n === undefined ? '—' : `$${n.toFixed(2)}`);
const count = (n: number | undefined) => (n === undefined ? '—' : n.toLocaleString('en-US'));

/** One row of a spend table: dollars, turns, tokens in and out, attempts. */
function cells(l: SpendLine): string {
  return `${usd(l.costUsd)} | ${count(l.turns)} | ${count(l.inputTokens)} | ${count(l.outputTokens)} | ${l.attempts}`;
}

/** The costliest plans STATUS.md lists; the rest are counted under them. */
export const SPEND_PLANS_LISTED = 10;

/** STATUS.md's Spend section: the spec's total, by phase, by engine, and the costliest plans. */
export function spendMarkdown(spend: Spend | undefined, plansListed = SPEND_PLANS_LISTED): string {
  if (!spend) return 'No agent has reported what it used yet.';
  const head = '| | Cost | Turns | Tokens in | Tokens out | Attempts |\n|---|---|---|---|---|---|';
  const shown = spend.plans.slice(0, plansListed);
  const rest = spend.plans.length - shown.length;
  return [
    `**${usd(spend.total.costUsd)}** in all over ${spend.total.plans === 1 ? '1 plan' : `${spend.total.plans} plans`} and ${spend.total.attempts === 1 ? '1 attempt' : `${spend.total.attempts} attempts`}, as the agents reported it.`,
    '',
    head.replace('| |', '| Phase |'),
    ...spend.phases.map((p) => `| ${p.phase} | ${cells(p)} |`),
    '',
    head.replace('| |', '| Engine |'),
    ...spend.engines.map((e) => `| ${e.engine} | ${cells(e)} |`),
    '',
    `The costliest plans${rest > 0 ? ` (${shown.length} of ${spend.plans.length})` : ''}:`,
    '',
    head.replace('| |', '| Plan | Engine |').replace('|---|', '|---|---|'),
    ...shown.map((p) => `| ${p.plan} | ${p.engine} | ${cells(p)} |`),
  ].join('\n');
}

/** `harness status --json`'s `spend`: the same figures, null where none was reported. */
export function spendJson(spend: Spend | undefined): unknown {
  if (!spend) return null;
  const figures = (l: SpendLine) => ({
    costUsd: l.costUsd ?? null,
    turns: l.turns ?? null,
    inputTokens: l.inputTokens ?? null,
    outputTokens: l.outputTokens ?? null,
    plans: l.plans,
    attempts: l.attempts,
  });
  return {
    total: figures(spend.total),
    phases: spend.phases.map((p) => ({ phase: p.phase, ...figures(p) })),
    engines: spend.engines.map((e) => ({ engine: e.engine, ...figures(e) })),
    plans: spend.plans.map((p) => ({ plan: p.plan, phase: p.phase, engine: p.engine, ...figures(p) })),
  };
}
