import { plural } from '../core/plural.js';
import { analyzeGraph } from '../core/analysis/analyze.js';
import { graphMermaid } from '../core/analysis/render.js';
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
 * progress, progress per phase, the dependency graph coloured by each plan's status, and
 * a table of plan → issue → status. Nothing in it changes unless a plan's issue or status
 * does (no timestamps), so that refreshing it writes only when there is news. Kept within
 * `maxChars`: the plan table goes first, then the graph.
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
    ...spec.phases.map((ph) => `| ${ph.id} · ${cell(ph.title)} | ${ph.plans.length} | ${count('verified', ph.plans)} | ${bar(count('verified', ph.plans), ph.plans.length)} |`),
  ];
  const graph = ['', '```mermaid', graphMermaid(spec, analyzeGraph(spec), states).trimEnd(), '```'];
  const table = [
    '',
    '| Plan | Issue | Status | Needs |',
    '|---|---|---|---|',
    ...spec.plans.map((p) => {
      const issue = issues.get(p.id);
      return `| ${p.id} ${cell(p.title)} | ${issue ? `#${issue.number}` : '—'} | ${SHOWN[states.get(p.id)!]} | ${p.dependsOn.length > 0 ? p.dependsOn.join(', ') : '—'} |`;
    }),
  ];
  const foot = ['', `harness keeps this comment up to date. Queue plans with \`/harness execute all\`, a phase (\`/harness execute 01\`) or a plan (\`/harness execute ${spec.plans[0]?.id ?? '01-01'}\`).`];

  const compose = (...parts: string[][]) => `${parts.flat().join('\n')}\n`;
  const full = compose(head, graph, table, foot);
  if (full.length <= maxChars) return full;
  const noTable = compose(head, graph, ['', '_The plan table does not fit in a comment; each plan issue shows its status._'], foot);
  if (noTable.length <= maxChars) return noTable;
  return compose(head, ['', '_The graph and the plan table do not fit in a comment; `harness graph` draws the graph, and each plan issue shows its status._'], foot).slice(0, maxChars);
}
