import type { SignalDraft } from '../documents/loop.js';

/**
 * The record the holdout comparison is made from (docs/knowledge.md, The holdout), kept in the
 * knowledge store's signals, the same in both runtimes:
 *
 * - each failed attempt's failure signals (`struggle`, `stuck`, `timeout`) carry `metadata.trial`:
 *   whether the plan was held out, the knowledge in the attempt's brief, what the attempt cost;
 * - each verified phase's `completion` signal carries `metadata.outcomes`, one entry per plan:
 *   held out or not, attempts, whether the first passed, what the passing attempt cost, and the
 *   knowledge in its brief.
 *
 * A plan that never passed counts by its failures; one that passed, by its phase's completion.
 * Only plans whose agent reads a brief are recorded: the script agent runs the plan's own steps.
 */

/** One plan of a verified phase, as its `completion` signal records it (`metadata.outcomes`). */
export interface PlanOutcome {
  plan: string;
  /** It ran without surfaced knowledge (knowledge.holdout). */
  held_out: boolean;
  /** The attempts it took, the passing one included. */
  attempts: number;
  /** It passed on its first attempt. */
  first_pass: boolean;
  /** What the passing attempt cost, as its agent reported it, in US dollars. */
  cost_usd?: number;
  /** The knowledge in the passing attempt's brief: store paths (`lessons/testing/x.lesson.md`). */
  knowledge: string[];
}

/** A failed attempt, as its failure signals record it (`metadata.trial`); the attempt's number is the signal's `metadata.attempt`. */
export interface AttemptTrial {
  held_out: boolean;
  /** What the attempt cost, as its agent reported it, in US dollars. */
  cost_usd?: number;
  /** The knowledge in the attempt's brief. */
  knowledge: string[];
}

/** The signal types that record a failed attempt (lifecycle/history.ts counts attempts by them too). */
export const TRIAL_SIGNAL_TYPES: ReadonlySet<string> = new Set(['struggle', 'stuck', 'timeout']);

export function attemptTrial(input: { heldOut: boolean; knowledge: readonly { path: string }[]; costUsd?: number }): AttemptTrial {
  return { held_out: input.heldOut, ...(input.costUsd === undefined ? {} : { cost_usd: input.costUsd }), knowledge: input.knowledge.map((k) => k.path) };
}

/** A failed attempt's failure signals with its trial; every other signal as it was. */
export function withTrial(drafts: readonly SignalDraft[], trial: AttemptTrial): SignalDraft[] {
  return drafts.map((d) => (TRIAL_SIGNAL_TYPES.has(d.type) && d.metadata?.outcome === 'failed' ? { ...d, metadata: { ...d.metadata, trial } } : d));
}

/**
 * An attempt's signals as the runtime files them: a failed attempt's failure signals with its
 * trial, when its agent read a brief (`knowledge` given, empty for a held-out plan); as they
 * were otherwise (the script agent reads none, and is no part of the comparison).
 */
export function recordTrial(
  drafts: readonly SignalDraft[],
  input: { heldOut: boolean; knowledge?: readonly { path: string }[]; costUsd?: number },
): SignalDraft[] {
  if (input.knowledge === undefined) return [...drafts];
  return withTrial(
    drafts,
    attemptTrial({ heldOut: input.heldOut, knowledge: input.knowledge, ...(input.costUsd === undefined ? {} : { costUsd: input.costUsd }) }),
  );
}

/** A phase's completion signal with its plans' outcomes (`metadata.outcomes`), when it has any to record. */
export function withOutcomes(completion: SignalDraft, outcomes: readonly PlanOutcome[]): SignalDraft {
  if (outcomes.length === 0) return completion;
  return { ...completion, metadata: { ...completion.metadata, outcomes: outcomes.map((o) => ({ ...o, knowledge: [...o.knowledge] })) } };
}

/**
 * The number the engine gave an attempt in its signals (`metadata.attempt`), or 1 when it filed
 * none: a verified attempt after failed ones always files its repair, so an attempt without
 * signals is a first one.
 */
export function attemptOfSignals(drafts: readonly SignalDraft[]): number {
  return drafts.reduce((n, d) => (typeof d.metadata?.attempt === 'number' && d.metadata.attempt > n ? d.metadata.attempt : n), 1);
}

function paths(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined;
}

function cost(value: unknown): { cost_usd?: number } | undefined {
  if (value === undefined) return {};
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? { cost_usd: value } : undefined;
}

/** The trial a signal's metadata records, or undefined (an older signal, or one from a plan that reads no brief). */
export function readTrial(metadata: Readonly<Record<string, unknown>> | undefined): AttemptTrial | undefined {
  const t = metadata?.trial as Record<string, unknown> | undefined;
  if (t === null || typeof t !== 'object' || typeof t.held_out !== 'boolean') return undefined;
  const knowledge = paths(t.knowledge);
  const usd = cost(t.cost_usd);
  if (knowledge === undefined || usd === undefined) return undefined;
  return { held_out: t.held_out, ...usd, knowledge };
}

/** The plan outcomes a completion signal's metadata records; an entry that is not one is left out. */
export function readOutcomes(metadata: Readonly<Record<string, unknown>> | undefined): PlanOutcome[] {
  const list = metadata?.outcomes;
  if (!Array.isArray(list)) return [];
  const out: PlanOutcome[] = [];
  for (const item of list as unknown[]) {
    if (item === null || typeof item !== 'object') continue;
    const o = item as Record<string, unknown>;
    const knowledge = paths(o.knowledge);
    const usd = cost(o.cost_usd);
    if (
      typeof o.plan !== 'string' ||
      typeof o.held_out !== 'boolean' ||
      typeof o.first_pass !== 'boolean' ||
      !Number.isInteger(o.attempts) ||
      (o.attempts as number) < 1 ||
      !knowledge ||
      !usd
    )
      continue;
    out.push({ plan: o.plan, held_out: o.held_out, attempts: o.attempts as number, first_pass: o.first_pass, ...usd, knowledge });
  }
  return out;
}

/**
 * A verified plan's outcome from its SUMMARY.md frontmatter (core/run/summary-document.ts), which
 * both runtimes write with the passing attempt; undefined for a plan not verified, or run by an
 * agent that reads no brief (the script agent), which the comparison leaves out.
 */
export function summaryOutcome(plan: string, data: Readonly<Record<string, unknown>>): PlanOutcome | undefined {
  if (data.status !== 'verified' || data.agent === 'script') return undefined;
  const attempts = Number.isInteger(data.attempts) && (data.attempts as number) >= 1 ? (data.attempts as number) : 1;
  const usd = (data.cost as { usd?: unknown } | undefined)?.usd;
  const knowledge = Array.isArray(data.knowledge)
    ? (data.knowledge as unknown[]).flatMap((k) =>
        k !== null && typeof k === 'object' && typeof (k as { path?: unknown }).path === 'string' ? [(k as { path: string }).path] : [],
      )
    : [];
  return {
    plan,
    held_out: data.held_out === true,
    attempts,
    first_pass: attempts === 1,
    ...(typeof usd === 'number' && Number.isFinite(usd) && usd >= 0 ? { cost_usd: usd } : {}),
    knowledge,
  };
}
