import type { VerificationReport } from '../engine/core/verify/levels.js';
import type { CommitInfo } from '../workers/git.js';
import { verificationMarkdown } from './verification-markdown.js';

export interface JobSummaryInput {
  /** "SPC-007 / 01-02 Greeting files" or "SPC-007 / phase 01 Foundation". */
  heading: string;
  status: 'verified' | 'checkpoint' | 'failed';
  /** One line under the status: the PR, the question, or why it failed. */
  detail?: string;
  report?: VerificationReport;
  commits?: readonly CommitInfo[];
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
