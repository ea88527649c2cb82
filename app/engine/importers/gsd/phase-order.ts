/**
 * GSD runs phases one after another: its plans declare only same-phase `depends_on`, because
 * the phase order says the rest. harness starts a plan as soon as what it depends on passed,
 * so without this a later phase's first plans would start at once, beside the scaffold they
 * build on. Each phase's first plans (those that depend on no plan of their own phase) are
 * made to wait for the previous phase's last plans (those no plan of that phase depends on),
 * which, through the rest of the graph, is the whole previous phase.
 */

export interface OrderedPlan {
  id: string;
  phase: string;
  dependsOn: readonly string[];
}

/** The dependencies to add, by plan id; phases in their order. */
export function phaseOrder(plans: readonly OrderedPlan[], phases: readonly string[]): Map<string, string[]> {
  const added = new Map<string, string[]>();
  const ordered = [...phases].sort((a, b) => Number(a) - Number(b));
  let previousLast: string[] = [];
  for (const phase of ordered) {
    const own = plans.filter((p) => p.phase === phase);
    if (own.length === 0) continue;
    const ids = new Set(own.map((p) => p.id));
    for (const plan of own) {
      if (plan.dependsOn.some((d) => ids.has(d))) continue;
      const missing = previousLast.filter((d) => !plan.dependsOn.includes(d));
      if (missing.length > 0) added.set(plan.id, missing);
    }
    const needed = new Set(own.flatMap((p) => p.dependsOn.filter((d) => ids.has(d))));
    previousLast = own.map((p) => p.id).filter((id) => !needed.has(id));
  }
  return added;
}
