/**
 * The intervals the holdout comparison gives (docs/knowledge.md, Reading the numbers), at 95%:
 *
 * - a difference of two proportions (first-attempt pass rates): Newcombe's hybrid score
 *   interval (Newcombe 1998, method 10), built from each group's Wilson score interval. It
 *   stays within -1 to 1 and behaves with few plans and with rates of 0 or 1, where the
 *   textbook (Wald) interval does not;
 * - a difference of two means (attempts, cost): Welch's t interval, which does not assume the
 *   two groups spread alike, with the Welch–Satterthwaite degrees of freedom.
 *
 * Pure and deterministic: the same plans give the same figures everywhere.
 */

import { lnGamma } from '../../core/stats.js';

/** The normal quantile for a two-sided 95% interval. */
export const Z95 = 1.959963984540054;

export interface Interval {
  low: number;
  high: number;
}

/** The difference of a group's figure and the other's, with its interval. */
export interface Difference extends Interval {
  estimate: number;
}

/** Wilson's score interval for x successes in n (n ≥ 1). */
export function wilson(x: number, n: number, z: number = Z95): Interval {
  const p = x / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** p1 − p2 (x1 of n1 against x2 of n2) with Newcombe's hybrid score interval; undefined when a group is empty. */
export function newcombe(x1: number, n1: number, x2: number, n2: number, z: number = Z95): Difference | undefined {
  if (n1 < 1 || n2 < 1) return undefined;
  const p1 = x1 / n1;
  const p2 = x2 / n2;
  const a = wilson(x1, n1, z);
  const b = wilson(x2, n2, z);
  const estimate = p1 - p2;
  return {
    estimate,
    low: estimate - Math.sqrt((p1 - a.low) ** 2 + (b.high - p2) ** 2),
    high: estimate + Math.sqrt((a.high - p1) ** 2 + (p2 - b.low) ** 2),
  };
}

export function mean(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0) / values.length;
}

function variance(values: readonly number[], m: number): number {
  return values.reduce((s, v) => s + (v - m) ** 2, 0) / (values.length - 1);
}

/**
 * mean(a) − mean(b) with Welch's interval; undefined when a group has fewer than two values or
 * neither spreads at all (every plan took one attempt: there is no interval to give).
 */
export function welch(a: readonly number[], b: readonly number[]): Difference | undefined {
  if (a.length < 2 || b.length < 2) return undefined;
  const ma = mean(a);
  const mb = mean(b);
  const va = variance(a, ma) / a.length;
  const vb = variance(b, mb) / b.length;
  const se = Math.sqrt(va + vb);
  if (!(se > 0)) return undefined;
  const df = (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  const t = studentTQuantile(0.975, df);
  const estimate = ma - mb;
  return { estimate, low: estimate - t * se, high: estimate + t * se };
}

/** The continued fraction of the incomplete beta function (modified Lentz). */
function betaFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-15) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b). */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** P(T ≤ t) for Student's t with df degrees of freedom (df > 0, not necessarily whole). */
export function studentTCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The t with P(T ≤ t) = p, for 0.5 < p < 1: by bisection on the distribution function. */
export function studentTQuantile(p: number, df: number): number {
  let low = 0;
  let high = 1;
  while (studentTCdf(high, df) < p) high *= 2;
  for (let i = 0; i < 200 && high - low > 1e-13 * Math.max(1, high); i++) {
    const mid = (low + high) / 2;
    if (studentTCdf(mid, df) < p) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}
