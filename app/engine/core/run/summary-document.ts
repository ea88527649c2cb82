import { renderTemplate } from '../documents/render-template.js';
import type { BriefKnowledge, Usage } from '../protocol/messages.js';
import type { Plan } from '../spec/model.js';
import type { VerificationReport } from '../verify/levels.js';
import type { Deviation } from './deviations.js';
import { blockedHostsMarkdown, type BlockedHost } from '../agents/sandbox.js';

export interface SummaryInput {
  spec: string;
  plan: Plan;
  status: 'verified' | 'failed';
  agent: string;
  started: string;
  finished: string;
  durationMinutes: number;
  attempts: number;
  branch: string;
  commits: { sha: string; message: string }[];
  deviations: Deviation[];
  verification?: VerificationReport;
  /** Why it failed, when it did. */
  reason?: string;
  /** What the agent said it did, if anything. */
  agentSummary?: string;
  /** The lessons, skills and genes surfaced into the agent's brief, best first. */
  knowledge?: readonly BriefKnowledge[];
  /** What the agent reported it used (every engine's together when a fallback took the plan over). */
  usage?: Usage;
  /** Every engine that worked on the attempt, in order, when a fallback took it over at a usage limit. */
  engines?: readonly { agent: string; usage?: Usage; stopped?: string }[];
  /** It ran without surfaced knowledge, held out for the comparison (knowledge.holdout). */
  heldOut?: boolean;
  /** Hosts the agents' sandbox refused during the attempt. */
  blocked?: readonly BlockedHost[];
}

const RESULT = { pass: 'pass', fail: 'fail', human: 'skipped-for-human' } as const;

/** A plan's SUMMARY.md, from templates/SUMMARY.md. */
export function summaryDocument(template: string, input: SummaryInput): string {
  const checks = (input.verification?.results ?? []).map((r) => ({
    id: r.id,
    type: r.type,
    result: RESULT[r.status],
    evidence: r.evidence,
    duration_seconds: Math.round(r.durationMs / 100) / 10,
  }));
  const frontmatter = {
    plan_id: input.plan.id,
    spec: input.spec,
    title: input.plan.title,
    status: input.status,
    agent: input.agent,
    started: input.started,
    finished: input.finished,
    duration_minutes: input.durationMinutes,
    attempts: input.attempts,
    branch: input.branch,
    commits: input.commits.map((c) => ({ sha: c.sha.slice(0, 12), message: c.message })),
    deviations: input.deviations.map((d) => ({ description: d.description, reason: d.reason, impact: d.impact, files: d.files })),
    checks,
    knowledge: (input.knowledge ?? []).map((k) => ({ path: k.path, kind: k.kind, score: k.score, ...(k.why ? { why: k.why } : {}) })),
    ...(input.heldOut ? { held_out: true } : {}),
    ...(input.blocked && input.blocked.length > 0 ? { blocked_hosts: input.blocked.map((b) => ({ host: b.host, count: b.count, command: b.command })) } : {}),
    ...(input.usage ? { cost: costRecord(input.usage) } : {}),
    ...(input.engines && input.engines.length > 1
      ? {
          engines: input.engines.map((e) => ({
            agent: e.agent,
            ...(e.usage ? { cost: costRecord(e.usage) } : {}),
            ...(e.stopped ? { stopped: e.stopped } : {}),
          })),
        }
      : {}),
  };
  const built = input.commits.length > 0 ? input.commits.map((c) => `- \`${c.sha.slice(0, 7)}\` ${c.message}`).join('\n') : '_No commits._';
  const agentNote =
    (input.agentSummary ? `\n\n${input.agentSummary.trim()}` : '') + (input.usage ? `\n\n${costText(input.usage)}` : '') + enginesNote(input.engines);
  const verification =
    checks.length > 0
      ? ['| Check | Type | Result | Evidence |', '|---|---|---|---|', ...checks.map((c) => `| ${c.id} | ${c.type} | ${c.result} | ${cell(c.evidence)} |`)].join(
          '\n',
        )
      : `_Not verified: ${input.reason ?? 'the run ended before verification'}._`;
  return renderTemplate(template, frontmatter, {
    plan_id: input.plan.id,
    title: input.plan.title,
    built: built + agentNote,
    deviations: [
      input.deviations.length > 0 ? input.deviations.map((d) => `- **${d.impact}**: ${d.description} ${d.reason}`).join('\n') : 'None.',
      ...(input.blocked && input.blocked.length > 0 ? ['', ...blockedHostsMarkdown(input.blocked)] : []),
    ].join('\n'),
    verification: input.status === 'failed' && input.reason ? `**Failed:** ${input.reason}\n\n${verification}` : verification,
    knowledge: input.heldOut
      ? 'None: held out (knowledge.holdout): this plan ran without surfaced knowledge, for `harness retrospective` to compare with the others.'
      : knowledgeNote(input.knowledge),
    notes: notes(input.plan),
  });
}

/** The engines of an attempt a fallback took over, each with what it used and why it handed on. */
function enginesNote(engines: SummaryInput['engines']): string {
  if (!engines || engines.length < 2) return '';
  return `\n\nEngines, in order (agents.fallback):\n${engines.map((e) => `- ${e.agent}${e.usage ? ` (${costText(e.usage).replace(/^Cost: /, '')})` : ''}${e.stopped ? `: ${e.stopped}` : ': finished the attempt'}`).join('\n')}`;
}

/** Nothing given: the agent took no brief (the script agent runs the plan's own steps). */
function knowledgeNote(knowledge: readonly BriefKnowledge[] | undefined): string {
  if (knowledge === undefined) return 'None.';
  if (knowledge.length === 0) return 'None: nothing in the knowledge store applied to this plan.';
  return [
    "Surfaced into the agent's brief, best first:",
    '',
    ...knowledge.map((k) => `- \`${k.path}\` (${k.kind}): ${k.title}${/[.!?]$/.test(k.title) ? '' : '.'}${k.why ? ` Why: ${k.why}.` : ''}`),
  ].join('\n');
}

function notes(plan: Plan): string {
  const lines: string[] = [];
  if (plan.filesModified.length > 0) lines.push(`Files this plan owns: ${plan.filesModified.map((f) => `\`${f}\``).join(', ')}.`);
  if (plan.truths.length > 0) lines.push('Now true:', ...plan.truths.map((t) => `- ${t}`));
  return lines.join('\n') || 'None.';
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

function costRecord(usage: Usage): Record<string, number> {
  const out: Record<string, number> = {};
  if (usage.costUsd !== undefined) out.usd = usage.costUsd;
  if (usage.turns !== undefined) out.turns = usage.turns;
  if (usage.inputTokens !== undefined) out.input_tokens = usage.inputTokens;
  if (usage.outputTokens !== undefined) out.output_tokens = usage.outputTokens;
  return out;
}

/** "Cost: $0.42, 12 turns, 9,000 tokens in, 800 out", as the agent reported it. */
export function costText(usage: Usage): string {
  const parts: string[] = [];
  if (usage.costUsd !== undefined) parts.push(`$${usage.costUsd.toFixed(2)}`);
  if (usage.turns !== undefined) parts.push(`${usage.turns} turns`);
  if (usage.inputTokens !== undefined || usage.outputTokens !== undefined)
    parts.push(`${usage.inputTokens ?? '?'} tokens in, ${usage.outputTokens ?? '?'} out`);
  return `Cost: ${parts.length > 0 ? parts.join(', ') : 'not reported'}`;
}
