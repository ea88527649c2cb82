import { deviationNote } from '../engine/core/run/deviations.js';
import { blockedHostsMarkdown, type BlockedHost } from '../engine/core/agents/sandbox.js';
import type { BriefKnowledge } from '../engine/core/protocol/messages.js';
import type { Plan } from '../engine/core/spec/model.js';
import type { LevelResult, VerificationReport } from '../engine/core/verify/levels.js';
import { KNOWLEDGE_ROOT } from '../engine/forge/knowledge-draft.js';
import { ISSUE_BODY_LIMIT } from '../engine/forge/limits.js';
import type { PlanCommit } from '../engine/lifecycle/ports.js';

/**
 * What the worker writes for people: the job summary and the plan PR's body, around the
 * verification table they share.
 */

const MARK: Record<LevelResult['status'], string> = { pass: '✅ pass', fail: '❌ fail', human: '⏸️ waits for a person' };
/** A table cell holds the first line of the evidence; failures show all of it below the table. */
const CELL_MAX = 200;
const DETAIL_MAX = 4_000;

function cell(text: string): string {
  const line = text.split('\n')[0] ?? '';
  const short = line.length > CELL_MAX ? `${line.slice(0, CELL_MAX - 1)}…` : line;
  return short.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/</g, '&lt;');
}

/** A fence longer than any run of backticks in the text. */
function fenced(text: string): string {
  const fence = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${fence}\n${text}\n${fence}`;
}

function name(result: LevelResult): string {
  return result.plan === undefined ? result.id : `${result.plan}/${result.id}`;
}

/** A verification report as Markdown: one row per check, then the full evidence of what failed and any problem. */
export function verificationMarkdown(report: VerificationReport): string {
  const lines = ['| Check | Type | Result | Evidence |', '|---|---|---|---|'];
  for (const r of report.results) lines.push(`| \`${name(r)}\` | ${r.type} | ${MARK[r.status]} | ${cell(r.evidence)} |`);
  if (report.results.length === 0) lines.push('| – | – | – | no checks ran |');
  for (const r of report.results.filter((x) => x.status === 'fail' && x.evidence.includes('\n'))) {
    const evidence = r.evidence.length > DETAIL_MAX ? `${r.evidence.slice(0, DETAIL_MAX)}\n…(cut)` : r.evidence;
    lines.push('', `<details><summary><code>${name(r)}</code> evidence</summary>`, '', fenced(evidence), '', '</details>');
  }
  if (report.problems.length > 0) lines.push('', ...report.problems.map((p) => `- ⚠️ ${p}`));
  return lines.join('\n');
}

export interface JobSummaryInput {
  /** "SPC-007 / 01-02 Greeting files" or "SPC-007 / phase 01 Foundation". */
  heading: string;
  status: 'verified' | 'checkpoint' | 'failed';
  /** One line under the status: the PR, the question, or why it failed. */
  detail?: string;
  report?: VerificationReport;
  commits?: readonly PlanCommit[];
  notes?: readonly string[];
}

const STATUS = { verified: '✅ Verified', checkpoint: '⏸️ Waiting for a person', failed: '❌ Failed' } as const;

/** The job summary: the outcome first, then the checks with their evidence, then the commits. */
export function jobSummary(input: JobSummaryInput): string {
  const lines = [`## harness ${input.heading}`, '', `**${STATUS[input.status]}**${input.detail ? `: ${input.detail}` : ''}`];
  if (input.notes && input.notes.length > 0) lines.push('', ...input.notes.map((n) => `- ${n}`));
  if (input.report) lines.push('', `### ${input.report.level === 'plan' ? 'Plan' : 'Phase'} verification`, '', verificationMarkdown(input.report));
  if (input.commits && input.commits.length > 0) {
    lines.push('', `### Commits (${input.commits.length})`, '', ...input.commits.map((c) => `- \`${c.sha.slice(0, 7)}\` ${c.subject}`));
  }
  return `${lines.join('\n')}\n`;
}

export interface PrBodyInput {
  spec: string;
  specPath: string;
  plan: Plan;
  issue: number;
  agent: string;
  report: VerificationReport;
  commits: readonly PlanCommit[];
  agentSummary?: string;
  runUrl?: string;
  /** SUMMARY.md and VERIFICATION.md as committed, shown folded. */
  documents?: readonly { title: string; path: string; text: string }[];
  /** The lessons, skills and genes surfaced into the agent's brief (paths relative to the knowledge store). */
  knowledge?: readonly BriefKnowledge[];
  /** Files the plan changed outside its files_modified. */
  outside?: readonly string[];
  /** Hosts the agents' sandbox refused. */
  blocked?: readonly BlockedHost[];
}

export function prTitle(plan: Plan): string {
  return `[${plan.id}] ${plan.title}`;
}

/** The plan PR's body: what it closes, how it was verified, and what it commits. */
export function prBody(input: PrBodyInput): string {
  const { plan } = input;
  const head = [
    `Closes #${input.issue}`,
    '',
    `Plan **${plan.id} ${plan.title}** of spec **${input.spec}** (\`${input.specPath}/${plan.file}\`), done by the \`${input.agent}\` agent` +
      (input.runUrl ? ` in [this worker run](${input.runUrl})` : '') +
      ' and verified by harness.',
  ];
  if (input.agentSummary) head.push('', `> ${input.agentSummary.split('\n').join('\n> ')}`);
  if (input.outside && input.outside.length > 0) head.push('', '### Outside files_modified', '', deviationNote(input.outside));
  if (input.blocked && input.blocked.length > 0) head.push('', '### Blocked by the sandbox', '', ...blockedHostsMarkdown(input.blocked));
  head.push('', '### Verification', '', verificationMarkdown(input.report));
  if (input.knowledge && input.knowledge.length > 0) {
    head.push('', '### Knowledge surfaced', '', "What harness had learned that applies, as the agent's brief gave it:", '');
    head.push(...input.knowledge.map((k) => `- \`${KNOWLEDGE_ROOT}/${k.path}\` (${k.kind}): ${k.why}`));
  }
  for (const d of input.documents ?? []) {
    // The documents are long: each is cut to its share of the body, and its file has the whole.
    const share = Math.floor((ISSUE_BODY_LIMIT - 12_000) / Math.max(2, input.documents!.length));
    const body = d.text.length > share ? `${d.text.slice(0, share)}\n…(cut; the whole file is \`${d.path}\`)` : d.text;
    head.push('', `<details><summary>${d.title} (<code>${d.path}</code>)</summary>`, '', fenced(body), '', '</details>');
  }
  head.push('', `### Commits (${input.commits.length})`, '');
  const text = head.join('\n');
  // The commits go last and are the part cut to fit GitHub's body limit.
  const budget = ISSUE_BODY_LIMIT - text.length - 100;
  const lines: string[] = [];
  let used = 0;
  for (const c of input.commits) {
    const line = `- ${c.sha.slice(0, 7)} ${c.subject}`;
    if (used + line.length + 1 > budget) {
      lines.push(`- … and ${input.commits.length - lines.length} more`);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return `${text}\n${lines.join('\n')}\n`;
}
