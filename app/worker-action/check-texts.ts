import { deviationNote } from '../engine/core/run/deviations.js';
import { blockedHostsMarkdown, type BlockedHost } from '../engine/core/agents/sandbox.js';
import type { Checkpoint, Usage } from '../engine/core/protocol/messages.js';
import type { VerificationReport } from '../engine/core/verify/levels.js';
import { checkpointActions, optionsMarker } from '../engine/forge/check-actions.js';
import type { PlanCommit } from '../engine/lifecycle/ports.js';
import type { CheckOwner, FinalCheck } from './live-check.js';
import { verificationMarkdown } from './reports.js';

/** How a plan's job ended, as its check run shows it. */
export type JobEnd =
  | { kind: 'verified'; pullRequest: { number: number; url: string }; /** Files it changed outside its files_modified. */ outside?: readonly string[] }
  | { kind: 'failed'; reason: string; /** The tail of the evidence (the agent's or the command's last lines). */ evidence?: string }
  | { kind: 'checkpoint'; checkpoint: Checkpoint; issueUrl: string }
  | { kind: 'paused'; resetsAt?: Date; evidence: string; issueUrl: string };

export interface FinalCheckInput {
  heading: string;
  plan: string;
  end: JobEnd;
  owner: CheckOwner;
  report?: VerificationReport;
  commits: readonly PlanCommit[];
  usage?: Usage;
  /** The plan's budget, when one applies. */
  budgetUsd?: number;
  jobUrl?: string;
  /** Every engine that worked on the attempt, when a fallback took it over at a usage limit (agents.fallback). */
  engines?: readonly { agent: string; stopped?: string }[];
  /** Hosts the agents' sandbox refused, with the line that allows them. */
  blocked?: readonly BlockedHost[];
}

/** "Engines: codex (stopped at its usage limit), then gemini": who worked on an attempt a fallback took over. */
export function enginesLine(engines: readonly { agent: string; stopped?: string }[]): string {
  const said = (e: { agent: string; stopped?: string }) =>
    e.stopped === undefined ? e.agent : `${e.agent} (${/could not start/.test(e.stopped) ? 'could not start' : 'stopped at its usage limit'})`;
  return `Engines: ${engines.map(said).join(', then ')}`;
}

const EVIDENCE_MAX = 6_000;

/** One line on what the agent used: cost, turns, tokens, as it reported them. */
export function costLine(usage: Usage | undefined, budgetUsd?: number): string {
  const parts: string[] = [];
  if (usage?.costUsd !== undefined) parts.push(`$${usage.costUsd.toFixed(2)}${budgetUsd !== undefined ? ` of a $${budgetUsd.toFixed(2)} budget` : ''}`);
  if (usage?.turns !== undefined) parts.push(`${usage.turns} turns`);
  if (usage?.inputTokens !== undefined || usage?.outputTokens !== undefined)
    parts.push(`${usage.inputTokens ?? '?'} tokens in, ${usage.outputTokens ?? '?'} out`);
  return parts.length > 0 ? `Cost: ${parts.join(', ')}` : 'Cost: the agent reported none';
}

/** The check run's final state: what came of the plan, what was checked, what it cost, where to look next. */
export function finalCheck(input: FinalCheckInput): FinalCheck {
  const { conclusion, title, said, actions, extra } = endSaid(input);
  const lines = [`**${input.heading}**`, '', ...said, ...attemptLines(input)];
  const text = [
    ...(input.report
      ? [`### ${input.report.level === 'plan' ? 'Plan' : 'Phase'} verification`, '', verificationMarkdown(input.report), '']
      : ['No checks ran.', '']),
    ...(input.commits.length > 0
      ? [`### Commits (${input.commits.length})`, '', ...input.commits.map((c) => `- \`${c.sha.slice(0, 7)}\` ${c.subject}`), '']
      : []),
    ...extra,
  ].join('\n');
  return { conclusion, title, summary: lines.join('\n'), text, actions };
}

