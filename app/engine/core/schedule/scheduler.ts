import { layout, type Layout, type ScheduleSpec } from './layout.js';
import { ScheduleState, type StateInit } from './state.js';

export interface SchedulerOptions {
  /** Expected duration of a plan (any unit), for priorities; 1 per plan unless told. */
  duration?: (planId: string) => number;
  /**
   * Priorities to use instead of the conflict-aware rule, higher first: what a search over
   * rules found best for these durations (searchPriority). Plans it does not know rank last.
   */
  priority?: (planId: string) => number;
  /**
   * Reuse another scheduler's layout of the same spec with other priorities (by plan
   * index): what a search does thousands of times, without rebuilding the graph and the
   * conflicts each time.
   */
  from?: { layout: Layout; priority: Float64Array; sequence?: readonly number[] };
  /**
   * Start plans in this order (plan ids), as searchPriority found best for known
   * durations: the next plan in it that is about to be ready keeps its slot and files.
   */
  sequence?: readonly string[];
}

export interface BlockedPlan {
  plan: string;
  /** The failed plan, or the phase that failed its verification, that it depends on (directly or not). */
  because: { plan: string } | { phase: string };
}

/** What a runner should do now with `freeSlots` idle slots. */
export interface NextSteps {
  /** Plans to start, one slot each. */
  start: string[];
  /** The phase whose verification may run now, if any. */
  verifyPhases: string[];
  /** Phases to research with the slots `start` leaves idle. */
  research: string[];
}

/** How many phases past the earliest unverified one research may prepare. */
export const RESEARCH_AHEAD = 2;

/**
 * The scheduling policy, built once per spec and shared by the local runner, the GitHub
 * app and `harness simulate` (so the simulation measures the policy that runs).
 *
 * A plan is ready when each plan it depends on is verified, even across phases, and no
 * running plan writes a file it writes. Among ready plans the one of highest priority
 * goes first: by default the larger of its remaining critical path (the work the end of
 * the spec waits on) and the work of all plans writing its files (which must run one
 * after another whatever the slots); with known durations, what a search found best.
 * A ready plan that would take files the most critical plan needs the moment its running
 * dependencies end waits for it (see #yields).
 */
export class Scheduler {
  readonly layout: Layout;
  readonly #ids: readonly string[];
  #excluded: Int32Array | undefined;
  #pickStamp = 0;

