import type { PlanState } from '../state/plan-state.js';
import { plural } from '../plural.js';
import type { Spec } from '../spec/model.js';
import type { GraphAnalysis } from './analyze.js';
import { oneLine } from '../spec/problem.js';

/** The stable `harness graph --format json` document (see docs/cli.md: JSON output). */
export interface GraphJson {
  spec: { id: string; title: string };
  phases: { id: string; title: string; plans: string[]; checks: number }[];
  plans: {
    id: string;
    title: string;
    phase: string;
    file: string;
    dependsOn: string[];
    filesModified: string[];
    filesRead: string[];
    checks: number;
    autonomous: boolean;
    remaining: number;
  }[];
  edges: { from: string; to: string }[];
  topologicalOrder: string[];
  criticalPath: { plans: string[]; length: number };
  conflicts: { plans: [string, string]; globs: [string, string] }[];
}

export function graphJson(spec: Spec, analysis: GraphAnalysis): GraphJson {
  const ids = analysis.graph.ids;
  return {
    spec: { id: spec.id, title: spec.title },
    phases: spec.phases.map((p) => ({ id: p.id, title: p.title, plans: p.plans, checks: p.mustPass.length })),
    plans: spec.plans.map((p, i) => ({
      id: p.id,
      title: p.title,
      phase: p.phase,
      file: p.file,
      dependsOn: p.dependsOn,
      filesModified: p.filesModified,
      filesRead: p.filesRead,
      checks: p.mustPass.length,
      autonomous: p.autonomous,
      remaining: analysis.critical.remaining[i]!,
    })),
    edges: spec.plans.flatMap((p, i) => analysis.graph.deps[i]!.map((d) => ({ from: ids[d]!, to: p.id }))),
    topologicalOrder: analysis.order.map((i) => ids[i]!),
    criticalPath: { plans: analysis.critical.path.map((i) => ids[i]!), length: analysis.critical.length },
    conflicts: analysis.conflicts.map((c) => ({ plans: [ids[c.a]!, ids[c.b]!], globs: c.globs })),
  };
}

/**
 * Conflicts a person reads one by one: when most plans overlap there are millions (3,000
 * plans sharing docs/*.md: 1.6 million, 72 MB of text), which helps nobody in a terminal.
 */
export const MAX_LISTED_CONFLICTS = 200;

export function graphText(spec: Spec, analysis: GraphAnalysis): string {
  const ids = analysis.graph.ids;
  const out: string[] = [];
  out.push(
    `${spec.id} ${oneLine(spec.title)}: ${plural(spec.phases.length, 'phase')}, ${plural(spec.plans.length, 'plan')}, ${plural(analysis.graph.edgeCount, 'dependency', 'dependencies')}`,
  );
  const byId = spec.planById;
  const width = Math.min(48, Math.max(0, ...spec.plans.map((p) => p.id.length + 1 + p.title.length)));
  for (const phase of spec.phases) {
    out.push('', `Phase ${phase.id} · ${oneLine(phase.title)}${phase.mustPass.length ? ` (${plural(phase.mustPass.length, 'phase check')})` : ''}`);
    for (const id of phase.plans) {
      const plan = byId.get(id)!;
      const label = `${plan.id} ${oneLine(plan.title)}`;
      const deps = plan.dependsOn.length ? `  ← ${plan.dependsOn.join(', ')}` : '';
      out.push(`  ${label.length > width ? `${label.slice(0, width - 1)}…` : label.padEnd(width)}${deps}`);
    }
  }
  out.push('', `Critical path (${plural(analysis.critical.length, 'unit')}): ${analysis.critical.path.map((i) => ids[i]).join(' → ') || '(none)'}`);
  out.push(`Topological order: ${analysis.order.map((i) => ids[i]).join(', ') || '(none)'}`);
  if (analysis.conflicts.length > 0) {
    out.push('', 'Write conflicts (never run at the same time):');
    for (const c of analysis.conflicts.slice(0, MAX_LISTED_CONFLICTS)) out.push(`  ${ids[c.a]} × ${ids[c.b]}  ${oneLine(c.globs[0])} ∩ ${oneLine(c.globs[1])}`);
    const more = analysis.conflicts.length - MAX_LISTED_CONFLICTS;
    if (more > 0)
      out.push(`  … and ${more.toLocaleString('en-US')} more (${analysis.conflicts.length.toLocaleString('en-US')} in all; --format json lists every one)`);
  } else out.push('No write conflicts between plans that could run at once.');
  return `${out.join('\n')}\n`;
}

