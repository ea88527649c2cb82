import { issuePatch, type IssuePatch } from '../../engine/forge/issue-patch.js';
import { mirroredEdges, withMirroredEdges } from '../../engine/forge/mirrored-edges.js';
import { LABEL_COLORS, recordedStatus, STATUS_VALUES, statusLabel } from '../../engine/forge/names.js';
import {
  desiredIssue,
  managedLabels,
  parseMarker,
  VERIFIED_BY_SPEC,
  withMarkerRecord,
  type DesiredIssue,
  type ParsedMarker,
} from '../../engine/forge/plan-issue.js';
import { formatRuns } from '../../engine/forge/run-record.js';
import { issueWindow, withNeeded } from '../../engine/forge/issue-window.js';
import { parsePhaseMarker, usesPhaseIssues } from '../../engine/forge/phase-issue.js';
import { removalNote } from '../../engine/forge/removal-note.js';
import type { SyncTally } from '../../engine/forge/spec-check-report.js';
import { buildGraph, topologicalOrder } from '../../engine/core/graph/graph.js';
import type { Plan, Spec } from '../../engine/core/spec/model.js';
import type { Gateway } from '../../gateway/gateway.js';
import type { IssueRecord } from '../../gateway/issues.js';
import type { SpecIssues } from '../../gateway/plan-issues.js';
import { DependencyMirror } from './dependency-mirror.js';
import { parentPhaseIssues, syncPhaseIssues, type PhaseIssueSync } from './phase-issues.js';
import { actualSubIssues, SubIssueMirror, syncSpecIssue, type SpecIssueSync } from './spec-tracking.js';

export interface PlanIssueSync {
  github: Gateway;
  /**
   * `issue_window` (issue-window.ts): a spec of more plans than `size` gets its plan issues a
   * window at a time, `size` not yet done ahead, in the order a run of the spec would start them
   * (`order`: round-order.ts, specOrder's `starts`).
   * `asked`: plans a command named (`/harness execute PP`), which get their issues now with
   * every plan they need (withNeeded). Unset: every plan's issue at once.
   */
  window?: { size: number; order: readonly string[]; asked?: readonly string[] };
  /** The spec directory's Git tree: a windowed spec's tracking issue records it, for the rounds that move the window on. */
  tree?: string;
  spec: Spec;
  /** PLAN.md text by spec-relative path (Plan.file). */
  planTexts: ReadonlyMap<string, string>;
  /** Repository path of the spec directory. */
  specPath: string;
  /** Where the issues' links point: `https://github.com/o/r/blob/<base branch>`. */
  blobBase: string;
  /** The spec PR, named in the note on a removed plan's issue. */
  pull: number;
  /** The spec's issues as the gateway listed and matched them (labels harness:plan and spec:<id>, any state). */
  issues: SpecIssues;
}

export interface PlanIssueSyncResult {
  tally: SyncTally;
  /** Each plan's issue after the sync, removed plans' included. */
  issues: Map<string, IssueRecord>;
  /** Links someone added by hand between the spec's plan issues that the sync took away (DependencyMirror.undone). */
  undone: ReadonlyMap<number, string[]>;
}

/**
 * The window of a spec's plans that have issues now (issue-window.ts), and the plans without an
 * issue in it, which a sync creates. Done, as far as the list tells: closed with the App's
 * record of why, or marked done in the spec.
 */
function windowOf(
  input: PlanIssueSync,
  listed: SpecIssues,
): { done: (plan: string) => boolean; windowed: boolean; inWindow?: ReadonlySet<string>; creating: string[] } {
  const { spec } = input;
  const done = (id: string) => spec.planById.get(id)?.completed !== undefined || isDone(listed.byPlan.get(id));
  const windowed = input.window !== undefined && spec.plans.length > input.window.size;
  const inWindow =
    input.window && windowed ? withNeeded(issueWindow(spec, input.window.size, done, input.window.order), spec, input.window.asked ?? []) : undefined;
  const creating = spec.plans.filter((p) => !listed.byPlan.has(p.id) && (!inWindow || inWindow.has(p.id))).map((p) => p.id);
  return { done, windowed, ...(inWindow ? { inWindow } : {}), creating };
}

