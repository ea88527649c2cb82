import { plural } from '../core/plural.js';
import { comparePlanIds } from '../core/spec/model.js';
import { expectedStatus, isRemoved, isSatisfied, type PlanIssueView } from './plan-issue-view.js';

/** A cell's text: a title may hold `|` or a line break, which would end the row. */
function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|');
}

/**
 * A plan's state as the App's records say (never its labels, which anyone with the triage role
 * can change): verified when done, its recorded status, ready or blocked when queued by what
 * it needs, or `planned` before it is queued.
 */
function recordedState(view: PlanIssueView, byPlan: ReadonlyMap<string, PlanIssueView>): string {
  const queuedAs = !view.needsUnknown && view.needs.every((d) => byPlan.get(d) !== undefined && isSatisfied(byPlan.get(d)!)) ? 'ready' : 'blocked';
  return expectedStatus(view, queuedAs) ?? 'planned';
}

/**
 * `/harness status`: the spec's progress in one line, then its plans in a table. Read from
 * the plan issues alone, so it shows what the scheduler sees.
 */
export function statusTable(spec: string, views: readonly PlanIssueView[]): string {
  const live = views.filter((v) => !isRemoved(v)).sort((a, b) => comparePlanIds(a.plan, b.plan));
  if (live.length === 0) return `**${spec}** has no plan issues yet: they are made when the spec's pull request passes the \`harness / spec\` check.`;
  const byPlan = new Map(live.map((v) => [v.plan, v]));
  const stateOf = (v: PlanIssueView) => recordedState(v, byPlan);
  const counts = new Map<string, number>();
  for (const v of live) counts.set(stateOf(v), (counts.get(stateOf(v)) ?? 0) + 1);
  const verified = counts.get('verified') ?? 0;
  const others = ['running', 'checkpoint', 'ready', 'blocked', 'failed', 'planned'].filter((s) => (counts.get(s) ?? 0) > 0).map((s) => `${counts.get(s)} ${s}`);
  const lines = [
    `**${spec}**: ${verified} of ${plural(live.length, 'plan')} verified${others.length > 0 ? ` · ${others.join(' · ')}` : ''}`,
    '',
    '| plan | phase | title | status | issue |',
    '|---|---|---|---|---|',
    ...live.map((v) => `| ${v.plan} | ${v.phase} | ${cell(v.title)} | ${stateOf(v)} | #${v.number} |`),
  ];
  return lines.join('\n');
}
