import type { Signal } from '../documents/schema.js';
import { readOutcomes, readTrial, TRIAL_SIGNAL_TYPES, type AttemptTrial, type PlanOutcome } from '../signals/plan-outcome.js';
import { mean, newcombe, welch, type Difference } from './stats.js';

/**
 * The holdout comparison (docs/knowledge.md, The holdout): the plans on record in the knowledge
 * store's signals (signals/plan-outcome.ts), those offered knowledge against those held out,
 * overall, per spec and per piece of knowledge. Pure: the caller reads the signals.
 */

/** One plan as the comparison counts it. */
export interface PlanRecord {
  project: string;
  spec: string;
  plan: string;
  heldOut: boolean;
  /** Its phase was verified (a completion signal lists it). */
  verified: boolean;
  firstPass: boolean;
  /** Its attempts so far: the passing one included when it passed. */
  attempts: number;
  /** What its attempts cost together, when every one of them reported a cost. */
  costUsd?: number;
  /** The knowledge in its first attempt's brief (store paths). */
  knowledge: string[];
}

interface Seen<T> {
  value: T;
  at: number;
}

function at(signal: Signal): number {
  const t = Date.parse(String(signal.timestamp));
  return Number.isNaN(t) ? 0 : t;
}

/**
 * Every plan the signals record, once: a plan a completion lists by its newest completion and
 * its failed attempts; a plan whose phase never verified by its failed attempts alone (it has
 * not passed: the comparison would lean towards success without it). A plan that passed at
 * once in a phase not verified yet is counted when its phase is.
 */
