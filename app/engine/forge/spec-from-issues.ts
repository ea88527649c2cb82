import { comparePlanIds, phaseNumber, planPhase, type Phase, type Plan, type Spec } from '../core/spec/model.js';
import { parsePlan } from '../core/spec/plan.js';
import { parseMarker, planTextFromBody } from './plan-issue.js';
import { PLAN_READING } from '../importers/dialects.js';

/** What a spec's plan issues tell, for those who have the issues but not the spec's files. */
export interface IssueView {
  body: string | null;
  state: 'open' | 'closed';
  stateReason: string | null;
}

const SPEC_LINE = /\*\*Spec\*\* \[(\S+) (.+?)\]\(/;
const PHASE_LINE = /\*\*Phase\*\* (\d+) (.+?) · \*\*Plan\*\*/;

/**
 * The spec as its plan issues carry it: each body holds the plan's text and a header line
 * naming the spec's and the phase's titles. A scheduling round has the issue list already,
 * so this costs no request, where reading the spec from the repository would cost one per
 * file. Plans the App recorded as removed from the spec (`removed=`) are left out; a body that no
 * longer parses leaves its plan out rather than failing the round.
 */
export function specFromIssues(specId: string, issues: readonly IssueView[]): Spec | undefined {
  let title: string | undefined;
  const phaseTitles = new Map<string, string>();
  const plans: Plan[] = [];
  const seen = new Set<string>();
  for (const issue of issues) {
    const marker = parseMarker(issue.body);
    if (!marker || marker.spec !== specId || seen.has(marker.plan)) continue;
    if (marker.removed !== undefined) continue;
    const text = planTextFromBody(issue.body);
    if (text === undefined) continue;
    const phase = planPhase(marker.plan);
    const parsed = parsePlan(`planning/plans/${phase}/${marker.plan}-PLAN.md`, text, phase, PLAN_READING).plan;
    if (!parsed || parsed.id !== marker.plan) continue;
    seen.add(parsed.id);
    plans.push(parsed);
    title ??= SPEC_LINE.exec(issue.body ?? '')?.[2];
    const phaseTitle = PHASE_LINE.exec(issue.body ?? '')?.[2];
    if (phaseTitle && !phaseTitles.has(phase)) phaseTitles.set(phase, phaseTitle);
  }
  if (plans.length === 0) return undefined;
  plans.sort((a, b) => comparePlanIds(a.id, b.id));
  const phases = new Map<string, Phase>();
  for (const plan of plans) {
    let phase = phases.get(plan.phase);
    if (!phase) {
      phase = { id: plan.phase, number: phaseNumber(plan.phase), title: phaseTitles.get(plan.phase) ?? `Phase ${plan.phase}`, plans: [], mustPass: [] };
      phases.set(plan.phase, phase);
    }
    phase.plans.push(plan.id);
  }
  // Dependencies on plans no longer among the issues would make the graph lie: keep the known ones.
  const known = new Set(plans.map((p) => p.id));
  for (const plan of plans) plan.dependsOn = plan.dependsOn.filter((d) => known.has(d));
  return {
    id: specId,
    title: title ?? specId,
    phases: [...phases.values()].sort((a, b) => a.number - b.number),
    plans,
    planById: new Map(plans.map((p) => [p.id, p])),
  };
}
