import { createHash } from 'node:crypto';

/**
 * The holdout (docs/knowledge.md, The holdout): with `knowledge.holdout: <fraction>`, a seeded
 * share of plans runs without surfaced knowledge, so that `harness retrospective` can compare the
 * plans that were offered what was learned with the ones that were not. Which plans is a pure
 * function of the seed and the spec's and the plan's ids: the same plan is held out on every
 * attempt, resume and retry, on this machine and on a runner alike, with nothing to remember.
 */

/** The seed when `knowledge.holdout_seed` names none: a constant, so that a clone, a fork and a runner agree. */
export const DEFAULT_HOLDOUT_SEED = 'harness';

export interface HoldoutSettings {
  /** The share of plans held out, 0 to 1. */
  fraction: number;
  seed: string;
}

/** The settings from `.github/harness.yml`'s knowledge section; undefined when nothing is held out. */
export function holdoutSettings(knowledge: { holdout?: number; holdout_seed?: string }): HoldoutSettings | undefined {
  const fraction = knowledge.holdout ?? 0;
  return fraction > 0 ? { fraction, seed: knowledge.holdout_seed ?? DEFAULT_HOLDOUT_SEED } : undefined;
}

/** A plan's draw, uniform in [0, 1): the first 52 bits of sha256(seed, spec, plan), each ended by a NUL. */
export function holdoutDraw(seed: string, spec: string, plan: string): number {
  const hex = createHash('sha256').update(`${seed}\0${spec}\0${plan}\0`).digest('hex');
  return Number.parseInt(hex.slice(0, 13), 16) / 2 ** 52;
}

/** Whether the plan runs without surfaced knowledge: its draw falls below the fraction. */
export function isHeldOut(settings: HoldoutSettings | undefined, spec: string, plan: string): boolean {
  if (settings === undefined || !(settings.fraction > 0)) return false;
  if (settings.fraction >= 1) return true;
  return holdoutDraw(settings.seed, spec, plan) < settings.fraction;
}

/** What the run says of a held-out plan: `01-02 held out: runs without surfaced knowledge (knowledge.holdout 0.1)`. */
export function heldOutLine(plan: string, fraction: number): string {
  return `${plan} held out: runs without surfaced knowledge (knowledge.holdout ${fraction})`;
}