/** New issues in one sync from which they are created as sub-issues in one GraphQL request each: for fewer, the one or two requests that learn the labels' ids (and make the new `needs:` ones) cost about what they save. */
export const SUB_ISSUES_AT_CREATION = 10;

/**
 * Make a spec's plan issues what the spec says, in the shape of probot/settings' Diffable:
 * the desired issues (desiredIssue) against the actual ones (the list), then add what is
 * missing, update what differs (one PATCH for title, body and state; harness's own labels
 * added and removed one request each, never the whole list, which could undo a status set
 * meanwhile), and remove what is gone (a note, then closed as not planned; never deleted).
 * Before a spec's first issue, the labels harness styles are made (ensurePlanLabels). Plans
 * are visited in dependency order, so each new issue's `#n` links to the plans it needs are
 * known when it is created: one write per new plan. Writes go one at a time (Probot's
 * throttling then spaces them a second apart, under GitHub's secondary limit for content
 * creation).
 *
 * Idempotent: with nothing changed, every comparison is equal and nothing is written. Two
 * deliveries racing through a first sync can each create an issue for the same plan (GitHub
 * has no conditional create); the next sync keeps the lowest-numbered one and closes the
 * others as duplicates.
 */
export async function syncPlanIssues(given: PlanIssueSync): Promise<PlanIssueSyncResult> {
  // Plans about to get an issue may have one that lost its labels: found by the App's login and put right below, never opened twice.
  const input =
    windowOf(given, given.issues).creating.length > 0 ? { ...given, issues: await given.github.unlabelledPlanIssues(given.spec.id, given.issues) } : given;
  const { github, spec } = input;
  if (input.issues.listed.length === 0 && spec.plans.length > 0) await ensurePlanLabels(github);
  const sync = await startSync(input);
  for (const index of topologicalOrder(buildGraph(spec.plans)).order) await syncPlan(sync, spec.plans[index]!);
  const remover = await closeRemovedPlans(sync);
  // The phase issues under the tracking issue, once the plans it held have moved under them.
  const { tracking, phases } = sync;
  const phaseParent =
    tracking && phases
      ? await trackingOfPhases(github, tracking, phases, input.issues.listed, sync.issues, sync.race, sync.subIssuesAvailable && (remover?.available ?? true))
      : undefined;
  if (phaseParent && phases) await parentPhaseIssues(github, phases, phaseParent);
  return { tally: tallied(sync, remover, phaseParent), issues: sync.issues, undone: sync.mirror.undone };
}

/** One sync as its steps share it: the issues as they become, the mirrors that write their links, and the tally of what it wrote. */
interface Sync {
  input: PlanIssueSync;
  /** Each plan's issue as the sync has left it so far, removed plans' included. */
  issues: Map<string, IssueRecord>;
  /** Each plan's issue number, for the `#n` links of the issues created after it. */
  numbers: Map<string, number>;
  done: (plan: string) => boolean;
  windowed: boolean;
  inWindow: ReadonlySet<string> | undefined;
  tracking: SpecIssueSync | undefined;
  phases: PhaseIssueSync | undefined;
  /** Two deliveries raced through a first sync: their duplicates' sub-issues and edges are not what the records say. */
  race: boolean;
  /** The tracking issue's mirror, when the plan issues are its sub-issues (a spec without phase issues). */
  subs: SubIssueMirror | undefined;
  /** A large spec's plan issues are sub-issues of their phase's issue, each parent's mirror made when first needed. */
  phaseSubs: Map<string, SubIssueMirror>;
  /** No mirror has found sub-issues unavailable yet. */
  subIssuesAvailable: boolean;
  /** Each listed issue's plan, and whether it is that plan's own issue (not a duplicate). */
  planOf: Map<number, { plan: string; own: boolean }>;
  mirror: DependencyMirror;
  /** A window that moves on while the person has queued every plan with an issue queues the new ones too, in the create itself. */
  queueNew: boolean;
  /** New issues are created as sub-issues, one request each (createsUnderParent). */
  underParent: boolean;
  tally: SyncTally;
}

