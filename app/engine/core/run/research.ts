import picomatch from 'picomatch';
import { globsOverlap, PICOMATCH_OPTIONS } from '../graph/glob.js';
import type { BriefKnowledge } from '../protocol/messages.js';
import type { Phase, Plan, Spec } from '../spec/model.js';

/**
 * Research-ahead without an agent: what a later phase will touch, looked up in the
 * merged tree while earlier phases still run. It writes only a planning document
 * (planning/research/phase-NN-research.md), never source files, so it can take any idle
 * slot. An agent-written research document, when one exists, is never overwritten.
 */
export interface ResearchInput {
  spec: Spec;
  phase: Phase;
  /** Files tracked on the integration branch now. */
  tracked: readonly string[];
  /** The commit those files are from. */
  commit: string;
  now: Date;
  /** What harness has learned that applies, by plan id (surfacing); each plan's brief will carry it too. */
  knowledge?: ReadonlyMap<string, readonly BriefKnowledge[]>;
}

export const RESEARCH_MARKER = '<!-- harness:research generated -->';

export function researchPath(phase: Phase): string {
  return `planning/research/phase-${phase.id}-research.md`;
}

export function researchDocument(input: ResearchInput): string {
  const { spec, phase } = input;
  const plans = phase.plans.map((id) => spec.planById.get(id)!);
  const earlier = spec.plans.filter((p) => Number(p.phase) < Number(phase.id));
  const out = researchHead(input, plans.length);
  const risks: string[] = [];
  for (const plan of plans) {
    const section = planSection(input, earlier, plan);
    out.push(...section.lines);
    risks.push(...section.risks);
  }
  const inPhase = sharedWrites(plans);
  out.push('## Risks', '', ...(risks.length + inPhase.length > 0 ? [...risks, ...inPhase].map((r) => `- ${r}`) : ['None found.']), '');
  return `${out.filter((l, i, all) => !(l === '' && all[i - 1] === '')).join('\n')}\n`;
}

/** The front matter (spec, phase, when, from which commit), the marker and the title. */
function researchHead(input: ResearchInput, planCount: number): string[] {
  const { spec, phase } = input;
  return [
    '---',
    `spec: ${spec.id}`,
    `phase: "${phase.id}"`,
    `generated: ${input.now.toISOString()}`,
    `commit: ${input.commit.slice(0, 12)}`,
    '---',
    RESEARCH_MARKER,
    '',
    `# Research: phase ${phase.id} · ${phase.title}`,
    '',
    phase.goal ? `**Goal:** ${phase.goal}\n` : '',
    `What the phase's ${planCount} plans will touch, looked up on the merged work at \`${input.commit.slice(0, 7)}\`.`,
    '',
  ];
}

/** A plan's section (what its globs match now and which earlier plans write them, its earlier phases, what was learned) and its risks. */
function planSection(input: ResearchInput, earlier: readonly Plan[], plan: Plan): { lines: string[]; risks: string[] } {
  const lines = [`## ${plan.id} ${plan.title}`, ''];
  const risks: string[] = [];
  for (const [label, globs] of [
    ['Writes', plan.filesModified],
    ['Reads', plan.filesRead],
  ] as const) {
    if (globs.length === 0) continue;
    lines.push(`**${label}:**`, '');
    for (const glob of globs) {
      const { line, missing } = globLine(input.tracked, earlier, glob);
      lines.push(line);
      if (label === 'Reads' && missing) {
        risks.push(`${plan.id} reads \`${glob}\`, which does not exist and which no earlier plan writes.`);
      }
    }
    lines.push('');
  }
  const deps = plan.dependsOn.filter((d) => !input.phase.plans.includes(d));
  if (deps.length > 0) lines.push(`Depends on earlier phases: ${deps.join(', ')}.`, '');
  const learned = input.knowledge?.get(plan.id) ?? [];
  if (learned.length > 0) {
    lines.push('**Learned before (knowledge store):**', '', ...learned.map((k) => `- \`${k.path}\` (${k.kind}): ${k.title}${k.why ? ` (${k.why})` : ''}`), '');
  }
  return { lines, risks };
}

/** One glob's line: the tracked files it matches now and the earlier plans that write it; `missing` when there are neither. */
function globLine(tracked: readonly string[], earlier: readonly Plan[], glob: string): { line: string; missing: boolean } {
  const match = picomatch(glob, PICOMATCH_OPTIONS);
  const existing = tracked.filter((f) => match(f));
  const producers = earlier.filter((p) => p.filesModified.some((g) => globsOverlap(g, glob))).map((p) => p.id);
  const state =
    existing.length > 0
      ? `${existing.length} file${existing.length === 1 ? '' : 's'} now (${existing
          .slice(0, 5)
          .map((f) => `\`${f}\``)
          .join(', ')}${existing.length > 5 ? ', …' : ''})`
      : 'nothing yet';
  const from = producers.length > 0 ? `; written earlier by ${producers.join(', ')}` : '';
  return { line: `- \`${glob}\`: ${state}${from}`, missing: existing.length === 0 && producers.length === 0 };
}

/** Pairs of the phase's plans that write overlapping globs, and so run one after the other. */
function sharedWrites(plans: readonly Plan[]): string[] {
  const inPhase: string[] = [];
  for (let i = 0; i < plans.length; i++) {
    for (let j = i + 1; j < plans.length; j++) {
      const a = plans[i]!;
      const b = plans[j]!;
      const shared = a.filesModified.find((g) => b.filesModified.some((h) => globsOverlap(g, h)));
      if (shared) inPhase.push(`${a.id} and ${b.id} both write \`${shared}\`; they run one after the other.`);
    }
  }
  return inPhase;
}