/** How the job ended, as the check run says it: its conclusion and title, the summary's lines on it, its buttons, and what the text ends with. */
function endSaid({ end, plan, owner }: FinalCheckInput): Pick<FinalCheck, 'conclusion' | 'title' | 'actions'> & { said: string[]; extra: string[] } {
  switch (end.kind) {
    case 'verified':
      return {
        conclusion: 'success',
        title: 'Verified',
        said: [
          `✅ Every check passed. Plan PR: [#${end.pullRequest.number}](${end.pullRequest.url}).`,
          ...(end.outside && end.outside.length > 0 ? ['', `⚠️ ${deviationNote(end.outside)}`] : []),
        ],
        actions: [],
        extra: [],
      };
    case 'failed':
      return {
        conclusion: 'failure',
        title: `Failed: ${oneLine(end.reason, 200)}`,
        said: [`❌ ${end.reason.split('\n')[0]}`, '', `\`/harness retry ${plan}\` runs it again.`],
        actions: [{ label: 'Retry', description: 'Start this plan again from scratch', identifier: 'retry' }],
        extra: end.evidence ? ['### Evidence (last lines)', '', fence(tail(end.evidence))] : [],
      };
    case 'checkpoint':
      return {
        conclusion: 'action_required',
        title: `Waiting: ${oneLine(end.checkpoint.prompt, 200)}`,
        said: [
          `⏸️ The agent asks (${end.checkpoint.kind}, \`${end.checkpoint.id}\`):`,
          '',
          ...end.checkpoint.prompt.split('\n').map((l) => `> ${l}`),
          '',
          `Answer on [the plan issue](${end.issueUrl}) with \`/harness respond ${plan} <answer>\`${owner === 'app' ? ' or with a button here' : ''}; the next run resumes the agent's session with it.`,
          ...(end.checkpoint.options && end.checkpoint.options.length > 0 ? ['', `Options: ${end.checkpoint.options.map((o) => `\`${o}\``).join(', ')}`] : []),
        ],
        actions: checkpointActions(end.checkpoint),
        extra: end.checkpoint.options ? [optionsMarker(end.checkpoint.options)] : [],
      };
    case 'paused':
      return {
        conclusion: 'neutral',
        title: `Paused: the model's usage limit${end.resetsAt ? ` resets ${end.resetsAt.toISOString()}` : ''}`,
        said: [
          `⏳ The agent stopped at the model's rate or usage limit (${oneLine(end.evidence, 200)}). The work so far is kept on the branch and the session saved.`,
          '',
          `${end.resetsAt ? `It resets at ${end.resetsAt.toISOString()}. ` : ''}Continue with \`/harness respond ${plan} continue\` on [the plan issue](${end.issueUrl}).`,
        ],
        actions: [],
        extra: [],
      };
  }
}

/** The summary's end: what the attempt cost, who worked on it, its job, the hosts its sandbox refused, and whose check run this is. */
function attemptLines(input: FinalCheckInput): string[] {
  const lines = ['', `- ${costLine(input.usage, input.budgetUsd)}`];
  if (input.engines && input.engines.length > 1) lines.push(`- ${enginesLine(input.engines)}`);
  if (input.jobUrl) lines.push(`- Job: ${input.jobUrl}`);
  if (input.blocked && input.blocked.length > 0) lines.push('', ...blockedHostsMarkdown(input.blocked));
  if (input.owner === 'actions') {
    lines.push(
      '',
      "_This check run is GitHub Actions' own (the job had only `GITHUB_TOKEN`): it has no buttons, and the harness App's check run for this plan is settled by the App when the job ends. " +
        "Give the workflow the App's credentials (the variable HARNESS_APP_CLIENT_ID, the secret HARNESS_APP_PRIVATE_KEY) to have the App's check run updated live, with its buttons._",
    );
  }
  return lines;
}

function oneLine(text: string, max: number): string {
  const line = (text.split('\n')[0] ?? '').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function tail(text: string): string {
  return text.length > EVIDENCE_MAX ? `…\n${text.slice(-EVIDENCE_MAX)}` : text;
}

function fence(text: string): string {
  const f = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${f}\n${text}\n${f}`;
}
