import type { Spec } from '../core/spec/model.js';
import { LABEL_SPEC, specLabel } from './names.js';

/**
 * A spec's tracking issue: one issue per spec whose sub-issues are the spec's plan issues, so
 * that GitHub's own sub-issue progress bar shows how far the spec is. It is found again by
 * the marker on its first line (`<!-- harness:spec <id> -->`), under the labels
 * `harness:spec` and `spec:<id>`.
 */
export interface DesiredSpecIssue {
  title: string;
  body: string;
  labels: string[];
}

const SPEC_MARKER = /^<!-- harness:spec (\S+) -->$/m;

export function specMarker(spec: string): string {
  return `<!-- harness:spec ${spec} -->`;
}

/** The spec a tracking issue is for, from its marker; undefined for any other issue. */
export function specOfIssue(body: string | null | undefined): string | undefined {
  return SPEC_MARKER.exec(body ?? '')?.[1];
}

export function desiredSpecIssue(input: { spec: Spec; specPath: string; blobBase: string }): DesiredSpecIssue {
  const { spec } = input;
  const body = [
    specMarker(spec.id),
    // No counts here: they would change with every plan added, one write each; GitHub's list shows them.
    `**Spec** [${spec.id} ${spec.title}](${input.blobBase}/${input.specPath}/SPEC.md)`,
    '',
    "Each plan of this spec is one of this issue's sub-issues; a plan's issue closes when its work is verified and merged, so the sub-issue progress bar is the spec's progress. harness keeps this list in step with the spec: edit the spec, not the list.",
  ].join('\n');
  return { title: `[${spec.id}] ${spec.title}`, body, labels: [LABEL_SPEC, specLabel(spec.id)].sort() };
}

/** What the rule looks at: an issue's number, body and state. */
export interface MatchableSpecIssue {
  number: number;
  body: string | null;
  state: 'open' | 'closed';
  stateReason: string | null;
}

/**
 * The spec's tracking issue among those listed, by the same rule as plan issues
 * (matchPlanIssues): the lowest-numbered one whose marker names the spec and that is not
 * closed as a duplicate, so every delivery picks the same; the other open ones are what two
 * racing first syncs left, to be closed as duplicates.
 */
export function matchSpecIssue<T extends MatchableSpecIssue>(spec: string, listed: readonly T[]): { issue?: T; duplicates: T[] } {
  const live = listed.filter((i) => specOfIssue(i.body) === spec && i.stateReason !== 'duplicate').sort((a, b) => a.number - b.number);
  const [issue, ...rest] = live;
  return { ...(issue ? { issue } : {}), duplicates: rest.filter((i) => i.state === 'open') };
}
