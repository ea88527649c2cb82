import { isActive, type PhaseState, type PlanState } from '../state/plan-state.js';
import type { Layout } from './layout.js';

export type ResearchState = 'running' | 'done';

/** Where a run stands, as the local runner's files or the GitHub labels say. Absent: pending. */
export interface StateInit {
  plans?: Readonly<Record<string, PlanState>> | Iterable<readonly [string, PlanState]>;
  phases?: Readonly<Record<string, PhaseState>> | Iterable<readonly [string, PhaseState]>;
  research?: Readonly<Record<string, ResearchState>> | Iterable<readonly [string, ResearchState]>;
}

/** Statuses from which a plan may still be started. */
function startable(s: PlanState): boolean {
  return s === 'pending' || s === 'ready';
}

/**
 * The state of one run of a spec, with the indexes that keep the scheduler's reads small:
 * the set of plans whose dependencies are all verified, the set of running plans, and for
 * each plan how many running plans conflict with it. Every update costs the degree of the
 * plan that changed, so the runner (one update per event) and the GitHub app (one build
 * per webhook, O(V + E)) both pay for what changed, not for the whole spec at each pick.
 */
export class ScheduleState {
  readonly layout: Layout;
  readonly #status: PlanState[];
  /** Dependencies not verified yet. */
  readonly #waiting: Int32Array;
  /** Dependencies neither verified nor running: 0 with some running means "ready once they end". */
  readonly #unstarted: Int32Array;
  /** Active plans whose files_modified overlap this plan's. */
  readonly #blocking: Int32Array;
  /** Startable status and no unverified dependency: the candidates of a pick. */
  readonly #ready = new Set<number>();
  readonly #active = new Set<number>();
  readonly #failed = new Set<number>();
  /** Verified plans per phase, so that "all plans of phase p verified" is one comparison. */
  readonly #verifiedIn: Int32Array;
  readonly #phase: PhaseState[];
  /** Plans that depend, directly or not, on a plan of a failed phase. Rebuilt when that set changes (rare). */
  #phaseBlocked: Uint8Array;
  readonly #research = new Map<number, ResearchState>();
  readonly #planIndex: ReadonlyMap<string, number>;
  readonly #phaseIndex: Map<string, number>;

