/**
 * Statistics the engine shares (the conditions knowledge applies by, the holdout's intervals):
 * pure and deterministic, the same figures everywhere.
 */

/** Godfrey's Lanczos coefficients (g = 607/128, fifteen terms): ln Γ to about 15 significant digits. */
const LANCZOS = [
  0.9999999999999971, 57.15623566586292, -59.59796035547549, 14.136097974741746, -0.4919138160976202, 3.399464998481189e-5, 4.652362892704858e-5,
  -9.837447530487956e-5, 0.0001580887032249125, -0.00021026444172410488, 0.00021743961811521265, -0.0001643181065367639, 8.441822398385275e-5,
  -2.6190838401581408e-5, 3.6899182659531625e-6,
];
const LANCZOS_G = 607 / 128;

/** ln Γ(x) for x > 0. */
export function lnGamma(x: number): number {
  const z = x - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i]! / (z + i);
  const t = z + LANCZOS_G + 0.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

function lnChoose(n: number, k: number): number {
  return lnGamma(n + 1) - lnGamma(k + 1) - lnGamma(n - k + 1);
}

/**
 * One-sided Fisher's exact test: the chance that `n` plans drawn from `total`, `marked` of which
 * have a feature, hold `seen` or more of them, by the hypergeometric distribution. Small when the
 * plans that met a failure have a feature more often than chance would put it there (a condition,
 * engine/knowledge/documents/conditions.ts); near one when most plans have it anyway.
 */
export function hypergeometricTail(seen: number, n: number, marked: number, total: number): number {
  if (seen <= 0) return 1;
  const top = Math.min(n, marked);
  if (seen > top) return 0;
  const all = lnChoose(total, n);
  let p = 0;
  for (let x = seen; x <= top; x++) p += Math.exp(lnChoose(marked, x) + lnChoose(total - marked, n - x) - all);
  return Math.min(1, p);
}