/** A sync begun: the tracking issue (and phase issues) synced, the mirrors made, nothing tallied yet. */
async function startSync(input: PlanIssueSync): Promise<Sync> {
  const { spec } = input;
  const issues = new Map(input.issues.byPlan);
  const { done, windowed, inWindow } = windowOf(input, input.issues);
  const { tracking, phases, race, subs } = await syncTracking(input, windowed);
  const numbers = new Map([...issues].map(([plan, issue]) => [plan, issue.number]));
  const { planOf, mirror } = dependencyMirror(input, issues);
  const sync: Sync = {
    input,
    issues,
    numbers,
    done,
    windowed,
    inWindow,
    tracking,
    phases,
    race,
    subs,
    phaseSubs: new Map(),
    subIssuesAvailable: true,
    planOf,
    mirror,
    queueNew: windowed && everyIssueQueued(spec, issues),
    underParent: false,
    tally: {
      created: [],
      updated: [],
      reopened: [],
      closed: [],
      duplicates: [],
      dependencies: { added: 0, removed: 0, refused: 0, unavailable: false },
    },
  };
  sync.underParent = await createsUnderParent(sync);
  return sync;
}

/** The spec's tracking issue, and a large spec's phase issues; without phase issues, the mirror of the tracking issue's sub-issues. */
async function syncTracking(input: PlanIssueSync, windowed: boolean): Promise<Pick<Sync, 'tracking' | 'phases' | 'race' | 'subs'>> {
  const { github, spec } = input;
  const source = windowed && input.tree ? { pull: input.pull, tree: input.tree, specPath: input.specPath, blobBase: input.blobBase } : undefined;
  // The tracking issue first, so that each new plan issue records its parent as it is created.
  const tracking = spec.plans.length > 0 ? await syncSpecIssue(github, { ...input, ...(source ? { source } : {}) }) : undefined;
  const phased = tracking !== undefined && usesPhaseIssues(spec);
  const phases = phased ? await syncPhaseIssues(github, input, tracking.listed) : undefined;
  // Two deliveries raced through a first sync: their duplicates' sub-issues and edges are not what the records say.
  const race = input.issues.duplicates.length > 0 || (tracking?.duplicates.length ?? 0) > 0 || (phases?.duplicates.length ?? 0) > 0;
  const subs =
    tracking && !phased
      ? new SubIssueMirror(
          github,
          tracking.number,
          recordingParent(input, tracking.number),
          await actualSubIssues(github, tracking, recordingParent(input, tracking.number), race),
        )
      : undefined;
  return { tracking, phases, race, subs };
}

/** How many of the listed plan issues record the issue `n` as their parent. */
function recordingParent(input: PlanIssueSync, n: number): number {
  return input.issues.listed.filter((i) => parseMarker(i.body)?.parent === n).length;
}

/** Each listed issue's plan (and whether it is the plan's own), and the mirror of the plan issues' links, told how many each plan's issue blocks by its records. */
function dependencyMirror(input: PlanIssueSync, issues: ReadonlyMap<string, IssueRecord>): Pick<Sync, 'planOf' | 'mirror'> {
  const planOf = new Map<number, { plan: string; own: boolean }>();
  const blocking = new Map<string, number>();
  for (const listed of input.issues.listed) {
    const marker = parseMarker(listed.body);
    if (marker?.spec !== input.spec.id) continue;
    const own = issues.get(marker.plan)?.id === listed.id;
    planOf.set(listed.id, { plan: marker.plan, own });
    if (own) for (const blocker of marker.blockedBy ?? []) blocking.set(blocker, (blocking.get(blocker) ?? 0) + 1);
  }
  return { planOf, mirror: new DependencyMirror(input.github, blocking) };
}

