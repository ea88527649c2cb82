import type { Difference } from './stats.js';
import type { Comparison, GroupFigures, HoldoutReport, ItemKind, Verdict } from './comparison.js';

/**
 * `harness retrospective --json`'s `holdout` (docs/cli.md, harness retrospective): the report with
 * every figure rounded to four decimals and every figure that cannot be given as null, so that
 * its keys are the same whatever the store holds.
 */

export interface GroupJson {
  plans: number;
  firstPass: number;
  passRate: number | null;
  meanAttempts: number | null;
  costed: number;
  meanCostUsd: number | null;
}

export interface DifferenceJson {
  estimate: number;
  low: number;
  high: number;
}

export interface ComparisonJson {
  withKnowledge: GroupJson;
  heldOut: GroupJson;
  /** With knowledge − held out, first-attempt pass rate (Newcombe). */
  passRate: DifferenceJson | null;
  /** With knowledge − held out, mean attempts (Welch). */
  attempts: DifferenceJson | null;
  /** With knowledge − held out, mean cost in US dollars (Welch). */
  costUsd: DifferenceJson | null;
  verdict: Verdict;
  says: string;
}

export interface HoldoutJson {
  fraction: number;
  seed: string;
  retireAfter: number;
  plans: number;
  overall: ComparisonJson;
  specs: (ComparisonJson & { project: string; spec: string })[];
  items: (ComparisonJson & { path: string; kind: ItemKind; retire: string | null })[];
  retire: { path: string; kind: ItemKind; reason: string; written: boolean; skipped?: string }[];
}

function r4(n: number | undefined): number | null {
  return n === undefined ? null : Math.round(n * 10_000) / 10_000;
}

function group(g: GroupFigures): GroupJson {
  return {
    plans: g.plans,
    firstPass: g.firstPass,
    passRate: r4(g.passRate),
    meanAttempts: r4(g.meanAttempts),
    costed: g.costed,
    meanCostUsd: r4(g.meanCostUsd),
  };
}

function difference(d: Difference | undefined): DifferenceJson | null {
  return d === undefined ? null : { estimate: r4(d.estimate)!, low: r4(d.low)!, high: r4(d.high)! };
}

function comparison(c: Comparison): ComparisonJson {
  return {
    withKnowledge: group(c.withKnowledge),
    heldOut: group(c.heldOut),
    passRate: difference(c.passRate),
    attempts: difference(c.attempts),
    costUsd: difference(c.costUsd),
    verdict: c.verdict,
    says: c.says,
  };
}

export function holdoutJson(
  report: HoldoutReport,
  o: { fraction: number; seed: string; retired: readonly { path: string; written: boolean; skipped?: string }[] },
): HoldoutJson {
  const retired = new Map(o.retired.map((r) => [r.path, r]));
  return {
    fraction: o.fraction,
    seed: o.seed,
    retireAfter: report.retireAfter,
    plans: report.plans,
    overall: comparison(report.overall),
    specs: report.specs.map((s) => ({ project: s.project, spec: s.spec, ...comparison(s) })),
    items: report.items.map((i) => ({ path: i.path, kind: i.kind, ...comparison(i), retire: i.retire ?? null })),
    retire: report.retire.map((r) => {
      const done = retired.get(r.path);
      return { ...r, written: done?.written ?? false, ...(done?.skipped === undefined ? {} : { skipped: done.skipped }) };
    }),
  };
}
