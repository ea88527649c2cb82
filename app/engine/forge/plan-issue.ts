import { createHash } from 'node:crypto';
import { planPhase, type Phase, type Plan, type Spec } from '../core/spec/model.js';
import { parsePlan } from '../core/spec/plan.js';
import { PLAN_READING } from '../importers/dialects.js';
import { DEPENDENCY_LINKS_PER_KIND, ISSUE_BODY_LIMIT } from './limits.js';
import { parseRuns, RUNS_RECORD_MAX, type RunsRecord } from './run-record.js';
import { LABEL_PLAN, needsLabel, phaseLabel, planMarker, RECORDED_STATUSES, specLabel, type RecordedStatus } from './names.js';

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

// After the hash, the marker line carries records that are not part of what harness wrote
// for people, so they sit outside the hash and recording them never makes the issue look
// edited: `blocked_by=` (the native dependencies mirrored, see mirrored-edges.ts) and `pr=`
// (the spec PR whose sticky status comment the scheduling rounds keep up to date), `parent=`
// (the spec's tracking issue it is a sub-issue of), `resume_at=` (a usage-limit pause's end) and
// `verified=` (the evidence that the plan is done: the merged plan PR's number, or `spec` for work
// the spec marks `completed:`). Only the App and writers can edit an issue's body; the triage role
// can close an issue and add labels, so `verified=` is what says a plan is done, and the labels
// and state only mirror it (verified-record.ts). `of=` (the spec's plan count) is on the issues of a spec larger than
// its issue window only: a round that sees fewer issues knows the window may move on (issue-window.ts).
// `status=` (queued, running, checkpoint, failed, verified: where the plan is, written with each
// status label, which is its view), `phase_failed=` (the worker run whose phase verification
// failed: the plan's phase holds its dependants) and `removed=` (the spec PR that took the plan
// out of the spec, written with the close) are what the scheduler decides from: never the labels
// or the issue's state, which the triage role can change. `runs=` (what each worker run did and
// used: run-record.ts) is the worker's account for the status comment's timeline and spend.
const MARKER_LINE = /^<!-- harness:plan (\S+)\/(\S+?)((?: [a-z_]+=\S*)*) -->$/m;

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
  const dependents = spec.plans.filter((p) => p.dependsOn.includes(plan.id)).length;
  const lines = [
    `**Spec** [${spec.id} ${spec.title}](${input.blobBase}/${input.specPath}/SPEC.md) · **Phase** ${phase.id} ${phase.title} · **Plan** [\`${plan.file.split('/').pop()}\`](${input.blobBase}/${file})`,
    '',
    `**Depends on:** ${deps.length > 0 ? deps.join(', ') : 'nothing'}`,
    `**Writes:** ${plan.filesModified.length > 0 ? plan.filesModified.map((f) => `\`${f}\``).join(', ') : 'nothing declared'}`,
    `**Verified by:** ${plan.mustPass.map((c) => `${c.id} (${c.type})`).join(', ')}`,
    // GitHub links at most DEPENDENCY_LINKS_PER_KIND issues of one kind: past that, the issue says so (the labels hold every one).
    ...(plan.dependsOn.length > DEPENDENCY_LINKS_PER_KIND
      ? [
          `_GitHub links at most ${DEPENDENCY_LINKS_PER_KIND} issues as blocking one issue: only the first ${DEPENDENCY_LINKS_PER_KIND} of these ${plan.dependsOn.length} show in its dependencies; the \`needs:\` labels hold every one._`,
        ]
      : []),
    ...(dependents > DEPENDENCY_LINKS_PER_KIND
      ? [
          `**Needed by:** ${dependents} plans. _GitHub links at most ${DEPENDENCY_LINKS_PER_KIND} issues as blocked by one issue: the others name this plan in their **Depends on** line and \`needs:\` labels._`,
        ]
      : []),
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
  // The marker line's room: its records, and the workers' account of their runs (run-record.ts).
  const budget = ISSUE_BODY_LIMIT - 200 - RUNS_RECORD_MAX;
  if (rest.length > budget) rest = `${rest.slice(0, budget)}\n\n_(cut: the plan is longer than an issue body holds; read it in the spec)_`;
  const title = issueTitle(plan);
  const labels = managedLabels(spec.id, plan);
  return { plan: plan.id, title, body: `${markerWithHash(spec.id, plan.id, hashOf(title, rest, labels))}\n${rest}`, labels, dependsOn: plan.dependsOn };
}

function markerWithHash(spec: string, plan: string, hash: string): string {
  return planMarker(spec, plan).replace(' -->', ` hash=${hash} -->`);
}

export function hashOf(title: string, rest: string, labels: readonly string[]): string {
  return createHash('sha256')
    .update(JSON.stringify([title, rest, [...labels].sort()]))
    .digest('hex')
    .slice(0, 16);
}

export interface ParsedMarker {
  spec: string;
  plan: string;
  hash?: string;
  /** Plans this one is blocked by in GitHub's own issue dependencies, as harness mirrored them. */
  blockedBy?: string[];
  /** The spec PR whose status comment tracks this plan. */
  pr?: number;
  /** The spec's tracking issue this one was added to as a sub-issue (spec-issue.ts). */
  parent?: number;
  /** When the App may resume a plan paused at the model's usage limit (resume-after-limit.ts). */
  resumeAt?: Date;
  /** Why the plan is done, as the App recorded it: the merged plan PR's number, or `spec` (`completed:` in the plan). */
  verified?: string;
  /**
   * How many plans the spec had when this issue was made, recorded only on the issues of a spec
   * larger than its issue window (issue-window.ts): a round that sees fewer plan issues than
   * this knows, from the list alone, that the window may need to move on.
   */
  of?: number;
  /** Where the plan is, as the App or its worker recorded it with the status label (names.ts, RecordedStatus). */
  status?: RecordedStatus;
  /** The worker run in which the plan's phase failed its verification: the phase holds the plans that need it. */
  phaseFailed?: string;
  /** The spec PR that took the plan out of the spec (its issue closed as not planned with this record). */
  removed?: number;
  /** What each worker run of the plan did and used, as the worker recorded it (run-record.ts). */
  runs?: RunsRecord;
  /** The spend cap the plan was told it waits at (the note on its issue, once a hold: spend-hold.ts); cleared when it starts. */
  held?: SpendCapKey;
}

