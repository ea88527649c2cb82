import { plural } from '../core/plural.js';
import { analyzeGraph } from '../core/analysis/analyze.js';
import { graphMermaid } from '../core/analysis/render.js';
import { timelineMermaid, type PlanSpan } from '../core/analysis/timeline.js';
import { spendMarkdown, spendOf, type PlanUse } from '../core/run/spend.js';
import { barsOf, planUseOf } from './run-record.js';
import type { PlanState } from '../core/state/plan-state.js';
import type { Spec } from '../core/spec/model.js';
import { statusLabel, statusMarker } from './names.js';
import { parseMarker } from './plan-issue.js';

/** What the status comment needs of a plan's issue. */
export interface StatusIssue {
  number: number;
  labels: readonly string[];
  body: string | null;
}

/**
 * A plan's state as the App's records on its issue's marker line say (`verified=`, `status=`),
 * for display: never its labels, which anyone with the triage role can change, except to tell
 * a queued plan's `ready` from `blocked`, which a round has just written from what it needs.
 * No record means planned but not queued.
 */
export function displayedState(issue: StatusIssue | undefined): PlanState {
  const marker = parseMarker(issue?.body);
  if (marker?.verified !== undefined) return 'verified';
  if (marker?.status === undefined) return 'pending';
  if (marker.status !== 'queued') return marker.status;
  return issue!.labels.includes(statusLabel('blocked')) ? 'blocked' : 'ready';
}

const SHOWN: Record<PlanState, string> = {
  pending: '⚪ planned',
  ready: '🔵 ready',
  running: '🟡 running',
  blocked: '⏸️ blocked',
  checkpoint: '🟣 checkpoint',
  verified: '✅ verified',
  failed: '❌ failed',
};

const BAR_WIDTH = 10;

function bar(done: number, total: number): string {
  const filled = total === 0 ? 0 : Math.round((done / total) * BAR_WIDTH);
  return `\`${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}\` ${total === 0 ? 0 : Math.floor((done / total) * 100)}%`;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');
}

/**
 * The sticky status comment on a spec PR: its marker first (how it is found again), overall
 * progress, progress per phase, the dependency graph coloured by each plan's status, where the
 * time went (a gantt of every worker run that ended, by stage) and where the money went (the
 * spend by phase, engine and the costliest plans), both from the runs the workers recorded on
 * the plan issues (`runs=`, run-record.ts), and a table of plan → issue → status. Nothing in it
 * changes unless a plan's issue, status or recorded runs do (no clock: a run shows once it
 * ended), so that refreshing it writes only when there is news. Kept within `maxChars`: the
 * plan table goes first, then the graph, then the timeline, then the spend.
 */
export function statusComment(spec: Spec, issues: ReadonlyMap<string, StatusIssue>, maxChars: number): string {
  const states = new Map(spec.plans.map((p) => [p.id, displayedState(issues.get(p.id))]));
  const count = (state: PlanState, ids: readonly string[] = spec.plans.map((p) => p.id)) => ids.filter((id) => states.get(id) === state).length;
  const total = spec.plans.length;
  const tally = (['running', 'checkpoint', 'ready', 'blocked', 'failed', 'pending'] as const)
    .map((s) => [s, count(s)] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${SHOWN[s].split(' ')[1]}`);

  const head = [
    statusMarker(spec.id),
    `### harness · ${spec.id} ${spec.title}`,
    '',
    `**${count('verified')} of ${plural(total, 'plan')} verified** ${bar(count('verified'), total)}${tally.length > 0 ? ` · ${tally.join(' · ')}` : ''}`,
    '',
    '| Phase | Plans | Verified | Progress |',
    '|---|---:|---:|---|',
    ...spec.phases.map(
      (ph) => `| ${ph.id} · ${cell(ph.title)} | ${ph.plans.length} | ${count('verified', ph.plans)} | ${bar(count('verified', ph.plans), ph.plans.length)} |`,
    ),
  ];
  const analysis = analyzeGraph(spec);
  const graph = ['', '```mermaid', graphMermaid(spec, analysis, states).trimEnd(), '```'];
  const { spans, uses } = recordedRuns(spec, issues);
  const latest = [...spans.values()]
    .map((s) => s.end!)
    .sort()
    .at(-1);
  const chart = latest === undefined ? undefined : timelineMermaid(spec, analysis, spans, states, new Date(latest));
  const timeline = chart === undefined ? [] : ['', '#### Where the time went', '', '```mermaid', chart.trimEnd(), '```'];
  const spend = spendOf(spec, uses);
  const money = spend === undefined ? [] : ['', '#### Where the money went', '', spendMarkdown(spend, COMMENT_SPEND_PLANS)];
  const table = [
    '',
    '| Plan | Issue | Status | Needs |',
    '|---|---|---|---|',
    ...spec.plans.map((p) => {
      const issue = issues.get(p.id);
      return `| ${p.id} ${cell(p.title)} | ${issue ? `#${issue.number}` : '—'} | ${SHOWN[states.get(p.id)!]} | ${p.dependsOn.length > 0 ? p.dependsOn.join(', ') : '—'} |`;
    }),
  ];
  const foot = [
    '',
    `harness keeps this comment up to date. Queue plans with \`/harness execute all\`, a phase (\`/harness execute 01\`) or a plan (\`/harness execute ${spec.plans[0]?.id ?? '01-01'}\`).`,
  ];

  const compose = (...parts: string[][]) => `${parts.flat().join('\n')}\n`;
  const full = compose(head, graph, timeline, money, table, foot);
  if (full.length <= maxChars) return full;
  const noTable = compose(head, graph, timeline, money, ['', '_The plan table does not fit in a comment; each plan issue shows its status._'], foot);
  if (noTable.length <= maxChars) return noTable;
  const left = '_The graph and the plan table do not fit in a comment; `harness graph` draws the graph, and each plan issue shows its status._';
  const noGraph = compose(head, timeline, money, ['', left], foot);
  if (noGraph.length <= maxChars) return noGraph;
  const noTimeline = compose(head, money, ['', left.replace('The graph and', 'The graph, the timeline and')], foot);
  if (noTimeline.length <= maxChars) return noTimeline;
  return compose(head, ['', left], foot).slice(0, maxChars);
}

/** The costliest plans the status comment lists. */
export const COMMENT_SPEND_PLANS = 5;

/** Each plan's recorded runs as timeline spans and as what they used. */
function recordedRuns(spec: Spec, issues: ReadonlyMap<string, StatusIssue>): { spans: Map<string, PlanSpan>; uses: Map<string, PlanUse> } {
  const spans = new Map<string, PlanSpan>();
  const uses = new Map<string, PlanUse>();
  for (const plan of spec.plans) {
    const runs = parseMarker(issues.get(plan.id)?.body)?.runs;
    const bars = barsOf(runs);
    if (bars.length > 0)
      spans.set(plan.id, {
        start: bars[0]!.start,
        end: bars
          .map((b) => b.end)
          .sort()
          .at(-1)!,
        bars,
      });
    const use = planUseOf(runs);
    if (use) uses.set(plan.id, use);
  }
  return { spans, uses };
}
