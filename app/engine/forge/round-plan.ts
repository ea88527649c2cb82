import {
  expectedStatus,
  isActive,
  isQueued,
  isRemoved,
  isSatisfied,
  labelNames,
  planIssueView,
  type IssueLike,
  type PlanIssueView,
} from './plan-issue-view.js';
import type { PlanState } from '../core/state/plan-state.js';
import { Scheduler, type BlockedPlan } from '../core/schedule/scheduler.js';
import { comparePlanIds, phaseNumber } from '../core/spec/model.js';
import { parsePlan } from '../core/spec/plan.js';
import { matchPlanIssues } from './match-issues.js';
import { isStatusLabel, LABEL_PHASE_FAILED, statusLabel, type StatusValue } from './names.js';
import { planTextFromBody } from './plan-issue.js';
import { PLAN_READING } from '../importers/dialects.js';

/** The priorities a round starts plans by (planRound's `order`, round-order.ts searches them): higher first. */
export interface RoundOrder {
  priority: ReadonlyMap<string, number>;
}

/** The priority of a plan an order does not rank: below every searched one. */
const UNRANKED = -1e9;

export interface RoundIssue extends PlanIssueView {
  /** Every label of the issue, people's included: a status change writes them all back. */
  labels: string[];
}

export interface RoundInput {
  spec: string;
  /**
   * The spec's plan issues, in any order; issues of other specs and other issues are ignored,
   * and of two issues of one plan, the one matchPlanIssues picks is the plan's.
   */
  issues: readonly IssueLike[];
  /** `slots` of .github/harness.yml: workers of this spec at once. */
  slots: number;
  /**
   * The priorities to start plans by, as the local runner's (round-order.ts: a search on each
   * plan's timeout_minutes); the conflict-aware rule alone when left out.
   */
  order?: RoundOrder;
}

/**
 * A status label to write: a queued plan's ready or blocked as what it needs changed, or any
 * plan's label put back to what the App's record says (none: every status label taken off).
 * Only the label: the record says so already.
 */
export interface Relabel {
  issue: RoundIssue;
  to: StatusValue | undefined;
}

/** The `harness:phase-failed` label to add (`failed`) or take off, as the plan's `phase_failed=` record says. */
export interface PhaseMark {
  issue: RoundIssue;
  failed: boolean;
}

/** What one scheduling round should do (docs/github-flow.md, 3), decided from the issues alone. */
export interface RoundPlan {
  spec: string;
  /** The spec's plans, in plan order; plans taken out of the spec are left out. */
  plans: RoundIssue[];
  /** Queued plans to claim and dispatch now, best first, at most the free slots. */
  dispatch: RoundIssue[];
  /**
   * Plans, other than those dispatched, whose status label is not what the App's records say:
   * a queued plan whose dependencies changed, or a label someone else added, changed or took off.
   */
  relabel: Relabel[];
  /** Plans whose `harness:phase-failed` label is not what their record says. */
  phaseMarks: PhaseMark[];
  /** Queued plans that cannot run until a person acts: a plan they need failed. */
  blocked: BlockedPlan[];
  /** Queued plans needing a plan the spec does not have (a stale `needs:` label): they wait. */
  unknownNeeds: { plan: string; needs: string[] }[];
  /** Phase ids, in order. */
  phases: string[];
  /** Phases every plan of which is satisfied: their verification may run unless it was claimed already. */
  completePhases: string[];
  /** Plans holding a slot: running or at a checkpoint. */
  active: number;
  freeSlots: number;
}

function comparePhases(a: string, b: string): number {
  return phaseNumber(a) - phaseNumber(b) || a.localeCompare(b);
}

/**
 * The files a plan writes, from the plan text its issue carries (no request). A plan whose
 * text cannot be read is taken to write everything: it still runs, but never beside
 * another writer.
 */