export function planRecords(signals: readonly Signal[]): PlanRecord[] {
  const completions = new Map<string, Seen<PlanOutcome> & { where: [string, string, string] }>();
  const failures = new Map<string, { where: [string, string, string]; attempts: Map<number, AttemptTrial> }>();
  for (const s of signals) {
    if (s.spec === undefined) continue;
    if (s.type === 'completion') {
      for (const o of readOutcomes(s.metadata)) {
        const key = `${s.project}\0${s.spec}\0${o.plan}`;
        const before = completions.get(key);
        if (!before || at(s) > before.at) completions.set(key, { value: o, at: at(s), where: [s.project, s.spec, o.plan] });
      }
      continue;
    }
    const attempt = s.metadata?.attempt;
    if (!TRIAL_SIGNAL_TYPES.has(s.type) || s.plan === undefined || s.metadata?.outcome !== 'failed' || typeof attempt !== 'number') continue;
    const trial = readTrial(s.metadata);
    if (!trial) continue;
    const key = `${s.project}\0${s.spec}\0${s.plan}`;
    let found = failures.get(key);
    if (!found) failures.set(key, (found = { where: [s.project, s.spec, s.plan], attempts: new Map() }));
    // A time-out that was also stuck is one attempt, two signals.
    if (!found.attempts.has(attempt)) found.attempts.set(attempt, trial);
  }
  const out: PlanRecord[] = [];
  for (const key of new Set([...completions.keys(), ...failures.keys()])) {
    const done = completions.get(key);
    const failed = failures.get(key);
    const [project, spec, plan] = (done ?? failed)!.where;
    const tried = [...(failed?.attempts ?? new Map<number, AttemptTrial>()).entries()].sort((a, b) => a[0] - b[0]);
    const first = tried[0]?.[1];
    const lastFailed = tried.at(-1)?.[0] ?? 0;
    const attempts = done ? Math.max(done.value.attempts, lastFailed + 1) : lastFailed;
    const costs = [...tried.map(([, t]) => t.cost_usd), ...(done ? [done.value.cost_usd] : [])];
    // A cost counts only when every attempt reported one: a missing attempt would make the plan look cheap.
    const costed = costs.length === attempts && costs.every((c) => c !== undefined);
    out.push({
      project,
      spec,
      plan,
      heldOut: first?.held_out ?? done!.value.held_out,
      verified: done !== undefined,
      firstPass: done !== undefined && attempts === 1,
      attempts,
      ...(costed
        ? {
            costUsd: round(
              costs.reduce((s: number, c) => s + c!, 0),
              6,
            ),
          }
        : {}),
      knowledge: [...(first?.knowledge ?? done!.value.knowledge)],
    });
  }
  return out.sort((a, b) => cmp(a.project, b.project) || cmp(a.spec, b.spec) || cmp(a.plan, b.plan));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** A group of plans in figures. */
export interface GroupFigures {
  plans: number;
  /** Plans that passed on their first attempt. */
  firstPass: number;
  passRate?: number;
  meanAttempts?: number;
  /** Plans whose every attempt reported a cost: the mean cost is theirs. */
  costed: number;
  meanCostUsd?: number;
}

export function groupFigures(plans: readonly PlanRecord[]): GroupFigures {
  const costs = plans.flatMap((p) => (p.costUsd === undefined ? [] : [p.costUsd]));
  const firstPass = plans.filter((p) => p.firstPass).length;
  return {
    plans: plans.length,
    firstPass,
    ...(plans.length > 0 ? { passRate: firstPass / plans.length, meanAttempts: mean(plans.map((p) => p.attempts)) } : {}),
    costed: costs.length,
    ...(costs.length > 0 ? { meanCostUsd: mean(costs) } : {}),
  };
}

/**
 * What the pass-rate interval allows one to say. `helps` and `hurts`: the interval is clear of
 * zero. `too-few`: it holds zero and is wider than ±0.1, too wide to tell even a large effect
 * from none. `no-difference`: it holds zero within ±0.1: whatever the effect is, it is small.
 * `no-comparison`: a group is empty.
 */
export type Verdict = 'helps' | 'hurts' | 'no-difference' | 'too-few' | 'no-comparison';

/** Half the width of an interval beyond which it says too little to call no difference one. */
export const NARROW = 0.1;

export interface Comparison {
  withKnowledge: GroupFigures;
  heldOut: GroupFigures;
  /** First-attempt pass rate, with knowledge − held out (Newcombe): above zero, knowledge helped. */
  passRate?: Difference;
  /** Mean attempts, with knowledge − held out (Welch): below zero, knowledge helped. */
  attempts?: Difference;
  /** Mean cost in US dollars, with knowledge − held out (Welch), over the plans that reported every attempt's cost. */
  costUsd?: Difference;
  verdict: Verdict;
  /** The verdict in a sentence, with its figures. */
  says: string;
}

/** `+0.12`, `−0.31` (a true minus sign), `0.00`. */
export function signed(n: number, digits = 2): string {
  const text = Math.abs(n).toFixed(digits);
  if (Number(text) === 0) return (0).toFixed(digits);
  return `${n < 0 ? '−' : '+'}${text}`;
}

export function intervalText(d: Difference): string {
  return `${signed(d.low)} to ${signed(d.high)}`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The verdict on a pass-rate difference between `subject` (its plans) and the held-out plans. */
export function verdictOf(
  d: Difference | undefined,
  sizes: { subject: number; heldOut: number },
  subject = 'plans with knowledge',
): { verdict: Verdict; says: string } {
  if (sizes.heldOut === 0) return { verdict: 'no-comparison', says: 'no held-out plans on record yet: nothing to compare with' };
  if (sizes.subject === 0 || d === undefined) return { verdict: 'no-comparison', says: `no ${subject} on record yet: nothing to compare` };
  const figures = `${signed(d.estimate)} in first-attempt pass rate (95% interval ${intervalText(d)})`;
  if (d.low > 0) return { verdict: 'helps', says: `${subject} passed on their first attempt more often: ${figures}` };
  if (d.high < 0) return { verdict: 'hurts', says: `${subject} passed on their first attempt less often: ${figures}` };
  if ((d.high - d.low) / 2 > NARROW) {
    const few = sizes.heldOut <= sizes.subject ? plural(sizes.heldOut, 'held-out plan') : plural(sizes.subject, subject.replace(/^plans/, 'plan'), subject);
    return { verdict: 'too-few', says: `${few}: too few to tell; the interval is ${intervalText(d)}` };
  }
  return { verdict: 'no-difference', says: `no difference to tell: the interval is ${intervalText(d)}, within ${NARROW} of none` };
}

export function compare(withKnowledge: readonly PlanRecord[], heldOut: readonly PlanRecord[], subject?: string): Comparison {
  const a = groupFigures(withKnowledge);
  const b = groupFigures(heldOut);
  const passRate = newcombe(a.firstPass, a.plans, b.firstPass, b.plans);
  const attempts = welch(
    withKnowledge.map((p) => p.attempts),
    heldOut.map((p) => p.attempts),
  );
  const costUsd = welch(
    withKnowledge.flatMap((p) => (p.costUsd === undefined ? [] : [p.costUsd])),
    heldOut.flatMap((p) => (p.costUsd === undefined ? [] : [p.costUsd])),
  );
  return {
    withKnowledge: a,
    heldOut: b,
    ...(passRate ? { passRate } : {}),
    ...(attempts ? { attempts } : {}),
    ...(costUsd ? { costUsd } : {}),
    ...verdictOf(passRate, { subject: a.plans, heldOut: b.plans }, subject),
  };
}

export type ItemKind = 'lesson' | 'skill' | 'gene';

export function itemKind(path: string): ItemKind | undefined {
  if (/^lessons\/.+\.lesson\.md$/.test(path)) return 'lesson';
  if (/^skills\/[^/]+\/SKILL\.md$/.test(path)) return 'skill';
  if (/^genes\/[^/]+\.gene\.md$/.test(path)) return 'gene';
  return undefined;
}

/** A piece of knowledge: the plans it was in the first brief of, against the held-out plans. */
export interface ItemComparison extends Comparison {
  path: string;
  kind: ItemKind;
  /** Proposed for retirement, and why (retirement rule: RETIRE_AFTER, and the interval). */
  retire?: string;
}

/** The plans an item must have been surfaced into before it may be proposed for retirement (docs/knowledge.md, Retirement). */
export const RETIRE_AFTER = 10;

/**
 * Retirement: an item surfaced into at least RETIRE_AFTER plans whose first-attempt pass rate is
 * shown, at 95%, to be no better than the held-out plans' (the interval's upper bound at or
 * below zero). Too few plans, or an interval that reaches above zero, keeps it.
 */
export function retirementReason(item: Comparison, total = RETIRE_AFTER): string | undefined {
  const d = item.passRate;
  if (item.withKnowledge.plans < total || d === undefined || d.high > 0) return undefined;
  const a = item.withKnowledge;
  const b = item.heldOut;
  return `surfaced into ${a.plans} plans, of which ${a.firstPass} passed on their first attempt (${percent(a.passRate!)}), against ${b.firstPass} of ${b.plans} held-out plans (${percent(b.passRate!)}): the difference is ${signed(d.estimate)} (95% interval ${intervalText(d)}), so the plans it was in did no better without it`;
}

function percent(n: number): string {
  return `${Math.round(n * 100)}%`;
}

export interface SpecComparison extends Comparison {
  project: string;
  spec: string;
}

export interface HoldoutReport {
  /** Plans on record (with a trial or an outcome): those from before the holdout are not. */
  plans: number;
  overall: Comparison;
  specs: SpecComparison[];
  items: ItemComparison[];
  /** The items proposed for retirement, in the order of items. */
  retire: { path: string; kind: ItemKind; reason: string }[];
  retireAfter: number;
}

/**
 * The whole report from the store's signals (completion and failure signals; others are passed
 * over), over every spec the store records: one spec holds too few plans to tell. Each item is
 * compared with every held-out plan.
 */
export function holdoutReport(signals: readonly Signal[], options: { retireAfter?: number } = {}): HoldoutReport {
  const retireAfter = options.retireAfter ?? RETIRE_AFTER;
  const records = planRecords(signals);
  const held = records.filter((p) => p.heldOut);
  const offered = records.filter((p) => !p.heldOut);
  const specs: SpecComparison[] = [];
  for (const key of [...new Set(records.map((p) => `${p.project}\0${p.spec}`))]) {
    const [project, spec] = key.split('\0') as [string, string];
    const mine = records.filter((p) => p.project === project && p.spec === spec);
    specs.push({
      project,
      spec,
      ...compare(
        mine.filter((p) => !p.heldOut),
        mine.filter((p) => p.heldOut),
      ),
    });
  }
  const items: ItemComparison[] = [];
  const paths = [...new Set(offered.flatMap((p) => p.knowledge))].sort(cmp);
  for (const path of paths) {
    const kind = itemKind(path);
    if (kind === undefined) continue;
    const comparison = compare(
      offered.filter((p) => p.knowledge.includes(path)),
      held,
      'plans with it',
    );
    const reason = retirementReason(comparison, retireAfter);
    items.push({ path, kind, ...comparison, ...(reason ? { retire: reason } : {}) });
  }
  items.sort((a, b) => b.withKnowledge.plans - a.withKnowledge.plans || cmp(a.path, b.path));
  return {
    plans: records.length,
    overall: compare(offered, held),
    specs,
    items,
    retire: items.flatMap((i) => (i.retire ? [{ path: i.path, kind: i.kind, reason: i.retire }] : [])),
    retireAfter,
  };
}
