/** What a scheduling round decided, as far as research ahead needs it (engine/forge/round-plan.ts's RoundPlan has these). */
interface RoundView {
  /** Phase ids, in order. */
  phases: string[];
  /** Each plan's phase and where the App's records say it is (`state`: the marker's `status=`; `verified`: done). */
  plans: readonly { phase: string; state?: string | undefined; verified?: string | undefined }[];
  /** The plans the round dispatches now. */
  dispatch: readonly { phase: string }[];
  freeSlots: number;
}

/** How far ahead research runs: the next two phases after the one executing. */
export const RESEARCH_AHEAD = 2;

export interface ResearchAheadInput {
  round: RoundView;
  /** Phases whose research was claimed already (its branch exists: running, or done and waiting for review). */
  claimed: ReadonlySet<string>;
}

/** A plan that has begun: taken by a worker, or further along. */
function begun(p: RoundView['plans'][number]): boolean {
  return p.verified !== undefined || (p.state !== undefined && p.state !== 'queued');
}

/**
 * The phases to research ahead in this round (docs/github-flow.md, 11): while phase N executes
 * (a plan of it holds a slot), the slots no plan can use research N+1 and N+2, research
 * documents only. A phase none of whose plans has begun, not claimed before, one per idle slot.
 */
export function researchAheadPhases(input: ResearchAheadInput): string[] {
  const { round } = input;
  const idle = round.freeSlots - round.dispatch.length;
  if (idle <= 0) return [];
  const running = round.plans.filter((p) => p.verified === undefined && (p.state === 'running' || p.state === 'checkpoint')).map((p) => p.phase);
  const dispatching = round.dispatch.map((p) => p.phase);
  const executing = [...running, ...dispatching].sort((a, b) => round.phases.indexOf(a) - round.phases.indexOf(b))[0];
  if (executing === undefined) return [];
  const at = round.phases.indexOf(executing);
  const out: string[] = [];
  for (const phase of round.phases.slice(at + 1, at + 1 + RESEARCH_AHEAD)) {
    if (out.length >= idle) break;
    if (input.claimed.has(phase)) continue;
    const plans = round.plans.filter((p) => p.phase === phase);
    if (plans.some(begun) || dispatching.includes(phase)) continue;
    out.push(phase);
  }
  return out;
}