function filesModified(view: PlanIssueView, body: string | null | undefined): string[] {
  const text = planTextFromBody(body);
  const parsed = text === undefined ? undefined : parsePlan(`${view.plan}-PLAN.md`, text, view.phase, PLAN_READING).plan;
  return parsed ? parsed.filesModified : ['**'];
}

/**
 * The scheduler's state of a plan from the App's records on its issue (never its labels nor
 * its state). Only queued plans with known dependencies are startable (`pending`); a plan that
 * is planned but not queued, or verified but not merged, is `blocked` here: neither startable,
 * nor holding a slot, nor satisfying its dependants.
 */
function scheduleState(view: PlanIssueView, needsKnown: boolean): PlanState {
  if (isSatisfied(view)) return 'verified';
  if (view.state === 'running' || view.state === 'checkpoint' || view.state === 'failed') return view.state;
  return isQueued(view) && needsKnown ? 'pending' : 'blocked';
}

/** Each plan's issue, by the rule the sync, the commands and the worker use too (matchPlanIssues). */
export function plansIssues(spec: string, issues: readonly IssueLike[]): IssueLike[] {
  const tracked = issues.map((issue) => ({
    issue,
    number: issue.number,
    title: issue.title,
    body: issue.body ?? null,
    state: issue.state === 'closed' ? ('closed' as const) : ('open' as const),
    stateReason: issue.state_reason ?? null,
  }));
  return [...matchPlanIssues(spec, tracked).byPlan.values()].map((t) => t.issue);
}

/**
 * One scheduling round, pure: the spec's plan issues in, what to dispatch and relabel out.
 * The policy is the engine's Scheduler, the one the local runner and `harness simulate`
 * use: the same slots, file conflicts and priorities. Plans and their states are rebuilt
 * from the App's records on the issues' marker lines on every round (what each plan needs
 * from the body the App wrote), which costs O(plans + dependencies) and no request. Labels and
 * the issues' state are read only to put back a label that disagrees with the records.
 */
export function planRound(input: RoundInput): RoundPlan {
  const plans = specPlans(input);
  const byPlan = new Map(plans.map((p) => [p.plan, p]));
  const round: Round = { plans, byPlan };

  const phases = [...new Set(plans.map((p) => p.phase))].sort(comparePhases);
  const scheduler = roundScheduler(plans, phases, input.order);
  // A phase whose verification failed holds the plans that depend on it (and have not started): the App's record, not the label.
  const failedPhases = phases.filter((ph) => plans.some((p) => p.phase === ph && p.phaseFailed !== undefined));
  const state = scheduler.state({
    plans: plans.map((p) => [p.plan, scheduleState(p, unknownNeedsOf(round, p).length === 0 && !p.needsUnknown)] as const),
    phases: failedPhases.map((ph) => [ph, 'failed'] as const),
  });
  const blocked = scheduler.blockedBy(state).filter((b) => isQueued(byPlan.get(b.plan)!));
  const heldByPhase = new Set(blocked.filter((b) => 'phase' in b.because).map((b) => b.plan));

  const active = state.active.size;
  const freeSlots = Math.max(0, input.slots - active);
  const dispatch = scheduler.pick(state, freeSlots).map((id) => byPlan.get(id)!);
  const picked = new Set(dispatch.map((p) => p.plan));
  const { relabel, phaseMarks, unknownNeeds } = labelChanges(round, picked, heldByPhase);

  return {
    spec: input.spec,
    plans,
    dispatch,
    relabel,
    phaseMarks,
    blocked,
    unknownNeeds,
    phases,
    completePhases: phases.filter((ph) => plans.every((p) => p.phase !== ph || isSatisfied(p))),
    active,
    freeSlots,
  };
}

/** The round's plans, in plan order, and each by its id. */
interface Round {
  plans: RoundIssue[];
  byPlan: ReadonlyMap<string, RoundIssue>;
}

/** The plans a plan needs that the spec does not have. */
function unknownNeedsOf(round: Round, view: PlanIssueView): string[] {
  return view.needs.filter((d) => !round.byPlan.has(d));
}