/** Several new issues under a parent: each is created as a sub-issue in one request (gateway createSubIssue), their labels' ids learnt first, all at once. */
async function createsUnderParent(sync: Sync): Promise<boolean> {
  const { github, spec } = sync.input;
  const { inWindow } = sync;
  const creating = sync.tracking ? spec.plans.filter((p) => !sync.issues.has(p.id) && (!inWindow || inWindow.has(p.id))) : [];
  return (
    creating.length >= SUB_ISSUES_AT_CREATION &&
    (await github.knowLabels([...new Set(creating.flatMap((p) => [...managedLabels(spec.id, p), ...STATUS_VALUES.map(statusLabel)]))]))
  );
}

/**
 * The mirror of the issue a plan's issue is a sub-issue of: the tracking issue's, or with phase
 * issues its phase issue's (made when first needed); none when its phase has no issue.
 */
async function parentOf(sync: Sync, phase: string): Promise<SubIssueMirror | undefined> {
  const { phases } = sync;
  if (!phases) return sync.subs;
  const parent = phases.byPhase.get(phase);
  if (!parent) return undefined;
  let mirror = sync.phaseSubs.get(phase);
  if (!mirror) {
    const held = recordingParent(sync.input, parent.number);
    const actual = sync.subIssuesAvailable
      ? await actualSubIssues(
          sync.input.github,
          {
            number: parent.number,
            created: phases.created.includes(parent.number),
            ...(parent.subIssuesTotal === undefined ? {} : { subIssuesTotal: parent.subIssuesTotal }),
          },
          held,
          sync.race,
        )
      : undefined;
    mirror = new SubIssueMirror(sync.input.github, parent.number, held, actual);
    mirror.available = sync.subIssuesAvailable;
    sync.phaseSubs.set(phase, mirror);
  }
  return mirror;
}

/** One plan's issue made what the spec says: created when it has none (past the window, not yet), else put right. */
async function syncPlan(sync: Sync, plan: Plan): Promise<void> {
  const { input, inWindow } = sync;
  const { spec } = input;
  const actual = sync.issues.get(plan.id);
  // Past the window, a plan gets its issue when the window reaches it.
  if (!actual && inWindow && !inWindow.has(plan.id)) return;
  const desired = desiredIssue({
    spec,
    plan,
    planText: input.planTexts.get(plan.file) ?? '',
    specPath: input.specPath,
    blobBase: input.blobBase,
    issueNumbers: sync.numbers,
  });
  const subsOfPlan = sync.tracking ? await parentOf(sync, plan.phase) : undefined;
  if (!actual) await createPlanIssue(sync, plan, desired, subsOfPlan);
  else await updatePlanIssue(sync, plan, actual, desired, subsOfPlan);
}

/**
 * A plan's new issue, created with its records, the links it needs and its parent; then the links
 * mirrored and the parent added, the record corrected where GitHub turned them down.
 */