/** The keys of `budget:` in .github/harness.yml a plan can wait at. */
export type SpendCapKey = 'per_day_usd' | 'per_spec_usd';

/** The marker line's records, in the order they are written. */
const MARKER_KEYS = ['hash', 'blocked_by', 'pr', 'parent', 'resume_at', 'verified', 'of', 'status', 'phase_failed', 'removed', 'held', 'runs'] as const;
export type MarkerKey = (typeof MARKER_KEYS)[number];

function markerRecords(body: string | null | undefined): { spec: string; plan: string; records: Map<string, string> } | undefined {
  const m = MARKER_LINE.exec(body ?? '');
  if (!m) return undefined;
  const records = new Map<string, string>();
  for (const pair of m[3]!.trim().split(' ').filter(Boolean)) {
    const eq = pair.indexOf('=');
    records.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return { spec: m[1]!, plan: m[2]!, records };
}

export function parseMarker(body: string | null | undefined): ParsedMarker | undefined {
  const found = markerRecords(body);
  if (!found) return undefined;
  const out: ParsedMarker = { spec: found.spec, plan: found.plan };
  const hash = found.records.get('hash');
  if (hash && /^[0-9a-f]+$/.test(hash)) out.hash = hash;
  const blockedBy = found.records.get('blocked_by');
  if (blockedBy !== undefined) out.blockedBy = blockedBy === '' ? [] : blockedBy.split(',');
  const pr = Number(found.records.get('pr'));
  if (Number.isInteger(pr) && pr > 0) out.pr = pr;
  const parent = Number(found.records.get('parent'));
  if (Number.isInteger(parent) && parent > 0) out.parent = parent;
  const resumeAt = new Date(found.records.get('resume_at') ?? '');
  if (!Number.isNaN(resumeAt.getTime())) out.resumeAt = resumeAt;
  const verified = found.records.get('verified');
  if (verified !== undefined && isVerifiedEvidence(verified)) out.verified = verified;
  const of = Number(found.records.get('of'));
  if (Number.isInteger(of) && of > 0) out.of = of;
  const status = found.records.get('status');
  if (status !== undefined && (RECORDED_STATUSES as readonly string[]).includes(status)) out.status = status as RecordedStatus;
  const phaseFailed = found.records.get('phase_failed');
  if (phaseFailed && /^\d+$/.test(phaseFailed)) out.phaseFailed = phaseFailed;
  const removed = Number(found.records.get('removed'));
  if (Number.isInteger(removed) && removed > 0) out.removed = removed;
  const runs = parseRuns(found.records.get('runs'));
  if (runs) out.runs = runs;
  const held = found.records.get('held');
  if (held === 'per_day_usd' || held === 'per_spec_usd') out.held = held;
  return out;
}

/** The `verified=` record of work the spec marks done (`completed:`), which no plan PR carries. */
export const VERIFIED_BY_SPEC = 'spec';

function isVerifiedEvidence(value: string): boolean {
  return value === VERIFIED_BY_SPEC || /^[1-9]\d*$/.test(value);
}

/** The body with one record of its marker line set (or, with undefined, removed); the rest untouched. */
export function withMarkerRecord(body: string, key: MarkerKey, value: string | undefined): string {
  const found = markerRecords(body);
  if (!found) return body;
  if (value === undefined) found.records.delete(key);
  else found.records.set(key, value);
  const nl = body.indexOf('\n');
  const rest = nl === -1 ? '' : body.slice(nl);
  const records = MARKER_KEYS.filter((k) => found.records.has(k)).map((k) => ` ${k}=${found.records.get(k)}`);
  return `<!-- harness:plan ${found.spec}/${found.plan}${records.join('')} -->${rest}`;
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

const DEPENDS_ON_LINE = /^\*\*Depends on:\*\* (.*)$/m;
const PLAN_ID_IN_TEXT = /\b\d{2,3}-\d{2,5}\b/g;

/**
 * The plans a plan issue's plan needs, from what the App wrote in its body (which only the App
 * and writers can edit): the **Depends on** line desiredIssue writes, or else the plan text it
 * carries. Undefined when the body holds neither: the plan's needs are unknown, and it waits.
 * Never the `needs:` labels, which anyone with the triage role can take off.
 */
export function dependsOnFromBody(body: string | null | undefined): string[] | undefined {
  const line = DEPENDS_ON_LINE.exec(body ?? '');
  if (line) return line[1]!.trim() === 'nothing' ? [] : [...new Set(line[1]!.match(PLAN_ID_IN_TEXT) ?? [])];
  const text = planTextFromBody(body);
  if (text === undefined) return undefined;
  const marker = parseMarker(body);
  const parsed = parsePlan(`${marker?.plan ?? 'plan'}-PLAN.md`, text, marker ? planPhase(marker.plan) : '', PLAN_READING).plan;
  return parsed?.dependsOn;
}
