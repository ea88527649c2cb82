import { ISSUE_BODY_LIMIT } from '../engine/forge/limits.js';
import type { Plan } from '../engine/core/spec/model.js';
import type { VerificationReport } from '../engine/core/verify/levels.js';
import type { CommitInfo } from '../workers/git.js';
import { verificationMarkdown } from './verification-markdown.js';

export interface PrBodyInput {
  spec: string;
  specPath: string;
  plan: Plan;
  issue: number;
  agent: string;
  report: VerificationReport;
  commits: readonly CommitInfo[];
  agentSummary?: string;
  runUrl?: string;
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
  head.push('', '### Verification', '', verificationMarkdown(input.report), '', `### Commits (${input.commits.length})`, '');
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
