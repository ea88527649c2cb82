/**
 * A planning job on the worker. The worker workflow checks out `harness/<spec>/<plan>`, so a
 * planning command is dispatched with the plan input `planning/<pull>/<comment>`: the App
 * claims `harness/<spec>/planning/<pull>/<comment>` at the spec PR's head (the atomic claim: a
 * redelivered comment finds it taken), the worker reads the command back from that comment —
 * so the arguments need no input of their own and the author is checked again — and pushes
 * the documents to the PR's own branch. No plan id has a slash, so nothing else reads it.
 */
export interface PlanningTarget {
  kind: 'planning';
  pull: number;
  comment: number;
}

const INPUT = /^planning\/([1-9]\d{0,9})\/([1-9]\d{0,19})$/;

export function planningInput(target: Omit<PlanningTarget, 'kind'>): string {
  return `planning/${target.pull}/${target.comment}`;
}

export function parsePlanningInput(input: string): PlanningTarget | undefined {
  const m = INPUT.exec(input);
  return m ? { kind: 'planning', pull: Number(m[1]), comment: Number(m[2]) } : undefined;
}

/** The branch the worker checks out: the App's claim on the job. */
export function planningBranch(spec: string, target: Omit<PlanningTarget, 'kind'>): string {
  return `harness/${spec}/${planningInput(target)}`;
}

/** The check run that reports planning jobs on the spec PR. */
export const PLANNING_CHECK = 'harness / planning';

export function planningExternalId(spec: string, target: Omit<PlanningTarget, 'kind'>): string {
  return `${spec}/${planningInput(target)}`;
}

/** The worker run's title, as the workflow's run-name makes it. */
export function planningRunTitle(spec: string, target: Omit<PlanningTarget, 'kind'>): string {
  return `harness ${planningExternalId(spec, target)}`;
}

/** The marker of the comment that asks a phase's questions: answers are read after the latest one. */
export function discussMarker(spec: string, phase: string): string {
  return `<!-- harness:discuss ${spec} ${phase} -->`;
}

/**
 * Research ahead (docs/github-flow.md, 11): the worker's plan input `research-PP` checks out
 * `harness/<spec>/research-PP`, the round's claim at the base head, where the worker commits
 * the phase's research document and opens a pull request for it. The branch is the record:
 * while it exists, the phase is not researched again.
 */
export interface ResearchTarget {
  kind: 'research';
  phase: string;
}

const RESEARCH_INPUT = /^research-(\d{2,})$/;

export function researchInput(phase: string): string {
  return `research-${phase}`;
}

export function parseResearchInput(input: string): ResearchTarget | undefined {
  const m = RESEARCH_INPUT.exec(input);
  return m ? { kind: 'research', phase: m[1]! } : undefined;
}

export function researchBranch(spec: string, phase: string): string {
  return `harness/${spec}/${researchInput(phase)}`;
}
