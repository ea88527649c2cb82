import type { Phase, Spec } from '../core/spec/model.js';
import { SUB_ISSUES_PER_PARENT } from './limits.js';
import { LABEL_SPEC, phaseLabel, specLabel } from './names.js';

/**
 * A phase's issue: the middle level of a large spec's issues (spec tracking issue → phase
 * issues → plan issues), so that no issue holds more than GitHub's 100 sub-issues. Its body
 * lists every plan of the phase, issue or not yet, so the spec shows whole on GitHub while
 * its plan issues are made a window at a time (issue-window.ts). Found again by the marker on
 * its first line (`<!-- harness:phase <spec>/<PP> -->`) under the labels `harness:spec` and
 * `spec:<id>`: the one list the tracking issue is found by. Like a plan issue's, the marker
 * records (`parent=`) the tracking issue it was added to, so a sync knows it from the list.
 */
export interface DesiredPhaseIssue {
  phase: string;
  title: string;
  /** Everything below the marker line. */
  rest: string;
  labels: string[];
}

const PHASE_MARKER = /^<!-- harness:phase (\S+)\/(\S+?)( parent=\d+)? -->$/m;

/** Does a spec get phase issues? When its plans would not fit under one issue. */
export function usesPhaseIssues(spec: Pick<Spec, 'plans'>): boolean {
  return spec.plans.length > SUB_ISSUES_PER_PARENT;
}

export function phaseIssueBody(spec: string, phase: string, parent: number | undefined, rest: string): string {
  return `<!-- harness:phase ${spec}/${phase}${parent === undefined ? '' : ` parent=${parent}`} -->\n${rest}`;
}

export function parsePhaseMarker(body: string | null | undefined): { spec: string; phase: string; parent?: number } | undefined {
  const m = PHASE_MARKER.exec(body ?? '');
  if (!m) return undefined;
  return { spec: m[1]!, phase: m[2]!, ...(m[3] ? { parent: Number(m[3].slice(' parent='.length)) } : {}) };
}

/** The body below the marker line. */
export function phaseIssueRest(body: string | null | undefined): string {
  const text = body ?? '';
  const nl = text.indexOf('\n');
  return nl === -1 ? '' : text.slice(nl + 1);
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');
}

export function desiredPhaseIssue(input: { spec: Spec; phase: Phase; specPath: string; blobBase: string }): DesiredPhaseIssue {
  const { spec, phase } = input;
  const over = phase.plans.length - SUB_ISSUES_PER_PARENT;
  const lines = [
    `**Spec** [${spec.id} ${spec.title}](${input.blobBase}/${input.specPath}/SPEC.md) · **Phase** ${phase.id} ${phase.title}`,
    '',
    `This phase's ${phase.plans.length} plan${phase.plans.length === 1 ? '' : 's'}. Each plan's issue is a sub-issue of this one once it exists: harness makes a large spec's plan issues a few phases ahead of the work, so a phase without sub-issues yet is still to come.`,
    ...(over > 0
      ? [
          '',
          `GitHub holds at most ${SUB_ISSUES_PER_PARENT} sub-issues per issue: the other ${over} plan issues of this phase are not listed under it; the labels \`${specLabel(spec.id)}\` and \`${phaseLabel(phase.id)}\` find every one.`,
        ]
      : []),
    '',
    '| Plan | Needs |',
    '|---|---|',
    ...phase.plans.map((id) => {
      const plan = spec.planById.get(id)!;
      return `| ${id} ${cell(plan.title)} | ${plan.dependsOn.length > 0 ? plan.dependsOn.join(', ') : '—'} |`;
    }),
  ];
  return {
    phase: phase.id,
    title: `[${spec.id} · ${phase.id}] ${phase.title}`,
    rest: lines.join('\n'),
    labels: [LABEL_SPEC, phaseLabel(phase.id), specLabel(spec.id)].sort(),
  };
}

export interface MatchablePhaseIssue {
  number: number;
  body: string | null;
  state: 'open' | 'closed';
  stateReason: string | null;
}

/**
 * Each phase's issue among those listed, by the rule plan and tracking issues follow: the
 * lowest-numbered one whose marker names the spec and phase and that is not closed as a
 * duplicate; the other open ones are what two racing syncs left, to be closed as duplicates.
 */
export function matchPhaseIssues<T extends MatchablePhaseIssue>(spec: string, listed: readonly T[]): { byPhase: Map<string, T>; duplicates: T[] } {
  const byPhase = new Map<string, T>();
  const duplicates: T[] = [];
  for (const issue of [...listed].sort((a, b) => a.number - b.number)) {
    const marker = parsePhaseMarker(issue.body);
    if (marker?.spec !== spec || issue.stateReason === 'duplicate') continue;
    if (!byPhase.has(marker.phase)) byPhase.set(marker.phase, issue);
    else if (issue.state === 'open') duplicates.push(issue);
  }
  return { byPhase, duplicates };
}
