/** The least a window holds, whatever `slots` is: a first sync of this many plans stays well under GitHub's 500 content writes an hour. */
export const MIN_ISSUE_WINDOW = 100;

/** `issue_window` of .github/harness.yml, or its default: twice the slots, never fewer than MIN_ISSUE_WINDOW. */
export function issueWindowSize(config: { issue_window?: number | undefined; slots: number }): number {
  return config.issue_window ?? Math.max(MIN_ISSUE_WINDOW, 2 * config.slots);
}

/**
 * How far a window may run down before it moves on: half of it. A window filled to `size`
 * plans not done moves once fewer than `size - windowSlack(size)` are left, so that each move
 * (a sync of the spec's issues, a list read or two) brings a batch of plans, not one per plan
 * finished. At twice the slots, the half left is still a slot's worth of plans for every slot.
 */
export function windowSlack(size: number): number {
  return Math.floor(size / 2);
}

/**
 * Which plans have issues now: the first plans of `order` (the order a run of the spec starts
 * them in: round-order.ts, specOrder) until `size` plans not yet done are among them. A plan
 * starts after every plan it needs, so every plan in the window finds an issue for each of its
 * needs; and the plans the scheduler will want next are in it whatever phase they are in, so
 * a chain that decides when the spec ends starts as early as a run of the whole spec would
 * start it. Done (`done(plan)`) is what the sync can tell from the issue list alone: its issue
 * closed with the App's record of why, or the spec marking it `completed:`; done plans add
 * nothing to the count, so the window moves on as plans finish. Plans `order` leaves out come
 * after it, in spec order. Undefined: the whole spec, which is what a spec of `size` plans or
 * fewer gets, and a window that has reached its last plan.
 */
export function issueWindow(
  spec: { plans: readonly { id: string }[] },
  size: number,
  done: (plan: string) => boolean,
  order: readonly string[],
): Set<string> | undefined {
  if (spec.plans.length <= size) return undefined;
  const known = new Set(spec.plans.map((p) => p.id));
  const listed = new Set(order.filter((id) => known.has(id)));
  const plans = new Set<string>();
  let open = 0;
  for (const id of [...listed, ...spec.plans.map((p) => p.id).filter((id) => !listed.has(id))]) {
    if (open >= size) break;
    plans.add(id);
    if (!done(id)) open++;
  }
  return plans.size === spec.plans.length ? undefined : plans;
}

/**
 * The phases a window holds only some plans of: a round must not take such a phase for
 * complete (its verification waits until the window has brought every plan of it).
 */
export function partialPhases(spec: { phases: readonly { id: string; plans: readonly string[] }[] }, issued: (plan: string) => boolean): Set<string> {
  return new Set(spec.phases.filter((ph) => ph.plans.some((p) => !issued(p))).map((ph) => ph.id));
}

/**
 * A window with the plans a person asked for by name (`/harness execute PP` or `PP-NN`) and
 * every plan they need, directly or not: those have issues whatever the window holds, so
 * that the command can queue them. Undefined stays undefined (the whole spec).
 */
export function withNeeded(
  window: Set<string> | undefined,
  spec: { planById: ReadonlyMap<string, { dependsOn: readonly string[] }> },
  asked: readonly string[],
): Set<string> | undefined {
  if (!window || asked.length === 0) return window;
  const out = new Set(window);
  const seen = new Set<string>();
  const queue = asked.filter((id) => spec.planById.has(id));
  for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
    if (seen.has(id)) continue;
    seen.add(id);
    out.add(id);
    for (const need of spec.planById.get(id)!.dependsOn) if (spec.planById.has(need)) queue.push(need);
  }
  return out.size === spec.planById.size ? undefined : out;
}
