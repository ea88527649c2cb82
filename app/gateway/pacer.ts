/**
 * The clock the limits model (limit-model.ts) waits on, and the App's own share of its
 * installation's primary allowance.
 *
 * Why the App paces at all, when GitHub would answer 403 at the limit: an installation's
 * 5,000 requests an hour are shared with the worker jobs that run with the App's token, and a
 * limit hit in the middle of a round leaves it half done until the next event.
 */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * The App's requests an hour per installation, from HARNESS_APP_REQUESTS_PER_HOUR: 2,400 unless
 * set, under half of an installation's 5,000 so that the worker jobs holding the same token keep
 * the rest; `0` turns pacing off.
 */
export function requestsPerHour(env: Record<string, string | undefined> = process.env): number {
  const raw = env.HARNESS_APP_REQUESTS_PER_HOUR;
  if (raw === undefined || raw.trim() === '') return DEFAULT_REQUESTS_PER_HOUR;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0)
    throw new RangeError(`HARNESS_APP_REQUESTS_PER_HOUR is "${raw}": give a whole number of requests an hour (0 turns pacing off)`);
  return n;
}

export const DEFAULT_REQUESTS_PER_HOUR = 2_400;
export const HOUR_MS = 3_600_000;