  constructor(layout: Layout, init: StateInit = {}) {
    this.layout = layout;
    const n = layout.graph.ids.length;
    this.#status = new Array<PlanState>(n).fill('pending');
    this.#waiting = new Int32Array(n);
    this.#unstarted = new Int32Array(n);
    this.#blocking = new Int32Array(n);
    this.#verifiedIn = new Int32Array(layout.phaseIds.length);
    this.#phase = layout.phaseIds.map(() => 'pending');
    this.#phaseBlocked = new Uint8Array(n);
    this.#planIndex = layout.graph.index;
    this.#phaseIndex = new Map(layout.phaseIds.map((id, p) => [id, p]));
    for (let i = 0; i < n; i++) {
      this.#waiting[i] = this.#unstarted[i] = layout.graph.deps[i]!.length;
      if (this.#waiting[i] === 0) this.#ready.add(i);
    }
    for (const [id, s] of entries(init.plans)) this.setPlan(id, s);
    for (const [id, s] of entries(init.phases)) this.setPhase(id, s);
    for (const [id, s] of entries(init.research)) this.setResearch(id, s);
  }

  plan(id: string): PlanState {
    return this.#status[this.#plan(id)]!;
  }

  phase(id: string): PhaseState {
    return this.#phase[this.#phaseAt(id)]!;
  }

  research(phase: string): ResearchState | undefined {
    return this.#research.get(this.#phaseAt(phase));
  }

  get failedPhases(): ReadonlySet<string> {
    return new Set(this.layout.phaseIds.filter((_, p) => this.#phase[p] === 'failed'));
  }

  /** Change a plan's status; costs its number of dependants and conflicts. */
  setPlan(id: string, next: PlanState): void {
    const i = this.#plan(id);
    const prev = this.#status[i]!;
    if (prev === next) return;
    const { dependants } = this.layout.graph;
    const conflicts = this.layout.conflicts[i]!;
    const phase = this.layout.phaseOf[i]!;

    if (startable(prev)) this.#ready.delete(i);
    if (isActive(prev)) {
      this.#active.delete(i);
      for (const c of conflicts) this.#blocking[c]!--;
    }
    if (prev === 'failed') this.#failed.delete(i);
    if (prev === 'verified') {
      if (phase >= 0) this.#verifiedIn[phase]!--;
      for (const d of dependants[i]!) if (this.#waiting[d]!++ === 0) this.#ready.delete(d);
    }

    // A checkpoint waits for a person, for as long as it takes: it does not count as about to end.
    const wasStarted = prev === 'verified' || prev === 'running';
    const isStarted = next === 'verified' || next === 'running';
    if (wasStarted !== isStarted) for (const d of dependants[i]!) this.#unstarted[d]! += isStarted ? -1 : 1;

    this.#status[i] = next;
    if (startable(next) && this.#waiting[i] === 0) this.#ready.add(i);
    if (isActive(next)) {
      this.#active.add(i);
      for (const c of conflicts) this.#blocking[c]!++;
    }
    if (next === 'failed') this.#failed.add(i);
    if (next === 'verified') {
      if (phase >= 0) this.#verifiedIn[phase]!++;
      for (const d of dependants[i]!) if (--this.#waiting[d]! === 0 && startable(this.#status[d]!)) this.#ready.add(d);
    }
  }

  setPhase(id: string, next: PhaseState): void {
    const p = this.#phaseAt(id);
    const prev = this.#phase[p]!;
    if (prev === next) return;
    this.#phase[p] = next;
    if (prev === 'failed' || next === 'failed') this.#phaseBlocked = this.#blockedByFailedPhases();
  }

  /** Record research of a phase as under way or done; undefined forgets it (to redo it). */
  setResearch(phase: string, next: ResearchState | undefined): void {
    const p = this.#phaseAt(phase);
    if (next === undefined) this.#research.delete(p);
    else this.#research.set(p, next);
  }

  // Index-level reads for the scheduler: each is O(1) or iterates only what it names.

  statusAt(i: number): PlanState {
    return this.#status[i]!;
  }

  phaseAt(p: number): PhaseState {
    return this.#phase[p]!;
  }

  researchAt(p: number): ResearchState | undefined {
    return this.#research.get(p);
  }

  /** Plans with a startable status whose dependencies are all verified. */
  get ready(): ReadonlySet<number> {
    return this.#ready;
  }

  /** Plans holding a slot: running or waiting at a checkpoint. */
  get active(): ReadonlySet<number> {
    return this.#active;
  }

  get failed(): ReadonlySet<number> {
    return this.#failed;
  }

  /** How many active plans write files that plan i writes too. */
  conflictsActive(i: number): number {
    return this.#blocking[i]!;
  }

  /**
   * Plan i will be ready as soon as running plans end: each dependency not verified is
   * running (none at a checkpoint), and i itself may start.
   */
  imminent(i: number): boolean {
    return this.#waiting[i]! > 0 && this.#unstarted[i] === 0 && startable(this.#status[i]!) && this.#phaseBlocked[i] === 0;
  }

  dependsOnFailedPhase(i: number): boolean {
    return this.#phaseBlocked[i] === 1;
  }

  verifiedIn(p: number): number {
    return this.#verifiedIn[p]!;
  }

  #blockedByFailedPhases(): Uint8Array {
    const { phasePlans, graph } = this.layout;
    const marked = new Uint8Array(graph.ids.length);
    const queue: number[] = [];
    phasePlans.forEach((plans, p) => {
      if (this.#phase[p] === 'failed') queue.push(...plans);
    });
    // Seeds are marked only when another seed leads to them: a phase fails verification
    // once all its plans are verified, so marking them would change nothing.
    for (let head = 0; head < queue.length; head++) {
      for (const d of graph.dependants[queue[head]!]!) {
        if (marked[d]) continue;
        marked[d] = 1;
        queue.push(d);
      }
    }
    return marked;
  }

  #plan(id: string): number {
    const i = this.#planIndex.get(id);
    if (i === undefined) throw new RangeError(`unknown plan "${id}"`);
    return i;
  }

  #phaseAt(id: string): number {
    const p = this.#phaseIndex.get(id);
    if (p === undefined) throw new RangeError(`unknown phase "${id}"`);
    return p;
  }
}

function entries<T>(from: Readonly<Record<string, T>> | Iterable<readonly [string, T]> | undefined): Iterable<readonly [string, T]> {
  if (from === undefined) return [];
  if (Symbol.iterator in from) return from as Iterable<readonly [string, T]>;
  return Object.entries(from as Record<string, T>);
}