/** Mermaid refuses diagrams over 50,000 characters (its default maxTextSize). */
export const MERMAID_MAX_TEXT = 50_000;

const STATE_STYLES: Record<PlanState, string> = {
  pending: 'fill:#f6f8fa,stroke:#8c959f,color:#24292f',
  ready: 'fill:#ddf4ff,stroke:#0969da,color:#0a3069',
  running: 'fill:#fff8c5,stroke:#bf8700,color:#4d2d00',
  blocked: 'fill:#eaeef2,stroke:#57606a,color:#57606a,stroke-dasharray:4 3',
  checkpoint: 'fill:#fbefff,stroke:#8250df,color:#3e1f79',
  verified: 'fill:#dafbe1,stroke:#1a7f37,color:#044f1e',
  failed: 'fill:#ffebe9,stroke:#cf222e,color:#82071e',
};

function nodeId(planId: string): string {
  return `p${planId.replace(/[^A-Za-z0-9]/g, '_')}`;
}

function label(text: string): string {
  return text
    .replace(/"/g, '#quot;')
    .replace(/</g, '#lt;')
    .replace(/>/g, '#gt;')
    .replace(/[\r\n]+/g, ' ');
}

/**
 * The dependency graph as a Mermaid flowchart, a subgraph per phase, the critical path
 * drawn heavy, and plans coloured by state when states are given. A graph too large
 * for Mermaid collapses to one node per phase.
 */
export function graphMermaid(spec: Spec, analysis: GraphAnalysis, states?: ReadonlyMap<string, PlanState>): string {
  const full = mermaidByPlan(spec, analysis, states);
  return full.length <= MERMAID_MAX_TEXT ? full : mermaidByPhase(spec, analysis, states);
}

function mermaidByPlan(spec: Spec, analysis: GraphAnalysis, states?: ReadonlyMap<string, PlanState>): string {
  const ids = analysis.graph.ids;
  const lines = ['flowchart LR'];
  for (const phase of spec.phases) {
    lines.push(`  subgraph phase_${phase.id}["Phase ${phase.id} · ${label(phase.title)}"]`);
    for (const id of phase.plans) lines.push(`    ${nodeId(id)}["${id} ${label(spec.planById.get(id)!.title)}"]`);
    lines.push('  end');
  }
  spec.plans.forEach((p, i) => {
    for (const d of analysis.graph.deps[i]!) lines.push(`  ${nodeId(ids[d]!)} --> ${nodeId(p.id)}`);
  });
  appendStyles(lines, spec, states);
  if (analysis.critical.path.length > 1) {
    lines.push('  classDef critical stroke-width:3px');
    lines.push(`  class ${analysis.critical.path.map((i) => nodeId(ids[i]!)).join(',')} critical`);
  }
  return `${lines.join('\n')}\n`;
}

function appendStyles(lines: string[], spec: Spec, states?: ReadonlyMap<string, PlanState>): void {
  if (!states) return;
  const groups = new Map<PlanState, string[]>();
  for (const p of spec.plans) {
    const state = states.get(p.id) ?? 'pending';
    groups.set(state, [...(groups.get(state) ?? []), nodeId(p.id)]);
  }
  for (const [state, nodes] of groups) {
    lines.push(`  classDef ${state} ${STATE_STYLES[state]}`);
    lines.push(`  class ${nodes.join(',')} ${state}`);
  }
}

function mermaidByPhase(spec: Spec, analysis: GraphAnalysis, states?: ReadonlyMap<string, PlanState>): string {
  const lines = ['flowchart LR'];
  const phaseOf = new Map(spec.plans.map((p) => [p.id, p.phase]));
  for (const phase of spec.phases) {
    const done = states ? phase.plans.filter((id) => states.get(id) === 'verified').length : 0;
    const count = states ? `${done}/${phase.plans.length} verified` : plural(phase.plans.length, 'plan');
    lines.push(`  phase_${phase.id}["Phase ${phase.id} · ${label(phase.title)}<br/>${count}"]`);
  }
  const edges = new Set<string>();
  spec.plans.forEach((p, i) => {
    for (const d of analysis.graph.deps[i]!) {
      const from = phaseOf.get(analysis.graph.ids[d]!)!;
      if (from !== p.phase) edges.add(`  phase_${from} --> phase_${p.phase}`);
    }
  });
  lines.push(...edges);
  return `${lines.join('\n')}\n`;
}