async function createPlanIssue(sync: Sync, plan: Plan, desired: DesiredIssue, subsOfPlan: SubIssueMirror | undefined): Promise<void> {
  const { github } = sync.input;
  const { issues, mirror } = sync;
  // The record is written with the issue, as the edges about to be mirrored; it is
  // corrected (one more write) only if GitHub turns them down.
  const intended = mirror.intended(plan.dependsOn, issues);
  const intendedParent = subsOfPlan?.hasRoom ? subsOfPlan.parent : undefined;
  const { tracked, labels } = newIssueRecords(sync, plan, desired);
  const bodyWith = (edges: readonly string[], parent: number | undefined) =>
    withMarkerRecord(withMirroredEdges(tracked, edges), 'parent', parent === undefined ? undefined : String(parent));
  const asSubIssue =
    sync.underParent && intendedParent !== undefined
      ? await github.createSubIssue({ title: desired.title, body: bodyWith(intended, intendedParent), labels }, intendedParent)
      : undefined;
  let created = asSubIssue ?? (await github.createIssue({ title: desired.title, body: bodyWith(intended, intendedParent), labels }));
  const parent = asSubIssue ? subsOfPlan!.adopted() : subsOfPlan ? await subsOfPlan.add(created, undefined) : undefined;
  if (subsOfPlan) sync.subIssuesAvailable &&= subsOfPlan.available;
  const mirrored = await mirror.sync(created.number, plan.dependsOn, [], issues);
  if (!sameEdges(mirrored, intended) || parent !== intendedParent) created = await github.updateIssue(created.number, { body: bodyWith(mirrored, parent) });
  // Work done before harness (`completed:`) is on record as verified and never dispatched.
  if (plan.completed !== undefined) created = await github.updateIssue(created.number, { state: 'closed', state_reason: 'completed' });
  issues.set(plan.id, created);
  sync.numbers.set(plan.id, created.number);
  sync.tally.created.push(created.number);
}

/** A new issue's body with its records (but its edges and parent), and its labels. */
function newIssueRecords(sync: Sync, plan: Plan, desired: DesiredIssue): { tracked: string; labels: string[] } {
  const { input, windowed } = sync;
  // The issue remembers the spec PR it came from: its status comment is the one the
  // scheduling rounds keep up to date.
  const status = plan.completed !== undefined ? 'verified' : sync.queueNew ? (plan.dependsOn.every(sync.done) ? 'ready' : 'blocked') : undefined;
  // The record with the issue: the label is its view.
  const tracked = withMarkerRecord(
    withMarkerRecord(
      withMarkerRecord(withMarkerRecord(desired.body, 'pr', String(input.pull)), 'verified', plan.completed === undefined ? undefined : VERIFIED_BY_SPEC),
      'of',
      windowed ? String(input.spec.plans.length) : undefined,
    ),
    'status',
    status === undefined ? undefined : recordedStatus(status),
  );
  const labels = status === undefined ? desired.labels : [...desired.labels, statusLabel(status)];
  return { tracked, labels };
}

/**
 * A plan's issue put right: its links mirrored, its parent and the records a sync must not lose
 * kept, what differs written as one patch; marked done in the spec since, verified and closed.
 */
async function updatePlanIssue(sync: Sync, plan: Plan, actual: IssueRecord, desired: DesiredIssue, subsOfPlan: SubIssueMirror | undefined): Promise<void> {
  const { github } = sync.input;
  const { issues, mirror, tally } = sync;
  const mirrored = await mirror.sync(
    actual.number,
    plan.dependsOn,
    await mirror.actualEdges(actual, mirroredEdges(actual.body), sync.planOf, sync.race),
    issues,
  );
  const recorded = parseMarker(actual.body);
  const parent = subsOfPlan ? await subsOfPlan.add(actual, recorded?.parent) : recorded?.parent;
  if (subsOfPlan) sync.subIssuesAvailable &&= subsOfPlan.available;
  // A later spec PR changes the plan, not where its status is tracked: the first PR's record stays.
  const pr = recorded?.pr ?? sync.input.pull;
  const doneInSpec = plan.completed !== undefined && recorded?.verified === undefined && !ACTIVE.has(recorded?.status);
  const verified = recorded?.verified ?? (doneInSpec ? VERIFIED_BY_SPEC : undefined);
  const patch = issuePatch(
    { ...desired, body: withRecords(withMirroredEdges(withMarkerRecord(desired.body, 'pr', String(pr)), mirrored), parent, recorded, verified) },
    actual,
  );
  if (doneInSpec) {
    // Marked done in the spec since its issue was made: verified and closed, as if run.
    const updated = patch ? await applyPatch(github, actual, patch) : actual;
    const { labels } = await github.setStatus(updated, 'verified');
    issues.set(plan.id, { ...(await github.updateIssue(actual.number, { state: 'closed', state_reason: 'completed' })), labels });
    tally.updated.push(actual.number);
    return;
  }
  if (!patch) return;
  issues.set(plan.id, await applyPatch(github, actual, patch));
  if (patch.state === 'open') tally.reopened.push(actual.number);
  else tally.updated.push(actual.number);
}

