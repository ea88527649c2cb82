import { renderTemplate } from '../documents/render-template.js';
import { averageMinutes, progressPercent } from '../documents/status.js';
import type { GraphAnalysis } from '../analysis/analyze.js';
import { graphMermaid } from '../analysis/render.js';
import { timelineMermaid } from '../analysis/timeline.js';
import { spendMarkdown, spendOf } from './spend.js';
import type { Spec } from '../spec/model.js';
import type { RunSnapshot } from './snapshot.js';
import { DONE_BEFORE_IMPORT, doneBeforeImport } from './done-before-import.js';

export type SpecStatus = 'planning' | 'executing' | 'verifying' | 'blocked' | 'complete' | 'failed';

export interface Progress {
  status: SpecStatus;
  currentPhase: string | null;
  plansTotal: number;
  /** Verified by harness: its checks ran and passed. */
  plansVerified: number;
  /** Done before harness (imported with `completed:`): never run or checked by harness. */
  plansDoneBeforeImport: number;
  phasesTotal: number;
  phasesVerified: number;
  phasesDoneBeforeImport: number;
  /** Of the plans, done either way. */
  percent: number;
  plansCompleted: number;
  totalMinutes: number;
  averageMinutes: number;
}

/** The figures STATUS.md and `harness status` show. */
export function progressOf(spec: Spec, snapshot: RunSnapshot): Progress {
  const before = doneBeforeImport(spec);
  const states = [...spec.plans].map((p) => snapshot.plans.get(p.id) ?? 'pending');
  const plansDoneBeforeImport = spec.plans.filter((p) => before.plans.has(p.id) && snapshot.plans.get(p.id) === 'verified').length;
  const plansVerified = states.filter((s) => s === 'verified').length - plansDoneBeforeImport;
  const phasesDoneBeforeImport = spec.phases.filter((p) => before.phases.has(p.id) && snapshot.phases.get(p.id) === 'verified').length;
  const phasesVerified = spec.phases.filter((p) => snapshot.phases.get(p.id) === 'verified').length - phasesDoneBeforeImport;
  const plansDone = plansVerified + plansDoneBeforeImport;
  const phasesDone = phasesVerified + phasesDoneBeforeImport;
  const minutes = [...snapshot.minutes.values()];
  const totalMinutes = Math.round(minutes.reduce((a, b) => a + b, 0) * 10) / 10;
  const current = spec.phases.find((p) => snapshot.phases.get(p.id) !== 'verified');
  const anyActive = states.some((s) => s === 'running' || s === 'checkpoint');
  const anyFailed = states.some((s) => s === 'failed') || spec.phases.some((p) => snapshot.phases.get(p.id) === 'failed');
  const complete = plansDone === spec.plans.length && phasesDone === spec.phases.length;
  let status: SpecStatus;
  if (complete) status = 'complete';
  else if (anyActive) status = 'executing';
  else if (spec.phases.some((p) => snapshot.phases.get(p.id) === 'verifying')) status = 'verifying';
  else if (anyFailed) status = 'failed';
  else if (states.some((s) => s === 'blocked')) status = 'blocked';
  else if (plansVerified > 0) status = 'executing';
  else status = 'planning';
  return {
    status,
    currentPhase: complete ? null : (current?.id ?? null),
    plansTotal: spec.plans.length,
    plansVerified,
    plansDoneBeforeImport,
    phasesTotal: spec.phases.length,
    phasesVerified,
    phasesDoneBeforeImport,
    percent: progressPercent(plansDone, spec.plans.length),
    plansCompleted: minutes.length,
    totalMinutes,
    averageMinutes: averageMinutes(totalMinutes, minutes.length),
  };
}

/** "3/10 plans verified · 1/3 phases verified", and what was done before import, apart. */
export function progressCounts(p: Progress, verified = ' verified'): string {
  const plans = `${p.plansVerified}/${p.plansTotal} plans${verified}${p.plansDoneBeforeImport > 0 ? ` (${p.plansDoneBeforeImport} more ${DONE_BEFORE_IMPORT})` : ''}`;
  const phases = `${p.phasesVerified}/${p.phasesTotal} phases${verified}${p.phasesDoneBeforeImport > 0 ? ` (${p.phasesDoneBeforeImport} more ${DONE_BEFORE_IMPORT})` : ''}`;
  return `${plans} · ${phases}`;
}

/** Where the time went (analysis/timeline.ts), fenced for GitHub to draw; a line before any plan ran. */
function timelineSection(spec: Spec, analysis: GraphAnalysis, snapshot: RunSnapshot): string {
  const chart = timelineMermaid(spec, analysis, snapshot.spans ?? new Map(), snapshot.plans, snapshot.now);
  return chart === undefined ? 'No plan has run yet.' : `\`\`\`mermaid\n${chart.trimEnd()}\n\`\`\``;
}

