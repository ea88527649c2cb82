import type { Problem } from '../core/spec/problem.js';
import { DEPENDENCY_LINKS_PER_KIND, SUB_ISSUES_PER_PARENT } from './limits.js';

/** What a spec PR's sync did to one spec's issues, for the check run's summary. */
export interface SyncTally {
  created: number[];
  updated: number[];
  reopened: number[];
  closed: number[];
  duplicates: number[];
  /** `capped`: edges not mirrored because one of their issues has GitHub's most links of that kind already (DEPENDENCY_LINKS_PER_KIND). */
  dependencies: { added: number; removed: number; refused: number; unavailable: boolean; capped?: number };
  /** A spec larger than its issue window (issue-window.ts): how many plans have issues now, of how many, through which phase. */
  window?: { issued: number; total: number; through: string };
  /** A spec of more plans than one issue holds: its phase issues, the middle level (phase-issue.ts). */
  phases?: { created: number[]; updated: number[]; duplicates: number[] };
  /** The spec's tracking issue, when the spec has plans. */
  tracking?: { number: number; created: boolean; updated: boolean; duplicates: number[] };
  /** The plan issues as its sub-issues. */
  /** `overLimit`: plan issues left out because the tracking issue holds GitHub's most (SUB_ISSUES_PER_PARENT). */
  subIssues?: { added: number; removed: number; refused: number; unavailable: boolean; overLimit?: number };
}

/** One spec the PR changes, validated and maybe synced. */
export interface SpecOutcome {
  /** Repository path of the spec directory: annotations are relative to the repository. */
  path: string;
  /** The spec id, or the directory name when SPEC.md gave none. */
  name: string;
  title?: string;
  /** Spec-relative, as loadSpec reports them. */
  problems: readonly Problem[];
  valid: boolean;
  stats?: { plans: number; phases: number; dependencies: number };
  sync?: SyncTally;
  /** Why a valid spec was not synced. */
  notSynced?: string;
}

export interface ReportAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'warning' | 'failure';
  message: string;
  title: string;
}

export interface SpecCheckReport {
  /** `neutral`: valid, but the sync could not write everything (incompleteSync); nothing may take it for done. */
  conclusion: 'success' | 'failure' | 'neutral';
  title: string;
  summary: string;
  /** Every annotation; the adapter sends them in batches. */
  annotations: ReportAnnotation[];
}

export interface ReportLimits {
  /** GitHub's cap on `output.summary`, in characters. */
  summaryMax: number;
  /** GitHub's cap on an annotation's `message`, in bytes. */
  messageMaxBytes: number;
  /** GitHub's cap on an annotation's `title`. */
  titleMax: number;
}

const encoder = new TextEncoder();