/**
 * The issues of plans gone from the spec noted and closed as not planned (taken out of their
 * parent), and the duplicates closed. Returns the mirror that took them out of the tracking issue.
 */
async function closeRemovedPlans(sync: Sync): Promise<SubIssueMirror | undefined> {
  const { input, issues, tracking, subs, tally } = sync;
  const { github, spec } = input;
  // Closing issues leave the parent they record; any mirror takes them out (the parent is in the request).
  const remover = subs ?? (tracking ? new SubIssueMirror(github, tracking.number) : undefined);
  if (remover) remover.available = subs ? subs.available : sync.subIssuesAvailable;
  for (const [planId, issue] of issues) {
    if (spec.planById.has(planId)) continue;
    const removed = parseMarker(issue.body)?.removed;
    if (issue.state !== 'open') {
      // Taken out before the App recorded removals (or closed by someone else first): recorded now, once, as the spec says.
      if (removed === undefined && issue.stateReason === 'not_planned')
        issues.set(planId, await github.updateIssue(issue.number, { body: withMarkerRecord(issue.body ?? '', 'removed', String(input.pull)) }));
      continue;
    }
    // The note first: if the close fails, the next sync closes it (and notes it again).
    await github.comment(issue.number, removalNote(spec.id, planId, input.pull));
    // The record with the close: a round reads the plan as removed from it, never from the state, which the triage role can set.
    const left = await leaveTracking(remover, issue);
    const body = withMarkerRecord(left.body ?? issue.body ?? '', 'removed', removed === undefined ? String(input.pull) : String(removed));
    issues.set(planId, await github.updateIssue(issue.number, { state: 'closed', state_reason: 'not_planned', body }));
    tally.closed.push(issue.number);
  }
  for (const { issue } of input.issues.duplicates) {
    await github.updateIssue(issue.number, { state: 'closed', state_reason: 'duplicate', ...(await leaveTracking(remover, issue)) });
    tally.duplicates.push(issue.number);
  }
  return remover;
}

/** The sync's tally completed: the links, the tracking issue and its sub-issues, the phase issues and the window. */
function tallied(sync: Sync, remover: SubIssueMirror | undefined, phaseParent: SubIssueMirror | undefined): SyncTally {
  const { tally, mirror, tracking, phases, subs, issues } = sync;
  const { spec } = sync.input;
  tally.dependencies = {
    added: mirror.added,
    removed: mirror.removed,
    refused: mirror.refused,
    unavailable: !mirror.available,
    ...(mirror.capped > 0 ? { capped: mirror.capped } : {}),
  };
  if (tracking) {
    const mirrors = [subs, remover === subs ? undefined : remover, phaseParent, ...sync.phaseSubs.values()].filter((m): m is SubIssueMirror => m !== undefined);
    const sum = (f: (m: SubIssueMirror) => number) => mirrors.reduce((n, m) => n + f(m), 0);
    tally.tracking = { number: tracking.number, created: tracking.created, updated: tracking.updated, duplicates: tracking.duplicates };
    const overLimit = sum((m) => m.overLimit);
    tally.subIssues = {
      added: sum((m) => m.added),
      removed: sum((m) => m.removed),
      refused: sum((m) => m.refused),
      unavailable: mirrors.some((m) => !m.available),
      ...(overLimit > 0 ? { overLimit } : {}),
    };
  }
  if (phases) tally.phases = { created: phases.created, updated: phases.updated, duplicates: phases.duplicates };
  if (sync.windowed) {
    const issued = spec.plans.filter((p) => issues.has(p.id)).length;
    const through = [...spec.phases].reverse().find((ph) => ph.plans.some((p) => issues.has(p)))?.id ?? spec.phases[0]!.id;
    tally.window = { issued, total: spec.plans.length, through };
  }
  return tally;
}