  constructor(spec: ScheduleSpec, options: SchedulerOptions = {}) {
    const { duration, priority } = options;
    this.#ids = spec.plans.map((p) => p.id);
    if (options.from) {
      const { sequence } = options.from;
      this.layout = { ...options.from.layout, priority: options.from.priority, ...(sequence ? { sequence } : {}) };
      return;
    }
    // Minutes by index, asked once per plan: the layout weighs them for every conflict.
    const minutes = duration ? Float64Array.from(this.#ids, (id) => duration(id)) : undefined;
    const built = layout(spec, minutes ? (i) => minutes[i]! : undefined, priority ? (i) => priority(this.#ids[i]!) : undefined);
    this.layout = options.sequence ? { ...built, sequence: sequenceOf(built, options.sequence) } : built;
  }

  /** A fresh state for a run: everything pending unless `init` says otherwise. O(V + E). */
  state(init?: StateInit): ScheduleState {
    return new ScheduleState(this.layout, init);
  }

  /**
   * The plans to start now, at most `freeSlots`, best first. Costs O(r log r + the
   * conflicts of the picked plans) for r ready plans: running plans are accounted for in
   * the state as they start and stop, never rescanned here.
   */
  pick(state: ScheduleState, freeSlots: number, allow?: (planId: string) => boolean): string[] {
    this.#own(state);
    if (freeSlots <= 0) return [];
    if (this.layout.sequence) return this.#pickInSequence(state, freeSlots, this.layout.sequence, allow).map((i) => this.#ids[i]!);
    const { conflicts } = this.layout;
    const candidates: number[] = [];
    for (const i of state.ready) {
      // A run limited to some plans (--plan, --phase) filters here, before picking: plans
      // outside it must neither take the slots nor hold back the plans inside it.
      if (allow && !allow(this.#ids[i]!)) continue;
      if (state.conflictsActive(i) === 0 && !state.dependsOnFailedPhase(i)) candidates.push(i);
    }
    // Ties go to the longer remaining path, then to plan order, so that equal plans start
    // as the spec lists them.
    candidates.sort((a, b) => this.#compare(a, b));
    const top = candidates.length > 0 ? candidates[0]! : -1;
    const picked: number[] = [];
    // Plans that overlap one picked in this call must not start with it: marked with this
    // call's stamp (a Set of them cost most of simulate's time when most plans overlap).
    const stamp = ++this.#pickStamp;
    const excluded = (this.#excluded ??= new Int32Array(this.#ids.length));
    for (const i of candidates) {
      if (excluded[i] === stamp || this.#yields(state, i, top, allow)) continue;
      picked.push(i);
      if (picked.length === freeSlots) break;
      for (const c of conflicts[i]!) excluded[c] = stamp;
    }
    return picked.map((i) => this.#ids[i]!);
  }

  /**
   * Plans that cannot run until a person acts: they depend, directly or through others,
   * on a failed plan, or on a plan of a phase that failed its verification. Only plans
   * not started yet are listed (pending, ready or already marked blocked), in plan order.
   * A plan marked blocked whose cause is gone (a retry) is not listed: it may run again.
   */
  blockedBy(state: ScheduleState): BlockedPlan[] {
    this.#own(state);
    const { graph, phasePlans, phaseIds } = this.layout;
    const cause = new Map<number, BlockedPlan['because']>();
    const queue: number[] = [];
    const reach = (from: number, because: BlockedPlan['because']) => {
      for (const d of graph.dependants[from]!) {
        if (cause.has(d)) continue;
        cause.set(d, because);
        queue.push(d);
      }
    };
    for (const i of [...state.failed].sort((a, b) => a - b)) reach(i, { plan: this.#ids[i]! });
    phasePlans.forEach((plans, p) => {
      if (state.phaseAt(p) !== 'failed') return;
      for (const i of plans) reach(i, { phase: phaseIds[p]! });
    });
    for (let head = 0; head < queue.length; head++) reach(queue[head]!, cause.get(queue[head]!)!);

    const blocked: BlockedPlan[] = [];
    for (const [i, because] of cause) {
      const s = state.statusAt(i);
      if (s === 'pending' || s === 'ready' || s === 'blocked') blocked.push({ plan: this.#ids[i]!, because });
    }
    return blocked.sort((a, b) => graph.index.get(a.plan)! - graph.index.get(b.plan)!);
  }

  /**
   * The phase whose verification may start now: phases are verified in order, so this is
   * the earliest phase not verified yet, once all its plans are verified and while it is
   * neither being verified nor failed. At most one phase; a list so callers need not care.
   */
  phaseReady(state: ScheduleState): string[] {
    this.#own(state);
    const p = this.#firstOpenPhase(state);
    if (p === -1 || state.phaseAt(p) !== 'pending') return [];
    return state.verifiedIn(p) === this.layout.phasePlans[p]!.length ? [this.layout.phaseIds[p]!] : [];
  }

  /**
   * Phases an idle slot may research: the earliest unverified phase and up to `ahead`
   * after it, in order, whose research is neither done nor under way. Research writes only
   * planning documents, so it never conflicts with a plan and needs no check here.
   */
  researchCandidates(state: ScheduleState, ahead = RESEARCH_AHEAD): string[] {
    this.#own(state);
    const first = this.#firstOpenPhase(state);
    if (first === -1) return [];
    const out: string[] = [];
    const last = Math.min(first + ahead, this.layout.phaseIds.length - 1);
    for (let p = first; p <= last; p++) if (state.researchAt(p) === undefined) out.push(this.layout.phaseIds[p]!);
    return out;
  }

  /** Everything to start now: plans first; research only gets the slots plans leave idle. */
  next(state: ScheduleState, freeSlots: number): NextSteps {
    const start = this.pick(state, freeSlots);
    const research = this.researchCandidates(state).slice(0, Math.max(0, freeSlots - start.length));
    return { start, verifyPhases: this.phaseReady(state), research };
  }

  /**
   * Plans in the searched order. The next plan not started keeps its slot and its files
   * when it is about to be ready (ready but for a file a running plan holds, or waiting
   * only on running plans): the plans after it wait, as in the schedule the order came
   * from. A plan that waits on anything else (a person at a checkpoint, a failure, a plan
   * not started) holds nothing and is passed over, so a run never stalls on it. With the
   * durations the search assumed this starts every plan when that schedule does; when
   * they differ, a slot stays free at most until the running plans the next one waits on end.
   * O(n) per pick: orders are searched only for specs of a few hundred plans.
   */
  #pickInSequence(state: ScheduleState, freeSlots: number, sequence: readonly number[], allow?: (planId: string) => boolean): number[] {
    const { conflicts } = this.layout;
    const picked: number[] = [];
    const excluded = new Set<number>();
    for (const i of sequence) {
      const s = state.statusAt(i);
      if (s !== 'pending' && s !== 'ready') continue;
      if ((allow && !allow(this.#ids[i]!)) || state.dependsOnFailedPhase(i)) continue;
      const ready = state.ready.has(i);
      if (ready && state.conflictsActive(i) === 0 && !excluded.has(i)) {
        picked.push(i);
        if (picked.length === freeSlots) break;
        for (const c of conflicts[i]!) excluded.add(c);
        continue;
      }
      if (ready ? !this.#heldByPerson(state, i) : this.#aboutToBeReady(state, i, picked)) break;
    }
    return picked;
  }

  /** Does plan i wait only on plans running or starting in this pick (not on a person, not on a plan not started)? */
  #aboutToBeReady(state: ScheduleState, i: number, starting: readonly number[]): boolean {
    for (const d of this.layout.graph.deps[i]!) {
      const s = state.statusAt(d);
      if (s !== 'verified' && s !== 'running' && !starting.includes(d)) return false;
    }
    return true;
  }

  /** Is a file of ready plan i held by a plan waiting at a checkpoint (for a person, not for time)? */
  #heldByPerson(state: ScheduleState, i: number): boolean {
    for (const c of this.layout.conflicts[i]!) if (state.statusAt(c) === 'checkpoint') return true;
    return false;
  }

  /**
   * Should plan i stay back for a more critical plan it conflicts with? Only when that plan
   * is the most critical work there is (nothing startable outranks it) and will be ready
   * as soon as running plans end: started now, i would hold its files and stall the
   * critical path for i's whole duration. Measured on the benchmark (bench/schedule.bench.ts),
   * this trims the tail of makespan / lower bound that write conflicts cause: at 4 slots the
   * worst case 1.25 → 1.12, at 8 slots p90 1.080 → 1.054 and the median 1.009 → 1.004.
   * A plan at a checkpoint waits for a person, so it never makes a plan imminent.
   */
  #yields(state: ScheduleState, i: number, top: number, allow?: (planId: string) => boolean): boolean {
    const { conflicts } = this.layout;
    for (const y of conflicts[i]!) {
      if (allow && !allow(this.#ids[y]!)) continue;
      if (this.#outranks(y, i) && !this.#outranks(top, y) && state.imminent(y)) return true;
    }
    return false;
  }

  /** Best first: higher priority, then the longer remaining path, then plan order. */
  #compare(a: number, b: number): number {
    const { priority, remaining } = this.layout;
    return priority[b]! - priority[a]! || remaining[b]! - remaining[a]! || a - b;
  }

  /** Does a outrank b on priority and remaining path (plan order aside)? */
  #outranks(a: number, b: number): boolean {
    const { priority, remaining } = this.layout;
    return priority[a]! > priority[b]! || (priority[a] === priority[b] && remaining[a]! > remaining[b]!);
  }

  #firstOpenPhase(state: ScheduleState): number {
    // Phases are few (tens); scanning them is cheaper than keeping another index.
    for (let p = 0; p < this.layout.phaseIds.length; p++) if (state.phaseAt(p) !== 'verified') return p;
    return -1;
  }

  #own(state: ScheduleState): void {
    if (state.layout !== this.layout) throw new Error('this state belongs to another scheduler: create it with scheduler.state()');
  }
}

/** Plan ids to indices; plans the order leaves out come last, in plan order. */
function sequenceOf(layout: Layout, ids: readonly string[]): number[] {
  const seen = new Uint8Array(layout.graph.ids.length);
  const out: number[] = [];
  for (const id of ids) {
    const i = layout.graph.index.get(id);
    if (i === undefined || seen[i]) continue;
    seen[i] = 1;
    out.push(i);
  }
  for (let i = 0; i < seen.length; i++) if (!seen[i]) out.push(i);
  return out;
}
