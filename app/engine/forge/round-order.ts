import { expectedDurations, type EstimatedPlan } from '../core/schedule/expected-durations.js';
import { searchPriority } from '../core/schedule/priority-search.js';
import { Scheduler } from '../core/schedule/scheduler.js';
import { runSchedule } from '../core/schedule/run-schedule.js';
import type { SchedulePlan, ScheduleSpec } from '../core/schedule/layout.js';
import { comparePlanIds, phaseNumber, type Spec } from '../core/spec/model.js';
import { parsePlan } from '../core/spec/plan.js';
import { PLAN_READING } from '../importers/dialects.js';
import { isRemoved, planIssueView, type IssueLike } from './plan-issue-view.js';
import { parseMarker, planTextFromBody } from './plan-issue.js';
import { plansIssues, type RoundOrder } from './round-plan.js';

/** Placements the search may simulate: the local runner's (run-scheduler.ts), a fifth of a second for 250 plans. */
export const ROUND_SEARCH_BUDGET = 50_000;

export type { RoundOrder } from './round-plan.js';

/** Each plan's issue of the spec (planRound's rule), plans taken out of the spec left out, in plan order. */
function specPlans(spec: string, issues: readonly IssueLike[]): { issue: IssueLike; plan: string; phase: string; needs: string[] }[] {
  const out: { issue: IssueLike; plan: string; phase: string; needs: string[] }[] = [];
  for (const issue of plansIssues(spec, issues)) {
    const view = planIssueView(issue);
    if (view && view.spec === spec && !isRemoved(view)) out.push({ issue, plan: view.plan, phase: view.phase, needs: view.needs });
  }
  return out.sort((a, b) => comparePlanIds(a.plan, b.plan));
}

/**
 * What the order depends on, cheaply (no plan text parsed): the spec, the slots, and each plan
 * with the hash of its text (the issue marker's) and what it needs. The App keeps the order
 * it searched under this key: the same issues give the same order until the window moves or
 * a plan changes.
 */
export function roundOrderKey(spec: string, issues: readonly IssueLike[], slots: number): string {
  const plans = specPlans(spec, issues).map((p) => `${p.plan}:${parseMarker(p.issue.body)?.hash ?? ''}:${p.needs.join(',')}`);
  return `${spec}|${slots}|${plans.join(';')}`;
}

/**
 * The priorities the local runner starts plans by (runScheduler), for the plans a round sees:
 * each plan's timeout_minutes as what it is expected to take, scaled as expectedDurations
 * does (no measured times: the issues carry none), and the priority rule a short search finds
 * shortest for those estimates. A plan whose text its issue does not carry is taken to take
 * 30 minutes and write everything, as planRound takes it. Undefined when the plans' needs form
 * a cycle (no schedule to search): the conflict-aware rule orders them as before.
 */
export function roundOrder(spec: string, issues: readonly IssueLike[], slots: number): RoundOrder | undefined {
  const plans = specPlans(spec, issues);
  if (plans.length === 0) return undefined;
  const known = new Set(plans.map((p) => p.plan));
  const estimated: (EstimatedPlan & SchedulePlan)[] = plans.map((p) => {
    const text = planTextFromBody(p.issue.body);
    const parsed = text === undefined ? undefined : parsePlan(`${p.plan}-PLAN.md`, text, p.phase, PLAN_READING).plan;
    return {
      id: p.plan,
      phase: p.phase,
      dependsOn: p.needs.filter((d) => known.has(d)),
      filesModified: parsed?.filesModified ?? ['**'],
      timeoutMinutes: parsed?.timeoutMinutes ?? 30,
    };
  });
  const phases = [...new Set(plans.map((p) => p.phase))].sort((a, b) => phaseNumber(a) - phaseNumber(b) || a.localeCompare(b));
  const schedule: ScheduleSpec = { phases: phases.map((id) => ({ id, plans: estimated.filter((p) => p.phase === id).map((p) => p.id) })), plans: estimated };
  const estimates = expectedDurations(estimated, new Map());
  const duration = (id: string) => estimates.get(id) ?? 1;
  const plain = new Scheduler(schedule, { duration });
  if (plain.layout.order.length < estimated.length) return undefined;
  return { priority: searchPriority(schedule, { slots, duration, budget: ROUND_SEARCH_BUDGET, layout: plain.layout }).priority };
}

/** A whole spec's ranking (specOrder): the round's priorities, and the order its plans get issues in. */
export interface SpecOrder extends RoundOrder {
  /**
   * Every plan, in the order a run of the spec on these priorities and each plan's
   * timeout_minutes starts them: what the scheduler will want next comes first, so a spec
   * larger than its issue window gets its issues in this order (issue-window.ts). A plan
   * comes after every plan it needs.
   */
  starts: readonly string[];
}

/**
 * The priorities for a whole spec, as the local runner searches them (runScheduler, on each
 * plan's timeout_minutes), for a spec whose plans have issues a window at a time: a round
 * that saw only the window's plans would rank them blind to the chains they head in later
 * phases, which are the ones that decide when the spec ends. With them, the order a run on
 * those estimates starts the plans in. Undefined for a cycle.
 */
export function specOrder(spec: Spec, slots: number): SpecOrder | undefined {
  if (spec.plans.length === 0) return undefined;
  const estimates = expectedDurations(spec.plans, new Map());
  const duration = (id: string) => estimates.get(id) ?? 1;
  const plain = new Scheduler(spec, { duration });
  if (plain.layout.order.length < spec.plans.length) return undefined;
  const { priority } = searchPriority(spec, { slots, duration, budget: ROUND_SEARCH_BUDGET, layout: plain.layout });
  const ranked = new Scheduler(spec, { from: { layout: plain.layout, priority: Float64Array.from(spec.plans, (p) => priority.get(p.id)!) } });
  const starts = runSchedule(ranked, Math.max(1, slots), (i) => duration(plain.layout.graph.ids[i]!)).schedule.map((e) => e.plan);
  return { priority, starts };
}
