import { readFileSync } from 'node:fs';
import { asSpec } from './optima/instances.js';
import { simulate } from '../app/engine/core/schedule/simulate.js';
const doc = JSON.parse(readFileSync('bench/optima/instances.json', 'utf8'));
const ratios: number[] = [];
const t0 = performance.now();
for (const r of doc.instances) {
  const { spec, durations } = asSpec(r.instance);
  const s = simulate(spec, { slots: r.slots, durations });
  ratios.push(s.makespan / r.optimum);
  if (s.makespan / r.optimum > 1.02) console.log(r.plans, r.slots, r.density, s.makespan, r.optimum, s.priority);
}
ratios.sort((a, b) => a - b);
const k = ratios.length;
console.log('median', ratios[Math.floor(k / 2)], 'p90', ratios[Math.floor(k * 0.9)], 'max', ratios[k - 1], Math.round(performance.now() - t0), 'ms');
