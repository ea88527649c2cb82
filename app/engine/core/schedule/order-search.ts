import type { Layout } from './layout.js';
import { listByKey, serialSchedule, startOrder, type SerialSchedule } from './serial-schedule.js';

export interface OrderSearchInput {
  layout: Layout;
  slots: number;
  minutes: (i: number) => number;
  /** Start times of the best schedule found so far (the greedy dispatcher's): where the search begins. */
  starts: ArrayLike<number>;
  /** Serial schedules the search may build. */
  runs: number;
  random: () => number;
}

export interface OrderSearchResult {
  /** Plan indices by start: the sequence to dispatch in. */
  sequence: number[];
  makespan: number;
  tried: number;
}

/** Forward–backward passes stop improving after a few rounds on the benchmark's specs. */
const PASSES = 5;

/**
 * A search over start orders, for when keeping a slot free for a plan about to be ready
 * beats starting whatever is ready: serial schedules (which may leave such gaps) from the
 * best greedy schedule, improved by forward–backward passes (each pass packs the schedule
 * against its end, then against its start again) and then by moving one plan at a time
 * earlier in the list, keeping any move that does not lengthen the schedule. Moves that
 * tie are kept so the search walks across plateaus. Deterministic for a given `random`.
 */
export function searchOrder(input: OrderSearchInput): OrderSearchResult {
  const { layout, slots, minutes, random } = input;
  const n = layout.graph.ids.length;
  let runs = input.runs;
  let tried = 0;
  const build = (list: readonly number[]): SerialSchedule => {
    runs--;
    tried++;
    return serialSchedule(layout, slots, minutes, list);
  };
  let list = startOrder(input.starts);
  let best = build(list);

  const backward = reversedLayout(layout);
  for (let pass = 0; pass < PASSES && runs >= 2; pass++) {
    // Backwards: what ends last is placed first against the end; forwards again by when
    // that packed schedule has plans end (its reversed time is real start order).
    const back = serialSchedule(backward, slots, minutes, listByKey(backward, best.ends));
    runs--;
    tried++;
    const forward = build(listByKey(layout, back.ends));
    if (forward.makespan >= best.makespan) break;
    best = forward;
    list = startOrder(best.starts);
  }

  const { deps } = layout.graph;
  while (runs > 0 && n > 1) {
    const from = 1 + Math.floor(random() * (n - 1));
    const plan = list[from]!;
    // The earliest place it may move to: just after its last dependency in the list.
    let lowest = 0;
    for (let k = 0; k < from; k++) if (deps[plan]!.includes(list[k]!)) lowest = k + 1;
    if (lowest >= from) {
      runs--;
      continue;
    }
    const to = lowest + Math.floor(random() * (from - lowest));
    const moved = [...list.slice(0, to), plan, ...list.slice(to, from), ...list.slice(from + 1)];
    const candidate = build(moved);
    if (candidate.makespan <= best.makespan) {
      best = candidate;
      list = startOrder(best.starts);
    }
  }
  return { sequence: startOrder(best.starts), makespan: best.makespan, tried };
}

/** The layout with every dependency turned around, for the backward pass. */
function reversedLayout(layout: Layout): Layout {
  const { graph } = layout;
  return { ...layout, graph: { ...graph, deps: graph.dependants, dependants: graph.deps } };
}
