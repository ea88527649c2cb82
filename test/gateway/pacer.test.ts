import { describe, expect, it } from 'vitest';
import { requestsPerHour, RollingWindow, type Clock } from '../../app/gateway/pacer.js';

/** A clock that moves only when someone sleeps on it. */
function manualClock(start = 0): Clock & { slept: number[] } {
  let now = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}

describe('the rolling window', () => {
  it('lets requests through at once while the window has room', async () => {
    const clock = manualClock();
    const window = new RollingWindow(3, 1_000, clock);
    await window.take();
    await window.take();
    await window.take();
    expect(clock.slept).toEqual([]);
    expect(window.used).toBe(3);
  });

  it('makes the next one wait until the oldest leaves the window, never more in any window than the limit', async () => {
    const clock = manualClock();
    const window = new RollingWindow(2, 1_000, clock);
    const at: number[] = [];
    for (let i = 0; i < 6; i++) {
      await window.take();
      at.push(clock.now());
    }
    expect(at).toEqual([0, 0, 1_000, 1_000, 2_000, 2_000]);
    for (const t of at) expect(at.filter((u) => u > t - 1_000 && u <= t).length).toBeLessThanOrEqual(2);
    expect(window.waited).toEqual({ requests: 2, ms: 2_000 });
  });

  it('serves concurrent callers in the order they asked', async () => {
    const clock = manualClock();
    const window = new RollingWindow(1, 100, clock);
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((n) => window.take().then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3]);
    expect(clock.now()).toBe(200);
  });

  it('counts a request recorded after the fact (a read GitHub answered in full)', async () => {
    const clock = manualClock();
    const window = new RollingWindow(1, 100, clock);
    window.record();
    await window.take();
    expect(clock.now()).toBe(100);
  });

  it('refuses a window that could never admit anything', () => {
    expect(() => new RollingWindow(0, 100)).toThrow(/positive limit/);
  });
});

describe('HARNESS_APP_REQUESTS_PER_HOUR', () => {
  it('is 2,400 unless set, 0 turns pacing off, and anything else is refused with the fix', () => {
    expect(requestsPerHour({})).toBe(2_400);
    expect(requestsPerHour({ HARNESS_APP_REQUESTS_PER_HOUR: '4000' })).toBe(4_000);
    expect(requestsPerHour({ HARNESS_APP_REQUESTS_PER_HOUR: '0' })).toBe(0);
    expect(() => requestsPerHour({ HARNESS_APP_REQUESTS_PER_HOUR: 'lots' })).toThrow('HARNESS_APP_REQUESTS_PER_HOUR is "lots": give a whole number of requests an hour (0 turns pacing off)');
  });
});
