/**
 * The learning bench's verdict on one project: its two arms' results graded (what failed
 * first, on repeats, what was surfaced where, what the store holds), a row per spec and arm, a
 * row per kind, and the targets.
 */
import type { Row, Target } from '../lib.js';
import type { ArmResult, PlanResult, SpecResult } from './arm.js';
import type { ProjectWorld } from './world.js';

/** A surfaced item on target: it names the error of the kind the plan meets (a clean plan has none). */
export function onTarget(plan: Pick<PlanResult, 'kind'>, item: { kinds: string[] }): boolean {
  return plan.kind !== undefined && item.kinds.includes(plan.kind);
}

/** The later half of the specs: where learning should have taken hold. */
function later(world: ProjectWorld, spec: string): boolean {
  return world.specs.findIndex((s) => s.id === spec) >= world.specs.length / 2;
}

export function grade(world: ProjectWorld, control: ArmResult, learning: ArmResult) {
  const def = world.def;
  const plansOf = (arm: ArmResult, f: (s: SpecResult) => boolean = () => true) => arm.specs.filter(f).flatMap((s) => s.plans);
  const lateRepeats = (arm: ArmResult, kind?: string) =>
    plansOf(arm, (s) => later(world, s.spec)).filter((p) => p.repeat && p.firstFailed && (kind === undefined || p.kind === kind)).length;
  const surfaced = plansOf(learning).flatMap((p) => p.surfaced.map((s) => ({ ...s, plan: p.id, onTarget: onTarget(p, s) })));
  const offTarget = surfaced.filter((s) => !s.onTarget);
  const mixing = learning.items.filter((i) => i.kinds.length > 1);
  const oneOffIds = def.oneOffs.map((k) => k.id);
  const oneOffItems = learning.items.filter((i) => i.kinds.some((k) => oneOffIds.includes(k)));
  const oneOffSurfaced = surfaced.filter((s) => s.kinds.some((k) => oneOffIds.includes(k)));
  // The old fix can be known stale only once it failed a plan whose brief carried it: counted from the spec after that one (or after the change, if it never failed one).
  const indexOf = (s: SpecResult) => world.specs.findIndex((w) => w.id === s.spec);
  const firstFutile = learning.specs.find((s) => indexOf(s) >= def.upgrade.before && s.plans.some((p) => p.log.some((l) => l.includes('futile-from-brief'))));
  const learnedAt = Math.max(def.upgrade.before, firstFutile === undefined ? def.upgrade.before : indexOf(firstFutile));
  const afterChange = (s: SpecResult) => indexOf(s) > learnedAt;
  const staleSurfaced = plansOf(learning, afterChange).flatMap((p) => p.surfaced.filter((s) => s.stale).map((s) => `${p.id} ${s.path}`));
  const wordingOf = (spec: string, plan: string) => world.specs.find((w) => w.id === spec)!.plans.find((p) => p.id === plan)!.wording;
  /** The later half's first-attempt failures on repeats of each wording of a kind, in an arm. */
  const lateByWording = (arm: ArmResult, kind: string, wordings: number) =>
    Array.from(
      { length: wordings },
      (_, w) =>
        arm.specs
          .filter((s) => later(world, s.spec))
          .flatMap((s) => s.plans.filter((p) => p.kind === kind && p.repeat && p.firstFailed && wordingOf(s.spec, p.id) === w)).length,
    );
  const kinds = def.kinds.map((k) => {
    const wordings = k.role === 'two-wordings' ? new Set(k.reads?.map((r) => r.wording)).size : 1;
    const failed = (arm: ArmResult) => plansOf(arm).filter((p) => p.kind === k.id && p.firstFailed).length;
    const about = surfaced.filter((s) => s.kinds.includes(k.id));
    return {
      kind: k.id,
      role: k.role,
      shows: [
        ...(k.reads ? [`imports (${k.reads.map((r) => r.file).join(', ')})`] : []),
        ...(k.text ? ['its words'] : []),
        ...(k.command ? ['its check command'] : []),
      ].join(' + '),
      plans: plansOf(control).filter((p) => p.kind === k.id).length,
      control: failed(control),
      learning: failed(learning),
      lateControl: lateRepeats(control, k.id),
      lateLearning: lateRepeats(learning, k.id),
      /** For the kind in two wordings: [control, learning] per wording. */
      lateByWording: wordings > 1 ? lateByWording(control, k.id, wordings).map((c, w) => [c, lateByWording(learning, k.id, wordings)[w]!]) : undefined,
      surfaced: about.length,
      offTarget: about.filter((s) => !s.onTarget).length,
      naming: learning.final.filter((i) => i.kinds.includes(k.id) && i.fixes.includes(k.id)).map((i) => i.path),
      obvious: learning.final.filter((i) => i.kinds.includes(k.id) && i.obvious && !i.fixes.includes(k.id)).map((i) => i.path),
    };
  });
  return {
    lateControl: lateRepeats(control),
    lateLearning: lateRepeats(learning),
    surfaced,
    offTarget,
    mixing,
    oneOffItems,
    oneOffSurfaced,
    staleSurfaced,
    staleLearnedIn: world.specs[learnedAt]!.id,
    kinds,
  };
}