function clipBytes(text: string, max: number): string {
  if (encoder.encode(text).length <= max) return text;
  let cut = Math.min(text.length, max);
  while (cut > 0 && encoder.encode(text.slice(0, cut)).length > max - 3) cut = Math.floor(cut * 0.9);
  return `${text.slice(0, cut)}…`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function counts(problems: readonly Problem[]): string {
  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.length - errors;
  return [errors > 0 ? plural(errors, 'error') : '', warnings > 0 ? plural(warnings, 'warning') : ''].filter(Boolean).join(', ');
}

function repoPath(dir: string, file: string): string {
  return `${dir}/${file}`.replace(/\/+$/, '');
}

function issueList(numbers: readonly number[]): string {
  return numbers.map((n) => `#${n}`).join(', ');
}

function syncLines(sync: SyncTally): string[] {
  const parts = [
    sync.created.length > 0 ? `${sync.created.length} created (${issueList(sync.created)})` : '',
    sync.updated.length > 0 ? `${sync.updated.length} updated (${issueList(sync.updated)})` : '',
    sync.reopened.length > 0 ? `${sync.reopened.length} reopened (${issueList(sync.reopened)})` : '',
    sync.closed.length > 0 ? `${sync.closed.length} closed as no longer planned (${issueList(sync.closed)})` : '',
    sync.duplicates.length > 0 ? `${sync.duplicates.length} duplicates closed (${issueList(sync.duplicates)})` : '',
  ].filter(Boolean);
  const lines = [`Plan issues: ${parts.length > 0 ? parts.join('; ') : 'already in step with the spec, nothing written'}.`];
  const d = sync.dependencies;
  const edges = [
    d.added > 0 ? `${d.added} added` : '',
    d.removed > 0 ? `${d.removed} removed` : '',
    d.refused > 0 ? `${d.refused} refused by GitHub` : '',
  ].filter(Boolean);
  if (edges.length > 0) lines.push(`Native issue dependencies (blocked by): ${edges.join(', ')}.`);
  if ((d.capped ?? 0) > 0) {
    lines.push(
      `GitHub links at most ${DEPENDENCY_LINKS_PER_KIND} issues of one kind (blocked by, blocking) to an issue: ${d.capped} more ${d.capped === 1 ? 'dependency is' : 'dependencies are'} not mirrored, and the issues concerned say so; the \`needs:\` labels carry every one.`,
    );
  }
  const w = sync.window;
  if (w)
    lines.push(
      `Issue window: ${w.issued} of ${w.total} plans have issues, the first the scheduler will start (reaching phase ${w.through}); the others get theirs as plans finish (\`issue_window\`).`,
    );
  const ph = sync.phases;
  if (ph && ph.created.length + ph.updated.length + ph.duplicates.length > 0) {
    const parts = [
      ph.created.length > 0 ? `${ph.created.length} created` : '',
      ph.updated.length > 0 ? `${ph.updated.length} updated` : '',
      ph.duplicates.length > 0 ? `${ph.duplicates.length} duplicates closed` : '',
    ].filter(Boolean);
    lines.push(`Phase issues (the plans' parents, under the tracking issue): ${parts.join(', ')}.`);
  }
  if (d.unavailable) {
    lines.push(
      "GitHub's issue dependencies are not available to harness here, so they were not mirrored; the `needs:` labels carry every dependency, and those are what the scheduler reads.",
    );
  }
  lines.push(...trackingLines(sync));
  return lines;
}

interface Section {
  head: string[];
  items: string[];
}

/**
 * Did a sync leave out a write GitHub did not take: a dependency or sub-issue refused (422),
 * or the feature answering that it is not there (403, 404, 410)? Then what GitHub holds is
 * not the spec's whole picture, and the check must not say it is: GitHub's answer may be a
 * moment's (one 404 among successes) as well as for good, and only a later sync can tell.
 */
export function incompleteSync(sync: SyncTally): boolean {
  const d = sync.dependencies;
  const s = sync.subIssues;
  return d.refused > 0 || d.unavailable || (s !== undefined && (s.refused > 0 || s.unavailable));
}

/**
 * The `harness / spec` check run for a PR's specs: conclusion, title, a Markdown summary
 * within `limits.summaryMax` (problems listed until the budget runs out, the rest counted),
 * and one annotation per problem at its file and line. Config problems are warnings: the
 * defaults stand in for a broken `.github/harness.yml`.
 */
export function specCheckReport(specs: readonly SpecOutcome[], config: readonly Problem[], limits: ReportLimits): SpecCheckReport {
  const annotations: ReportAnnotation[] = [];
  const sections: Section[] = [];
  for (const spec of specs) {
    const head = specHead(spec);
    const items: string[] = [];
    for (const p of spec.problems) {
      const path = repoPath(spec.path, p.file);
      items.push(`- ${p.severity === 'warning' ? '⚠️' : '❌'} \`${path}:${p.line}\` ${p.message}`);
      annotations.push({
        path,
        start_line: p.line,
        end_line: p.line,
        annotation_level: p.severity === 'error' ? 'failure' : 'warning',
        message: clipBytes(p.message, limits.messageMaxBytes),
        title: clipBytes(`harness: ${p.code}`, limits.titleMax),
      });
    }
    sections.push({ head, items });
  }
  if (config.length > 0) {
    const items: string[] = [];
    for (const p of config) {
      const message = `${p.message} (harness used the defaults instead)`;
      items.push(`- ⚠️ \`${p.file}:${p.line}\` ${message}`);
      annotations.push({
        path: p.file,
        start_line: p.line,
        end_line: p.line,
        annotation_level: 'warning',
        message: clipBytes(message, limits.messageMaxBytes),
        title: clipBytes(`harness: config ${p.code}`, limits.titleMax),
      });
    }
    sections.push({ head: ['### `.github/harness.yml`', '', '⚠️ The configuration has problems; the defaults were used where it is wrong.'], items });
  }

  const invalid = specs.filter((s) => !s.valid);
  const incomplete = specs.some((s) => s.sync !== undefined && incompleteSync(s.sync));
  return {
    conclusion: invalid.length > 0 ? 'failure' : incomplete ? 'neutral' : 'success',
    title: reportTitle(specs, config).slice(0, limits.titleMax),
    summary: fitSummary(sections, limits.summaryMax),
    annotations,
  };
}

/** A spec's heading and verdict: its problems counted, or valid with its size and what the sync did. */
function specHead(spec: SpecOutcome): string[] {
  const head = [`### ${spec.title ? `${spec.name} ${spec.title}` : spec.name} · \`${spec.path}\``, ''];
  if (!spec.valid) {
    head.push(`❌ ${counts(spec.problems)}: fix ${spec.problems.length === 1 ? 'it' : 'them'} and push; nothing was synced.`);
    return head;
  }
  const s = spec.stats;
  head.push(
    `✅ Valid${s ? `: ${plural(s.plans, 'plan')} in ${plural(s.phases, 'phase')}, ${plural(s.dependencies, 'dependency', 'dependencies')}` : ''}${spec.problems.length > 0 ? ` (${counts(spec.problems)})` : ''}.`,
  );
  if (spec.sync) head.push('', ...syncLines(spec.sync));
  if (spec.sync && incompleteSync(spec.sync)) {
    head.push(
      '',
      '⚠️ GitHub did not take every write this sync made (above), so the issues are not yet all the spec says. The next push, re-delivery or reopening of this pull request tries them again.',
    );
  }
  if (spec.notSynced) head.push('', spec.notSynced);
  return head;
}

/** The check's title: which specs are invalid and their problems counted, or the plans valid (and any warnings). */
function reportTitle(specs: readonly SpecOutcome[], config: readonly Problem[]): string {
  const invalid = specs.filter((s) => !s.valid);
  const all = [...specs.flatMap((s) => s.problems), ...config];
  return invalid.length > 0
    ? `${invalid.length === 1 && specs.length === 1 ? invalid[0]!.name : `${invalid.length} of ${plural(specs.length, 'spec')}`}: ${counts(invalid.flatMap((s) => s.problems))}`
    : `${specs.length === 1 ? `${specs[0]!.name}: ` : `${plural(specs.length, 'spec')}: `}${plural(
        specs.reduce((n, s) => n + (s.stats?.plans ?? 0), 0),
        'plan',
      )} valid${all.length > 0 ? ` (${counts(all)})` : ''}`;
}

/** Headings and verdicts always; problem lines in order while they fit, then a count of the rest. */
function fitSummary(sections: readonly Section[], max: number): string {
  const more = (n: number) => `- …and ${n} more: every problem is an annotation on this check run.`;
  const fixed = sections.reduce((n, s) => n + s.head.join('\n').length + 2 + more(Number.MAX_SAFE_INTEGER).length + 2, 0);
  let budget = max - fixed;
  const out: string[] = [];
  for (const s of sections) {
    const lines = [...s.head];
    if (s.items.length > 0) lines.push('');
    let shown = 0;
    for (const item of s.items) {
      if (item.length + 1 > budget) break;
      lines.push(item);
      budget -= item.length + 1;
      shown++;
    }
    if (shown < s.items.length) lines.push(more(s.items.length - shown));
    out.push(lines.join('\n'));
  }
  const summary = out.join('\n\n');
  // The fixed parts alone could only overflow with thousands of specs in one PR.
  return summary.length <= max ? summary : `${summary.slice(0, max - 1)}…`;
}

/** The tracking issue and its sub-issues, in one line, and once the note that they are not available. */
function trackingLines(sync: SyncTally): string[] {
  const t = sync.tracking;
  const s = sync.subIssues;
  if (!t || !s) return [];
  const subs = [
    s.added > 0 ? `${s.added} added` : '',
    s.removed > 0 ? `${s.removed} taken out (closed plans)` : '',
    s.refused > 0 ? `${s.refused} refused by GitHub` : '',
  ].filter(Boolean);
  const parts = [
    t.created ? 'created' : t.updated ? 'updated' : '',
    t.duplicates.length > 0 ? `${plural(t.duplicates.length, 'duplicate')} closed (${issueList(t.duplicates)})` : '',
    subs.length > 0 ? `sub-issues ${subs.join(', ')}` : '',
  ].filter(Boolean);
  const lines = parts.length > 0 ? [`Spec tracking issue #${t.number}: ${parts.join('; ')}.`] : [];
  if ((s.overLimit ?? 0) > 0) {
    lines.push(
      `GitHub holds at most ${SUB_ISSUES_PER_PARENT} sub-issues per issue: ${plural(s.overLimit!, 'more plan issue')} ${s.overLimit === 1 ? 'is' : 'are'} not listed under ${sync.phases ? "their phase's issue" : `#${t.number}`}, and the labels \`spec:\` and \`phase:\` find every one.`,
    );
  }
  if (s.unavailable) {
    lines.push(
      `GitHub's sub-issues are not available to harness here, so the plan issues are not listed under the spec's tracking issue #${t.number}; each plan issue and its labels stand on their own.`,
    );
  }
  return lines;
}