/** STATUS.md, from templates/STATUS.md: progress and velocity up top, the graph coloured by state. */
export function statusDocument(template: string, spec: Spec, analysis: GraphAnalysis, snapshot: RunSnapshot): string {
  const p = progressOf(spec, snapshot);
  const spent = planCosts(spec, snapshot);
  return renderTemplate(template, statusFrontmatter(spec, p, spent, snapshot), {
    title: spec.title,
    summary: summarySection(spec, p, spent, snapshot),
    graph: graphMermaid(spec, analysis, snapshot.plans).trimEnd(),
    timeline: timelineSection(spec, analysis, snapshot),
    spend: spendMarkdown(snapshot.uses ? spendOf(spec, snapshot.uses) : undefined),
    blocked: blockedSection(spec, snapshot),
    activity:
      snapshot.activity.length > 0
        ? snapshot.activity
            .slice(-10)
            .map((a) => `- ${a.at} ${a.text}`)
            .join('\n')
        : 'No activity yet.',
  });
}

/** What the agents reported they spent: per plan (in spec order), and in all. */
interface PlanCosts {
  costs: [string, number][];
  total: number;
}

/** The plans' reported costs, each and in all to the cent, as people read money. */
function planCosts(spec: Spec, snapshot: RunSnapshot): PlanCosts {
  const costs = spec.plans.flatMap((plan): [string, number][] => {
    const usd = snapshot.costs?.get(plan.id);
    return usd === undefined ? [] : [[plan.id, Math.round(usd * 100) / 100]];
  });
  const total = Math.round(costs.reduce((sum, [, usd]) => sum + usd, 0) * 100) / 100;
  return { costs, total };
}

/** STATUS.md's front matter: the status, progress, velocity, cost (when any was reported) and when. */
function statusFrontmatter(spec: Spec, p: Progress, { costs, total }: PlanCosts, snapshot: RunSnapshot): Record<string, unknown> {
  return {
    spec: spec.id,
    title: spec.title,
    status: p.status,
    current_phase: p.currentPhase,
    progress: {
      plans_total: p.plansTotal,
      plans_verified: p.plansVerified,
      phases_total: p.phasesTotal,
      phases_verified: p.phasesVerified,
      ...(p.plansDoneBeforeImport > 0 ? { plans_done_before_import: p.plansDoneBeforeImport } : {}),
      ...(p.phasesDoneBeforeImport > 0 ? { phases_done_before_import: p.phasesDoneBeforeImport } : {}),
      percent: p.percent,
    },
    velocity: { plans_completed: p.plansCompleted, total_minutes: p.totalMinutes, average_minutes_per_plan: p.averageMinutes },
    ...(costs.length > 0 ? { cost: { total_usd: total, plans: Object.fromEntries(costs) } } : {}),
    updated: snapshot.now.toISOString(),
  };
}

/** The status line, a row per phase (plans verified, its check) and the cost so far. */
function summarySection(spec: Spec, p: Progress, { costs, total }: PlanCosts, snapshot: RunSnapshot): string {
  const before = doneBeforeImport(spec);
  return [
    `**${p.status}** · ${progressCounts(p)} · ${p.percent}%`,
    '',
    '| Phase | Title | Plans verified | Phase check |',
    '|---|---|---|---|',
    ...spec.phases.map((phase) => {
      const done = phase.plans.filter((id) => snapshot.plans.get(id) === 'verified' && !before.plans.has(id)).length;
      const earlier = phase.plans.filter((id) => before.plans.has(id)).length;
      const check = before.phases.has(phase.id) ? DONE_BEFORE_IMPORT : (snapshot.phases.get(phase.id) ?? 'pending');
      return `| ${phase.id} | ${phase.title} | ${done}/${phase.plans.length}${earlier > 0 ? ` (${earlier} ${DONE_BEFORE_IMPORT})` : ''} | ${check} |`;
    }),
    ...(costs.length > 0
      ? ['', `Cost so far: **$${total.toFixed(2)}** (${costs.map(([id, usd]) => `${id} $${usd.toFixed(2)}`).join(', ')}), as the agents reported it.`]
      : []),
  ].join('\n');
}

/** A line per plan blocked, failed or paused, with why; or that nothing is. */
function blockedSection(spec: Spec, snapshot: RunSnapshot): string {
  const blocked = spec.plans.filter((plan) => {
    const s = snapshot.plans.get(plan.id);
    return s === 'blocked' || s === 'failed' || snapshot.paused?.has(plan.id);
  });
  // A plan paused at the usage limit is held, not failed: when it goes on is what a reader needs.
  const line = (plan: { id: string; title: string }) => {
    const until = snapshot.paused?.get(plan.id);
    if (until !== undefined) return `- ${plan.id} ${plan.title}: paused — the model's usage limit; harness run resumes it after ${until}`;
    return `- ${plan.id} ${plan.title}: ${snapshot.plans.get(plan.id)}${snapshot.reasons.has(plan.id) ? ` — ${snapshot.reasons.get(plan.id)}` : ''}`;
  };
  return blocked.length > 0 ? blocked.map(line).join('\n') : 'Nothing is blocked.';
}