/** The spec's plans, each from its issue's records (plans taken out of the spec left out), in plan order. */
function specPlans(input: RoundInput): RoundIssue[] {
  const plans: RoundIssue[] = [];
  for (const issue of plansIssues(input.spec, input.issues)) {
    const view = planIssueView(issue);
    if (!view || view.spec !== input.spec || isRemoved(view)) continue;
    plans.push({ ...view, labels: labelNames(issue) });
  }
  plans.sort((a, b) => comparePlanIds(a.plan, b.plan));
  return plans;
}

/** The engine's Scheduler over the plans, by the order's priorities when there is one. */
function roundScheduler(plans: readonly RoundIssue[], phases: readonly string[], order: RoundOrder | undefined): Scheduler {
  // Only plans that may run or are running can conflict; the others need no plan text parsed.
  return new Scheduler(
    {
      phases: phases.map((id) => ({ id, plans: plans.filter((p) => p.phase === id).map((p) => p.plan) })),
      plans: plans.map((p) => ({
        id: p.plan,
        phase: p.phase,
        dependsOn: p.needs,
        filesModified: isQueued(p) || isActive(p) ? filesModified(p, p.body) : [],
      })),
    },
    // A plan the order does not know (it was searched before that plan had an issue) ranks last.
    order ? { priority: (id) => order.priority.get(id) ?? UNRANKED } : {},
  );
}

/** Labels that disagree with the records (phase-failed marks, status labels of plans not dispatched), and queued plans' unknown needs. */
function labelChanges(round: Round, picked: ReadonlySet<string>, heldByPhase: ReadonlySet<string>): Pick<RoundPlan, 'relabel' | 'phaseMarks' | 'unknownNeeds'> {
  const { byPlan } = round;
  const relabel: Relabel[] = [];
  const phaseMarks: PhaseMark[] = [];
  const unknownNeeds: RoundPlan['unknownNeeds'] = [];
  for (const p of round.plans) {
    if ((p.phaseFailed !== undefined) !== p.labels.includes(LABEL_PHASE_FAILED)) phaseMarks.push({ issue: p, failed: p.phaseFailed !== undefined });
    if (picked.has(p.plan)) continue;
    const missing = isQueued(p) ? unknownNeedsOf(round, p) : [];
    if (missing.length > 0) unknownNeeds.push({ plan: p.plan, needs: missing });
    // The rule `/harness execute` uses to queue a plan: ready when every plan it needs is satisfied.
    const queuedAs =
      missing.length === 0 && !p.needsUnknown && !heldByPhase.has(p.plan) && p.needs.every((d) => byPlan.has(d) && isSatisfied(byPlan.get(d)!))
        ? 'ready'
        : 'blocked';
    // Any other label shown is put back to what the records say: the label is a view of them.
    const to = expectedStatus(p, queuedAs);
    const shown = p.labels.filter(isStatusLabel);
    if (to === undefined ? shown.length > 0 : shown.length !== 1 || shown[0] !== statusLabel(to)) relabel.push({ issue: p, to });
  }
  return { relabel, phaseMarks, unknownNeeds };
}

/**
 * The phases whose verification to dispatch now: complete, and not claimed by an earlier
 * round (`claimed`: the phases whose branch `harness/<spec>/phase-PP` exists). Each phase is
 * verified once its own plans are, as docs/design.md has it; a phase does not wait for the
 * verification of the one before it, whose outcome only its check run knows. `partial`: the
 * phases some of whose plans have no issue yet (a spec larger than its issue window gets its
 * issues in the order the scheduler starts plans, so a phase may be partly issued), or `all`
 * when the round cannot tell; such a phase is not complete, whatever its issued plans.
 */
export function phasesToVerify(
  plan: Pick<RoundPlan, 'completePhases'>,
  claimed: ReadonlySet<string>,
  partial: ReadonlySet<string> | 'all' = new Set(),
): string[] {
  return plan.completePhases.filter((ph) => !claimed.has(ph) && partial !== 'all' && !partial.has(ph));
}
