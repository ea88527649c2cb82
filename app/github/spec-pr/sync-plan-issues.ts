import { issuePatch, type IssuePatch } from '../../engine/forge/issue-patch.js';
import { mirroredEdges, withMirroredEdges } from '../../engine/forge/mirrored-edges.js';
import { LABEL_COLORS, statusLabel } from '../../engine/forge/names.js';
import { desiredIssue, parseMarker, VERIFIED_BY_SPEC, withMarkerRecord } from '../../engine/forge/plan-issue.js';
import { removalNote } from '../../engine/forge/removal-note.js';
import type { SyncTally } from '../../engine/forge/spec-check-report.js';
import { buildGraph, topologicalOrder } from '../../engine/core/graph/graph.js';
import type { Spec } from '../../engine/core/spec/model.js';
import type { Gateway } from '../../gateway/gateway.js';
import type { IssueRecord } from '../../gateway/issues.js';
import type { SpecIssues } from '../../gateway/plan-issues.js';
import { DependencyMirror } from './dependency-mirror.js';
import { actualSubIssues, SubIssueMirror, syncSpecIssue } from './spec-tracking.js';

export interface PlanIssueSync {
  github: Gateway;
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
export async function syncPlanIssues(input: PlanIssueSync): Promise<PlanIssueSyncResult> {
  const { github, spec } = input;
  if (input.issues.listed.length === 0 && spec.plans.length > 0) await ensurePlanLabels(github);
  // The tracking issue first, so that each new plan issue records its parent as it is created.
  const tracking = spec.plans.length > 0 ? await syncSpecIssue(github, input) : undefined;
  // Two deliveries raced through a first sync: their duplicates' sub-issues and edges are not what the records say.
  const race = input.issues.duplicates.length > 0 || (tracking?.duplicates.length ?? 0) > 0;
  const held = tracking ? input.issues.listed.filter((i) => parseMarker(i.body)?.parent === tracking.number).length : 0;
  const subs = tracking ? new SubIssueMirror(github, tracking.number, held, await actualSubIssues(github, tracking, held, race)) : undefined;
  const issues = new Map(input.issues.byPlan);
  const numbers = new Map([...issues].map(([plan, issue]) => [plan, issue.number]));
  const mirror = new DependencyMirror(github);
  const planOf = new Map<number, { plan: string; own: boolean }>();
  for (const listed of input.issues.listed) {
    const marker = parseMarker(listed.body);
    if (marker?.spec === spec.id) planOf.set(listed.id, { plan: marker.plan, own: issues.get(marker.plan)?.id === listed.id });
  }
  const tally: SyncTally = { created: [], updated: [], reopened: [], closed: [], duplicates: [], dependencies: { added: 0, removed: 0, refused: 0, unavailable: false } };

  for (const index of topologicalOrder(buildGraph(spec.plans)).order) {
    const plan = spec.plans[index]!;
    const desired = desiredIssue({
      spec,
      plan,
      planText: input.planTexts.get(plan.file) ?? '',
      specPath: input.specPath,
      blobBase: input.blobBase,
      issueNumbers: numbers,
    });
    const actual = issues.get(plan.id);
    if (!actual) {
      // The record is written with the issue, as the edges about to be mirrored; it is
      // corrected (one more write) only if GitHub turns them down.
      const intended = mirror.available ? plan.dependsOn : [];
      const intendedParent = subs?.hasRoom ? subs.parent : undefined;
      // The issue remembers the spec PR it came from: its status comment is the one the
      // scheduling rounds keep up to date.
      const tracked = withMarkerRecord(withMarkerRecord(desired.body, 'pr', String(input.pull)), 'verified', plan.completed === undefined ? undefined : VERIFIED_BY_SPEC);
      const labels = plan.completed === undefined ? desired.labels : [...desired.labels, statusLabel('verified')];
      const bodyWith = (edges: readonly string[], parent: number | undefined) => withMarkerRecord(withMirroredEdges(tracked, edges), 'parent', parent === undefined ? undefined : String(parent));
      let created = await github.createIssue({ title: desired.title, body: bodyWith(intended, intendedParent), labels });
      const parent = subs ? await subs.add(created, undefined) : undefined;
      const mirrored = await mirror.sync(created.number, plan.dependsOn, [], issues);
      if (mirrored.length !== intended.length || parent !== intendedParent) created = await github.updateIssue(created.number, { body: bodyWith(mirrored, parent) });
      // Work done before harness (`completed:`) is on record as verified and never dispatched.
      if (plan.completed !== undefined) created = await github.updateIssue(created.number, { state: 'closed', state_reason: 'completed' });
      issues.set(plan.id, created);
      numbers.set(plan.id, created.number);
      tally.created.push(created.number);
      continue;
    }
    const mirrored = await mirror.sync(actual.number, plan.dependsOn, await mirror.actualEdges(actual, mirroredEdges(actual.body), planOf, race), issues);
    const recorded = parseMarker(actual.body);
    const parent = subs ? await subs.add(actual, recorded?.parent) : recorded?.parent;
    // A later spec PR changes the plan, not where its status is tracked: the first PR's record stays.
    const pr = recorded?.pr ?? input.pull;
    const doneInSpec = plan.completed !== undefined && actual.state === 'open' && !actual.labels.some((l) => ACTIVE.has(l));
    const verified = recorded?.verified ?? (doneInSpec ? VERIFIED_BY_SPEC : undefined);
    const patch = issuePatch({ ...desired, body: withRecords(withMirroredEdges(withMarkerRecord(desired.body, 'pr', String(pr)), mirrored), parent, recorded?.resumeAt, verified) }, actual);
    if (doneInSpec) {
      // Marked done in the spec since its issue was made: verified and closed, as if run.
      const updated = patch ? await applyPatch(github, actual, patch) : actual;
      const labels = await github.setStatus(updated, 'verified');
      issues.set(plan.id, { ...(await github.updateIssue(actual.number, { state: 'closed', state_reason: 'completed' })), labels });
      tally.updated.push(actual.number);
      continue;
    }
    if (!patch) continue;
    issues.set(plan.id, await applyPatch(github, actual, patch));
    if (patch.state === 'open') tally.reopened.push(actual.number);
    else tally.updated.push(actual.number);
  }

  for (const [planId, issue] of issues) {
    if (spec.planById.has(planId) || issue.state !== 'open') continue;
    // The note first: if the close fails, the next sync closes it (and notes it again).
    await github.comment(issue.number, removalNote(spec.id, planId, input.pull));
    issues.set(planId, await github.updateIssue(issue.number, { state: 'closed', state_reason: 'not_planned', ...(await leaveTracking(subs, issue)) }));
    tally.closed.push(issue.number);
  }
  for (const { issue } of input.issues.duplicates) {
    await github.updateIssue(issue.number, { state: 'closed', state_reason: 'duplicate', ...(await leaveTracking(subs, issue)) });
    tally.duplicates.push(issue.number);
  }

  tally.dependencies = { added: mirror.added, removed: mirror.removed, refused: mirror.refused, unavailable: !mirror.available };
  if (tracking && subs) {
    tally.tracking = { number: tracking.number, created: tracking.created, updated: tracking.updated, duplicates: tracking.duplicates };
    tally.subIssues = { added: subs.added, removed: subs.removed, refused: subs.refused, unavailable: !subs.available, ...(subs.overLimit > 0 ? { overLimit: subs.overLimit } : {}) };
  }
  return { tally, issues, undone: mirror.undone };
}

/**
 * The records a sync does not decide but must not lose: the tracking issue the plan issue is
 * a sub-issue of, a usage-limit pause's resume time (the worker writes it, a round reads it)
 * and the evidence that the plan is done (the App writes it when the plan PR merges).
 */
function withRecords(body: string, parent: number | undefined, resumeAt: Date | undefined, verified: string | undefined): string {
  const records = withMarkerRecord(withMarkerRecord(body, 'parent', parent === undefined ? undefined : String(parent)), 'resume_at', resumeAt?.toISOString());
  return withMarkerRecord(records, 'verified', verified);
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

/** A worker holds the plan: marking it done in the spec does not take it from under the worker. */
const ACTIVE = new Set(['status:running', 'status:checkpoint']);

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
    dependencies: { added: d1.added + d2.added, removed: d1.removed + d2.removed, refused: d2.refused, unavailable: d2.unavailable },
  };
  const t2 = second.tracking;
  if (t2) merged.tracking = { ...t2, created: t2.created || (first.tracking?.created ?? false), duplicates: [...(first.tracking?.duplicates ?? []), ...t2.duplicates] };
  const s1 = first.subIssues;
  const s2 = second.subIssues;
  if (s2) merged.subIssues = { ...s2, added: s2.added + (s1?.added ?? 0), removed: s2.removed + (s1?.removed ?? 0) };
  return merged;
}