/** Is a plan's issue done, from the list alone: with the App's record of why (verified-record.ts), whatever its state? */
function isDone(issue: IssueRecord | undefined): boolean {
  return issue !== undefined && parseMarker(issue.body)?.verified !== undefined;
}

/**
 * Has the person queued every plan that has an issue (`/harness execute all`, or each phase in
 * turn)? Then the plans a moving window brings are theirs to run too. Plans taken out of the spec
 * do not count; at least one must have been queued.
 */
function everyIssueQueued(spec: Spec, issues: ReadonlyMap<string, IssueRecord>): boolean {
  const live = [...issues].filter(([plan]) => spec.planById.has(plan)).map(([, issue]) => parseMarker(issue.body));
  // The App's records (`status=`, `verified=`), never the labels: a status label someone added queues nothing.
  return live.some((m) => m?.status !== undefined) && live.every((m) => m?.status !== undefined || m?.verified !== undefined);
}

function sameEdges(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

/**
 * The tracking issue's mirror for its phase issues. Its sub-issues as its records say, unless
 * GitHub's count (read with it at the start, less the plan issues moved out since) disagrees
 * or a race left duplicates: then one read of them, after the moves.
 */
async function trackingOfPhases(
  github: Gateway,
  tracking: SpecIssueSync,
  phases: PhaseIssueSync,
  listed: readonly IssueRecord[],
  after: ReadonlyMap<string, IssueRecord>,
  race: boolean,
  available: boolean,
): Promise<SubIssueMirror> {
  const under = (body: string | null) => parseMarker(body)?.parent === tracking.number;
  const plansBefore = listed.filter((i) => under(i.body)).length;
  const plansNow = [...after.values()].filter((i) => under(i.body)).length;
  const phasesNow = [...phases.byPhase.values()].filter((i) => parsePhaseMarker(i.body)?.parent === tracking.number).length;
  const held = plansNow + phasesNow;
  const expected = tracking.subIssuesTotal === undefined ? undefined : tracking.subIssuesTotal - (plansBefore - plansNow);
  const actual = available
    ? await actualSubIssues(
        github,
        { number: tracking.number, created: tracking.created, ...(expected === undefined ? {} : { subIssuesTotal: expected }) },
        held,
        race,
      )
    : undefined;
  const mirror = new SubIssueMirror(github, tracking.number, held, actual);
  mirror.available = available;
  return mirror;
}

/**
 * The records a sync does not decide but must not lose: the tracking issue the plan issue is
 * a sub-issue of, a usage-limit pause's resume time (the worker writes it, a round reads it),
 * the evidence that the plan is done (the App writes it when the plan PR merges), where the
 * plan is (`status=`, written with each status label), its phase's failed verification, and
 * what its worker runs did and used (`runs=`, for the status comment), and the spend cap it was told it waits at (`held=`).
 * A plan back in the spec loses its `removed=` record as its issue is reopened.
 */
function withRecords(body: string, parent: number | undefined, recorded: ParsedMarker | undefined, verified: string | undefined): string {
  const records = withMarkerRecord(
    withMarkerRecord(body, 'parent', parent === undefined ? undefined : String(parent)),
    'resume_at',
    recorded?.resumeAt?.toISOString(),
  );
  const kept = withMarkerRecord(withMarkerRecord(records, 'verified', verified), 'of', recorded?.of === undefined ? undefined : String(recorded.of));
  const account = withMarkerRecord(kept, 'runs', recorded?.runs === undefined ? undefined : formatRuns(recorded.runs));
  const held = withMarkerRecord(account, 'held', recorded?.held);
  return withMarkerRecord(withMarkerRecord(held, 'status', recorded?.status), 'phase_failed', recorded?.phaseFailed);
}

/**
 * A closing issue's way out of the tracking issue: taken out of it (one request), and its
 * body without the record, written with the close. Nothing when it was not in it.
 */
async function leaveTracking(subs: SubIssueMirror | undefined, issue: IssueRecord): Promise<{ body?: string }> {
  const recorded = parseMarker(issue.body)?.parent;
  if (!subs || recorded === undefined) return {};
  const after = await subs.remove(issue, recorded);
  return after === recorded ? {} : { body: withMarkerRecord(issue.body ?? '', 'parent', undefined) };
}

/** A worker holds the plan (as the App's record says): marking it done in the spec does not take it from under the worker. */
const ACTIVE = new Set<string | undefined>(['running', 'checkpoint']);

/**
 * One changed plan's writes: the PATCH (title, body, state) when any of them changed, then
 * the labels to add in one request and those to take off one each. The issue as it is after.
 */
async function applyPatch(github: Gateway, actual: IssueRecord, patch: IssuePatch): Promise<IssueRecord> {
  const { labels, ...fields } = patch;
  const updated = Object.keys(fields).length > 0 ? await github.updateIssue(actual.number, fields) : actual;
  if (!labels) return updated;
  if (labels.add.length > 0) await github.addLabels(actual.number, labels.add);
  for (const name of labels.remove) await github.removeLabel(actual.number, name);
  return { ...updated, labels: [...updated.labels.filter((l) => !labels.remove.includes(l) && !labels.add.includes(l)), ...labels.add] };
}

/**
 * The labels harness styles itself (harness:plan and the status:* set, colours from
 * names.ts) exist in the repository. Done only when a spec has no plan issue yet, so a
 * repository pays for it once per spec at most (a list read) and once ever for the creates;
 * the phase:, needs: and spec: labels are left to GitHub, which creates a label applied to
 * a new issue when it does not exist. A label someone has restyled is left as it is.
 */
async function ensurePlanLabels(github: Gateway): Promise<number> {
  const existing = new Set((await github.labels()).map((l) => l.name.toLowerCase()));
  let created = 0;
  for (const [name, style] of Object.entries(LABEL_COLORS)) {
    if (existing.has(name.toLowerCase())) continue;
    if ((await github.createLabel({ name, color: style.color, description: style.description })) === 'created') created++;
  }
  return created;
}

/** Two passes of one sync as one tally: what either wrote, and the tracking issue as the second left it. */
export function mergeTallies(first: SyncTally, second: SyncTally): SyncTally {
  const d1 = first.dependencies;
  const d2 = second.dependencies;
  const merged: SyncTally = {
    created: [...first.created, ...second.created],
    updated: [...new Set([...first.updated, ...second.updated])],
    reopened: [...first.reopened, ...second.reopened],
    closed: [...first.closed, ...second.closed],
    duplicates: [...first.duplicates, ...second.duplicates],
    dependencies: {
      added: d1.added + d2.added,
      removed: d1.removed + d2.removed,
      refused: d2.refused,
      unavailable: d2.unavailable,
      ...(d2.capped ? { capped: d2.capped } : {}),
    },
  };
  if (second.window) merged.window = second.window;
  const p1 = first.phases;
  const p2 = second.phases;
  if (p2)
    merged.phases = {
      created: [...(p1?.created ?? []), ...p2.created],
      updated: [...new Set([...(p1?.updated ?? []), ...p2.updated])],
      duplicates: [...(p1?.duplicates ?? []), ...p2.duplicates],
    };
  const t2 = second.tracking;
  if (t2)
    merged.tracking = {
      ...t2,
      created: t2.created || (first.tracking?.created ?? false),
      duplicates: [...(first.tracking?.duplicates ?? []), ...t2.duplicates],
    };
  const s1 = first.subIssues;
  const s2 = second.subIssues;
  if (s2) merged.subIssues = { ...s2, added: s2.added + (s1?.added ?? 0), removed: s2.removed + (s1?.removed ?? 0) };
  return merged;
}
