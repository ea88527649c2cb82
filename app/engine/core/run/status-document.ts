import { renderTemplate } from '../documents/render-template.js';
import { averageMinutes, progressPercent } from '../documents/status.js';
import type { GraphAnalysis } from '../analysis/analyze.js';
import { graphMermaid } from '../analysis/render.js';
import type { Spec } from '../spec/model.js';
import type { RunSnapshot } from './snapshot.js';

export type SpecStatus = 'planning' | 'executing' | 'verifying' | 'blocked' | 'complete' | 'failed';

export interface Progress {
  status: SpecStatus;
  currentPhase: string | null;
  plansTotal: number;
  plansVerified: number;
  phasesTotal: number;
  phasesVerified: number;
  percent: number;
  plansCompleted: number;
  totalMinutes: number;
  averageMinutes: number;
}

/** The figures STATUS.md and `harness status` show. */
export function progressOf(spec: Spec, snapshot: RunSnapshot): Progress {
  const states = [...spec.plans].map((p) => snapshot.plans.get(p.id) ?? 'pending');
  const plansVerified = states.filter((s) => s === 'verified').length;
  const phasesVerified = spec.phases.filter((p) => snapshot.phases.get(p.id) === 'verified').length;
  const minutes = [...snapshot.minutes.values()];
  const totalMinutes = Math.round(minutes.reduce((a, b) => a + b, 0) * 10) / 10;
  const current = spec.phases.find((p) => snapshot.phases.get(p.id) !== 'verified');
  const anyActive = states.some((s) => s === 'running' || s === 'checkpoint');
  const anyFailed = states.some((s) => s === 'failed') || spec.phases.some((p) => snapshot.phases.get(p.id) === 'failed');
  const complete = plansVerified === spec.plans.length && phasesVerified === spec.phases.length;
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
    phasesTotal: spec.phases.length,
    phasesVerified,
    percent: progressPercent(plansVerified, spec.plans.length),
    plansCompleted: minutes.length,
    totalMinutes,
    averageMinutes: averageMinutes(totalMinutes, minutes.length),
  };
}

/** STATUS.md, from templates/STATUS.md: progress and velocity up top, the graph coloured by state. */
export function statusDocument(template: string, spec: Spec, analysis: GraphAnalysis, snapshot: RunSnapshot): string {
  const p = progressOf(spec, snapshot);
  // What the agents reported they spent: per plan, and in all (to the cent, as people read money).
  const costs = spec.plans.flatMap((plan): [string, number][] => {
    const usd = snapshot.costs?.get(plan.id);
    return usd === undefined ? [] : [[plan.id, Math.round(usd * 100) / 100]];
  });
  const total = Math.round(costs.reduce((sum, [, usd]) => sum + usd, 0) * 100) / 100;
  const frontmatter = {
    spec: spec.id,
    title: spec.title,
    status: p.status,
    current_phase: p.currentPhase,
    progress: {
      plans_total: p.plansTotal,
      plans_verified: p.plansVerified,
      phases_total: p.phasesTotal,
      phases_verified: p.phasesVerified,
      percent: p.percent,
    },
    velocity: { plans_completed: p.plansCompleted, total_minutes: p.totalMinutes, average_minutes_per_plan: p.averageMinutes },
    ...(costs.length > 0 ? { cost: { total_usd: total, plans: Object.fromEntries(costs) } } : {}),
    updated: snapshot.now.toISOString(),
  };
  const blocked = spec.plans.filter((plan) => {
    const s = snapshot.plans.get(plan.id);
    return s === 'blocked' || s === 'failed';
  });
  return renderTemplate(template, frontmatter, {
    title: spec.title,
    summary: [
      `**${p.status}** · ${p.plansVerified}/${p.plansTotal} plans verified · ${p.phasesVerified}/${p.phasesTotal} phases verified · ${p.percent}%`,
      '',
      '| Phase | Title | Plans verified | Phase check |',
      '|---|---|---|---|',
      ...spec.phases.map((phase) => {
        const done = phase.plans.filter((id) => snapshot.plans.get(id) === 'verified').length;
        return `| ${phase.id} | ${phase.title} | ${done}/${phase.plans.length} | ${snapshot.phases.get(phase.id) ?? 'pending'} |`;
      }),
      ...(costs.length > 0 ? ['', `Cost so far: **$${total.toFixed(2)}** (${costs.map(([id, usd]) => `${id} $${usd.toFixed(2)}`).join(', ')}), as the agents reported it.`] : []),
    ].join('\n'),
    graph: graphMermaid(spec, analysis, snapshot.plans).trimEnd(),
    blocked:
      blocked.length > 0
        ? blocked.map((plan) => `- ${plan.id} ${plan.title}: ${snapshot.plans.get(plan.id)}${snapshot.reasons.has(plan.id) ? ` — ${snapshot.reasons.get(plan.id)}` : ''}`).join('\n')
        : 'Nothing is blocked.',
    activity: snapshot.activity.length > 0 ? snapshot.activity.slice(-10).map((a) => `- ${a.at} ${a.text}`).join('\n') : 'No activity yet.',
  });
}
