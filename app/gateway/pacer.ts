/**
 * A rolling-window pace for the App's requests: no more than `limit` in any `windowMs`. A
 * request that would pass it waits until the oldest one in the window leaves it, first come
 * first served, so that a large first sync (a thousand plan issues, their dependencies) is
 * spread over the hours it needs instead of spending an installation's whole allowance in one,
 * and whatever else the App does meanwhile waits its turn rather than failing.
 *
 * Why the App paces at all, when GitHub would answer 403 at the limit: an installation's
 * 5,000 requests an hour are shared with the worker jobs that run with the App's token, and a
 * limit hit in the middle of a round leaves it half done until the next event. Probot's own
 * throttling already spaces writes a second apart (under GitHub's 80 content-creating requests
 * a minute) and waits out a `retry-after`; this bounds the hour.
 */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export class RollingWindow {
  private readonly times: number[] = [];
  private queue: Promise<void> = Promise.resolve();
  /** Requests that waited for room, and how long in all (ms). */
  waited = { requests: 0, ms: 0 };

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly clock: Clock = realClock,
  ) {
    if (!(limit > 0) || !(windowMs > 0)) throw new RangeError(`a rolling window needs a positive limit and length, not ${limit} in ${windowMs} ms`);
  }

  /** How many requests the window holds now. */
  get used(): number {
    this.prune(this.clock.now());
    return this.times.length;
  }

  /** Wait for room, then count one request. Callers are served in the order they asked. */
  take(): Promise<void> {
    const turn = this.queue.then(() => this.admit());
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** Count one request that was made without asking first (a read GitHub did not answer 304). */
  record(): void {
    this.prune(this.clock.now());
    this.times.push(this.clock.now());
  }

  private async admit(): Promise<void> {
    let now = this.clock.now();
    this.prune(now);
    while (this.times.length >= this.limit) {
      const wait = this.times[0]! + this.windowMs - now;
      this.waited.requests++;
      this.waited.ms += Math.max(wait, 0);
      await this.clock.sleep(Math.max(wait, 1));
      now = this.clock.now();
      this.prune(now);
    }
    this.times.push(now);
  }

  private prune(now: number): void {
    let drop = 0;
    while (drop < this.times.length && this.times[drop]! <= now - this.windowMs) drop++;
    if (drop > 0) this.times.splice(0, drop);
  }
}

/**
 * The App's requests an hour per installation, from HARNESS_APP_REQUESTS_PER_HOUR: 2,400 unless
 * set, under half of an installation's 5,000 so that the worker jobs holding the same token keep
 * the rest; `0` turns pacing off.
 */
export function requestsPerHour(env: Record<string, string | undefined> = process.env): number {
  const raw = env.HARNESS_APP_REQUESTS_PER_HOUR;
  if (raw === undefined || raw.trim() === '') return DEFAULT_REQUESTS_PER_HOUR;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`HARNESS_APP_REQUESTS_PER_HOUR is "${raw}": give a whole number of requests an hour (0 turns pacing off)`);
  return n;
}

export const DEFAULT_REQUESTS_PER_HOUR = 2_400;
export const HOUR_MS = 3_600_000;