export type Grade = ReturnType<typeof grade>;

/** A row per spec and arm. */
export function specRows(world: ProjectWorld, control: ArmResult, learning: ArmResult): Row[] {
  const rows: Row[] = [];
  for (const [i, spec] of world.specs.entries()) {
    for (const [arm, result] of [
      ['control', control],
      ['learning', learning],
    ] as const) {
      const s = result.specs[i]!;
      const surfaced = s.plans.flatMap((p) => p.surfaced.map((x) => onTarget(p, x)));
      rows.push({
        project: world.def.key,
        spec: spec.id,
        arm,
        'plans (meeting a failure)': `${spec.plans.length} (${spec.plans.filter((p) => p.kind !== undefined).length})`,
        'first fails': s.plans.filter((p) => p.firstFailed).length,
        'on repeats': s.plans.filter((p) => p.firstFailed && p.repeat).length,
        runs: s.runs,
        'surfaced (off target)': arm === 'learning' ? `${surfaced.length} (${surfaced.filter((on) => !on).length})` : '–',
      });
    }
  }
  return rows;
}

/** A row per recurring kind. */
export function kindRows(world: ProjectWorld, g: Grade): Row[] {
  return g.kinds.map((k) => ({
    project: world.def.key,
    kind: k.kind,
    role: k.role,
    'shows in': k.shows,
    plans: k.plans,
    'first fails control / learning': `${k.control} / ${k.learning}`,
    'later repeats control / learning': `${k.lateControl} / ${k.lateLearning}${k.lateByWording ? ` (by wording: ${k.lateByWording.map(([c, l]) => `${c} / ${l}`).join(', ')})` : ''}`,
    'surfaced (off target)': `${k.surfaced} (${k.offTarget})`,
    'items naming error and fix': k.naming.length,
    'only the obvious repair': k.obvious.length,
  }));
}

export function targets(world: ProjectWorld, g: Grade, items: number): Target[] {
  const def = world.def;
  const name = def.name;
  return [
    {
      name: `${name}: later half, learning's first-attempt failures on repeats ≤ ¼ of the control's`,
      met: g.lateControl > 0 && g.lateLearning * 4 <= g.lateControl,
      detail: `${g.lateLearning} vs ${g.lateControl} (${g.kinds.map((k) => `${k.kind} ${k.lateLearning}/${k.lateControl}`).join(', ')})`,
    },
    {
      name: `${name}: no lesson or skill mixes two kinds`,
      met: g.mixing.length === 0,
      detail: `${g.mixing.length} of ${items} items${g.mixing.length ? `: ${g.mixing.map((i) => `${i.path} (${i.kinds.join(' + ')})`).join('; ')}` : ''}`,
    },
    {
      name: `${name}: ≤ 10% of surfaced items off target`,
      met: g.surfaced.length > 0 && g.offTarget.length * 10 <= g.surfaced.length,
      detail: `${g.offTarget.length} of ${g.surfaced.length}${g.surfaced.length ? ` (${Math.round((100 * g.offTarget.length) / g.surfaced.length)}%)` : ''}`,
    },
    {
      name: `${name}: every recurring kind has an item naming its error and its (current) fix`,
      met: g.kinds.every((k) => k.naming.length > 0),
      detail: g.kinds.map((k) => `${k.kind}: ${k.naming.length ? k.naming.join(', ') : 'none'}`).join('; '),
    },
    {
      name: `${name}: no one-off became a lesson or skill, or was surfaced`,
      met: g.oneOffItems.length === 0 && g.oneOffSurfaced.length === 0,
      detail: `${g.oneOffItems.length} items${g.oneOffItems.length ? ` (${g.oneOffItems.map((i) => i.path).join(', ')})` : ''}, surfaced ${g.oneOffSurfaced.length} times`,
    },
    {
      name: `${name}: after the change (${world.specs[def.upgrade.before]!.id}), once the old fix failed a plan, it is no longer surfaced`,
      met: g.staleSurfaced.length === 0,
      detail: `first failed a plan in ${g.staleLearnedIn}; surfaced ${g.staleSurfaced.length} times in ${
        world.specs
          .slice(world.specs.findIndex((s) => s.id === g.staleLearnedIn) + 1)
          .map((s) => s.id)
          .join(', ') || 'no later spec'
      }${g.staleSurfaced.length ? `: ${[...new Set(g.staleSurfaced.map((s) => s.split(' ')[1]))].join(', ')}` : ''}`,
    },
  ];
}
