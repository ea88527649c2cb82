import { desiredPhaseIssue, matchPhaseIssues, parsePhaseMarker, phaseIssueBody, phaseIssueRest } from '../../engine/forge/phase-issue.js';
import type { Spec } from '../../engine/core/spec/model.js';
import type { Gateway } from '../../gateway/gateway.js';
import type { IssueRecord } from '../../gateway/issues.js';
import type { SubIssueMirror } from './spec-tracking.js';

/** What the phase issues' sync did, for the check run. */
export interface PhaseIssueSync {
  /** Each phase's issue after the sync. */
  byPhase: Map<string, IssueRecord>;
  created: number[];
  updated: number[];
  duplicates: number[];
}

/**
 * The phase issues of a spec too large for one parent (phase-issue.ts) as the spec says, from
 * the list the tracking issue was found in (`listed`: labels `harness:spec,spec:<id>`, no
 * read of its own): each phase's issue created when it has none, its title and body put
 * right when they differ, and duplicates two racing syncs left closed. Every phase gets its
 * issue at once, plans or not yet, so the spec shows whole on GitHub while its plan issues come
 * a window at a time. A phase gone from the spec has its issue closed as not planned; state
 * is otherwise left to people, as the tracking issue's.
 */
export async function syncPhaseIssues(
  github: Gateway,
  input: { spec: Spec; specPath: string; blobBase: string },
  listed: readonly IssueRecord[],
): Promise<PhaseIssueSync> {
  const { byPhase: found, duplicates } = matchPhaseIssues(input.spec.id, listed);
  const out: PhaseIssueSync = { byPhase: new Map(), created: [], updated: [], duplicates: [] };
  for (const extra of duplicates) {
    await github.updateIssue(extra.number, { state: 'closed', state_reason: 'duplicate' });
    out.duplicates.push(extra.number);
  }
  for (const phase of input.spec.phases) {
    const desired = desiredPhaseIssue({ ...input, phase });
    const actual = found.get(phase.id);
    if (!actual) {
      const created = await github.createIssue({
        title: desired.title,
        body: phaseIssueBody(input.spec.id, phase.id, undefined, desired.rest),
        labels: desired.labels,
      });
      out.byPhase.set(phase.id, created);
      out.created.push(created.number);
      continue;
    }
    if (actual.title === desired.title && phaseIssueRest(actual.body) === desired.rest) {
      out.byPhase.set(phase.id, actual);
      continue;
    }
    const body = phaseIssueBody(input.spec.id, phase.id, parsePhaseMarker(actual.body)?.parent, desired.rest);
    out.byPhase.set(phase.id, {
      ...(await github.updateIssue(actual.number, { title: desired.title, body })),
      ...(actual.subIssuesTotal === undefined ? {} : { subIssuesTotal: actual.subIssuesTotal }),
    });
    out.updated.push(actual.number);
  }
  for (const [phase, issue] of found) {
    if (input.spec.phases.some((p) => p.id === phase) || issue.state !== 'open') continue;
    await github.updateIssue(issue.number, { state: 'closed', state_reason: 'not_planned' });
    out.updated.push(issue.number);
  }
  return out;
}

/**
 * The phase issues as sub-issues of the tracking issue, after the plans moved under them: each
 * one added unless its record says it is there, and its record (`parent=`) written when that
 * changed (one PATCH).
 */
export async function parentPhaseIssues(github: Gateway, phases: PhaseIssueSync, tracking: SubIssueMirror): Promise<void> {
  for (const [phase, issue] of phases.byPhase) {
    const recorded = parsePhaseMarker(issue.body)?.parent;
    const parent = await tracking.add(issue, recorded);
    if (parent === recorded) continue;
    const marker = parsePhaseMarker(issue.body)!;
    phases.byPhase.set(phase, await github.updateIssue(issue.number, { body: phaseIssueBody(marker.spec, marker.phase, parent, phaseIssueRest(issue.body)) }));
  }
}
