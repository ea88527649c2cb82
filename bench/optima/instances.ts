/**
 * The small specs the scheduling benchmark compares against proven optima: random
 * dependency graphs shaped like real specs (plans depend on a few recent plans), every
 * plan writing one to three literal files. "High" conflict density draws those files
 * from a handful shared by every plan, "low" from many, so that few plans meet.
 */
import type { ScheduleSpec } from '../../app/engine/core/schedule/layout.js';
import { mulberry32 } from '../lib.js';
import type { Instance } from './exact.js';

export type Density = 'low' | 'high';

export interface Shape {
  seed: number;
  plans: number;
  slots: number;
  density: Density;
}

export function makeInstance(shape: Shape): Instance {
  const r = mulberry32(shape.seed);
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const n = shape.plans;
  const fileCount = shape.density === 'high' ? Math.max(3, Math.round(n / 5)) : n * 2;
  const window = int(2, 8);
  const durations: number[] = [];
  const deps: number[][] = [];
  const files: string[][] = [];
  for (let i = 0; i < n; i++) {
    const ds = new Set<number>();
    const wanted = i === 0 || r() < 0.3 ? 0 : int(1, 2);
    for (let k = 0; k < wanted; k++) ds.add(int(Math.max(0, i - window), i - 1));
    deps.push([...ds].sort((a, b) => a - b));
    const fs = new Set<string>();
    const count = int(1, shape.density === 'high' ? 2 : 3);
    for (let k = 0; k < count; k++) fs.add(`src/f${String(int(1, fileCount)).padStart(2, '0')}.ts`);
    files.push([...fs]);
    // Mostly short plans with a few long ones, as agents' work goes.
    durations.push(r() < 0.2 ? int(20, 60) : int(2, 20));
  }
  return { durations, deps, files, slots: shape.slots };
}

/** The instance as the scheduler reads a spec: one phase, plans p01, p02, … */
export function asSpec(inst: Instance): { spec: ScheduleSpec; durations: Record<string, number> } {
  const id = (i: number) => `p${String(i + 1).padStart(2, '0')}`;
  const plans = inst.durations.map((_, i) => ({ id: id(i), phase: '01', dependsOn: inst.deps[i]!.map(id), filesModified: inst.files[i]! }));
  return {
    spec: { phases: [{ id: '01', plans: plans.map((p) => p.id) }], plans },
    durations: Object.fromEntries(inst.durations.map((d, i) => [id(i), d])),
  };
}
