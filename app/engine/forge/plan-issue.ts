import { createHash } from 'node:crypto';
import type { Phase, Plan, Spec } from '../spec/model.js';
import { ISSUE_BODY_LIMIT } from './limits.js';
import { LABEL_PLAN, needsLabel, phaseLabel, planMarker, specLabel } from './names.js';

/**
 * A plan issue as harness wants it: title, body and the labels it manages (status aside,
 * which the scheduler owns). The body starts with a marker line naming the plan and a
 * hash of everything else harness wrote, so that a later sync can tell, from the issue
 * list alone, whether anyone changed what harness owns.
 */
export interface DesiredIssue {
  plan: string;
  title: string;
  body: string;
  /** Managed labels except status, sorted. */
  labels: string[];
  /** Plan ids this one depends on. */
  dependsOn: string[];
}

export interface DesiredIssueInput {
  spec: Spec;
  plan: Plan;
  /** The PLAN.md text as written. */
  planText: string;
  /** Repository-relative path of the spec directory, "docs/specs/SPC-002-notifications". */
  specPath: string;
  /** Where links point: "https://github.com/o/r/blob/main". */
  blobBase: string;
  /** Issue numbers of the plans this one depends on, when they exist already. */
  issueNumbers: ReadonlyMap<string, number>;
}

// `blocked_by=` records the native dependencies the spec PR sync has mirrored (see
// mirrored-edges.ts); it sits on the marker line, outside the hash, so that recording it
// never makes the issue look edited.
const MARKER_LINE = /^<!-- harness:plan (\S+)\/(\S+?)(?: hash=([0-9a-f]+))?(?: blocked_by=(\S*))? -->$/m;

export function issueTitle(plan: Plan): string {
  return `[${plan.id}] ${plan.title}`;
}

export function managedLabels(spec: string, plan: Plan): string[] {
  return [LABEL_PLAN, specLabel(spec), phaseLabel(plan.phase), ...plan.dependsOn.map(needsLabel)].sort();
}

/** A fence longer than any run of backticks in the text, so the plan cannot close it. */
function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

export function desiredIssue(input: DesiredIssueInput): DesiredIssue {
  const { spec, plan } = input;
  const phase = spec.phases.find((p) => p.id === plan.phase) as Phase;
  const file = `${input.specPath}/${plan.file}`;
  const deps = plan.dependsOn.map((d) => {
    const n = input.issueNumbers.get(d);
    return n === undefined ? d : `#${n} (${d})`;
  });
  const fence = fenceFor(input.planText);
  const lines = [
    `**Spec** [${spec.id} ${spec.title}](${input.blobBase}/${input.specPath}/SPEC.md) · **Phase** ${phase.id} ${phase.title} · **Plan** [\`${plan.file.split('/').pop()}\`](${input.blobBase}/${file})`,
    '',
    `**Depends on:** ${deps.length > 0 ? deps.join(', ') : 'nothing'}`,
    `**Writes:** ${plan.filesModified.length > 0 ? plan.filesModified.map((f) => `\`${f}\``).join(', ') : 'nothing declared'}`,
    `**Verified by:** ${plan.mustPass.map((c) => `${c.id} (${c.type})`).join(', ')}`,
    '',
    'Run it with `/harness execute ' + plan.id + '`. harness keeps this issue in step with the spec: edit the plan in the spec, not here.',
    '',
    '<details><summary>The plan</summary>',
    '',
    `${fence}markdown`,
    input.planText.replace(/\s+$/, ''),
    fence,
    '',
    '</details>',
  ];
  let rest = lines.join('\n');
  const budget = ISSUE_BODY_LIMIT - 200;
  if (rest.length > budget) rest = `${rest.slice(0, budget)}\n\n_(cut: the plan is longer than an issue body holds; read it in the spec)_`;
  const title = issueTitle(plan);
  const labels = managedLabels(spec.id, plan);
  return { plan: plan.id, title, body: `${markerWithHash(spec.id, plan.id, hashOf(title, rest, labels))}\n${rest}`, labels, dependsOn: plan.dependsOn };
}

function markerWithHash(spec: string, plan: string, hash: string): string {
  return planMarker(spec, plan).replace(' -->', ` hash=${hash} -->`);
}

export function hashOf(title: string, rest: string, labels: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify([title, rest, [...labels].sort()])).digest('hex').slice(0, 16);
}

export interface ParsedMarker {
  spec: string;
  plan: string;
  hash?: string;
  /** Plans this one is blocked by in GitHub's own issue dependencies, as harness mirrored them. */
  blockedBy?: string[];
}

export function parseMarker(body: string | null | undefined): ParsedMarker | undefined {
  const m = MARKER_LINE.exec(body ?? '');
  if (!m) return undefined;
  const out: ParsedMarker = { spec: m[1]!, plan: m[2]! };
  if (m[3]) out.hash = m[3];
  if (m[4] !== undefined) out.blockedBy = m[4] === '' ? [] : m[4].split(',');
  return out;
}

/**
 * Is this issue still exactly what harness wrote? Title, body below the marker and the
 * managed labels (status aside) must hash to the marker's hash.
 */
export function issueUnchanged(issue: { title: string; body: string | null; labels: readonly string[] }): boolean {
  const body = issue.body ?? '';
  const marker = parseMarker(body);
  if (!marker?.hash) return false;
  const rest = body.slice(body.indexOf('\n') + 1);
  const managed = issue.labels.filter((l) => l === LABEL_PLAN || /^(spec|phase|needs):/.test(l));
  return hashOf(issue.title, rest, managed) === marker.hash;
}

/** The PLAN.md text carried in a plan issue's body, for the scheduler (no extra read). */
export function planTextFromBody(body: string | null | undefined): string | undefined {
  const m = /\n(`{3,})markdown\n([\s\S]*?)\n\1\n/.exec(body ?? '');
  return m ? `${m[2]}\n` : undefined;
}
