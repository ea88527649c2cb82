import type { Spec } from '../core/spec/model.js';
import { LABEL_SPEC, specLabel } from './names.js';
import { usesPhaseIssues } from './phase-issue.js';

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

const SPEC_MARKER = /^<!-- harness:spec (\S+)((?: [a-z]+=\S*)*) -->$/m;

export function specMarker(spec: string): string {
  return `<!-- harness:spec ${spec} -->`;
}

/** The spec a tracking issue is for, from its marker; undefined for any other issue. */
export function specOfIssue(body: string | null | undefined): string | undefined {
  return SPEC_MARKER.exec(body ?? '')?.[1];
}

/**
 * Where a spec whose plan issues come a window at a time (issue-window.ts) was synced from,
 * recorded on its tracking issue's marker line, so that a scheduling round can move the window
 * on without a spec PR event: the spec PR (`pr=`), the spec directory's Git tree (`tree=`, what
 * the files are read from), its path (`path=`) and where the issues' links point (`blob=`).
 */
export interface SpecSource {
  pull: number;
  tree: string;
  specPath: string;
  blobBase: string;
}

export function parseSpecSource(body: string | null | undefined): SpecSource | undefined {
  const m = SPEC_MARKER.exec(body ?? '');
  if (!m) return undefined;
  const records = new Map(
    m[2]!
      .trim()
      .split(' ')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)] as const),
  );
  const pull = Number(records.get('pr'));
  const tree = records.get('tree');
  const path = records.get('path');
  const blob = records.get('blob');
  if (!Number.isInteger(pull) || pull <= 0 || !tree || !/^[0-9a-f]{40}$/.test(tree) || !path || !blob) return undefined;
  return { pull, tree, specPath: decodeURIComponent(path), blobBase: decodeURIComponent(blob) };
}

export function desiredSpecIssue(input: { spec: Spec; specPath: string; blobBase: string; source?: SpecSource }): DesiredSpecIssue {
  const { spec, source } = input;
  const marker = source
    ? `<!-- harness:spec ${spec.id} pr=${source.pull} tree=${source.tree} path=${encodeURIComponent(source.specPath)} blob=${encodeURIComponent(source.blobBase)} -->`
    : specMarker(spec.id);
  const phased = usesPhaseIssues(spec);
  const body = [
    marker,
    // No counts here: they would change with every plan added, one write each; GitHub's list shows them.
    `**Spec** [${spec.id} ${spec.title}](${input.blobBase}/${input.specPath}/SPEC.md)`,
    '',
    phased
      ? `This spec has ${spec.plans.length} plans, more than GitHub holds under one issue: each phase is one of this issue's sub-issues, and each plan's issue a sub-issue of its phase's. A plan's issue closes when its work is verified and merged, so the progress bars are the spec's progress. harness keeps these lists in step with the spec: edit the spec, not the lists.`
      : "Each plan of this spec is one of this issue's sub-issues; a plan's issue closes when its work is verified and merged, so the sub-issue progress bar is the spec's progress. harness keeps this list in step with the spec: edit the spec, not the list.",
    ...(source
      ? [
          '',
          `Plan issues are made a window ahead of the work (\`issue_window\` in .github/harness.yml): the first phases now, the next ones as plans finish, so that a spec this size stays within GitHub's limits on creating content. Every phase, with its plans listed in its issue:`,
          '',
          '| Phase | Plans |',
          '|---|---:|',
          ...spec.phases.map((ph) => `| ${ph.id} · ${ph.title.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ')} | ${ph.plans.length} |`),
        ]
      : []),
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
