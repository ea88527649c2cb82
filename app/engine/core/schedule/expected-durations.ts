/** What an estimate needs of a plan: a `Plan` fits. */
export interface EstimatedPlan {
  id: string;
  phase: string;
  filesModified: readonly string[];
  /** The plan's time limit: an upper bound that also tells plans' relative sizes. */
  timeoutMinutes: number;
}

/**
 * Expected minutes per plan, for priorities. A finished plan's own measured time is its
 * duration. Otherwise the plan's timeout_minutes, scaled by how much of their timeout
 * similar finished plans actually used (the median share): first plans that write in the
 * same directory, else plans of the same phase, else every finished plan, else none (the
 * timeout as it is). Scaling every plan by the same kind of evidence keeps estimates
 * comparable: a plan with no history does not look longer than one that has some just
 * because its figure is a limit rather than a measurement.
 *
 * `measured` is what the caller read (the run's SUMMARY records' duration_minutes, the
 * knowledge store): the engine does no I/O.
 */
export function expectedDurations(plans: readonly EstimatedPlan[], measured: ReadonlyMap<string, number>): Map<string, number> {
  const byId = new Map(plans.map((p) => [p.id, p]));
  const shares = { dir: new Map<string, number[]>(), phase: new Map<string, number[]>(), all: [] as number[] };
  for (const [id, minutes] of measured) {
    const p = byId.get(id);
    if (!p || !(p.timeoutMinutes > 0) || !(minutes >= 0)) continue;
    const share = Math.min(1, minutes / p.timeoutMinutes);
    for (const dir of directories(p)) push(shares.dir, dir, share);
    push(shares.phase, p.phase, share);
    shares.all.push(share);
  }
  const out = new Map<string, number>();
  for (const p of plans) {
    const own = measured.get(p.id);
    if (own !== undefined && own >= 0) {
      out.set(p.id, own);
      continue;
    }
    const similar = directories(p).flatMap((d) => shares.dir.get(d) ?? []);
    const evidence = similar.length > 0 ? similar : (shares.phase.get(p.phase) ?? shares.all);
    out.set(p.id, p.timeoutMinutes * (evidence.length > 0 ? median(evidence) : 1));
  }
  return out;
}

/** The directories a plan writes in: each entry's path up to its last literal "/". */
function directories(p: EstimatedPlan): string[] {
  const dirs = new Set<string>();
  for (const f of p.filesModified) {
    const literal = /^[^*?[\]{}()!+@]*/.exec(f.replace(/^(\.\/)+/, ''))![0];
    const cut = literal.lastIndexOf('/');
    if (cut > 0) dirs.add(literal.slice(0, cut));
  }
  return [...dirs];
}

function push(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
