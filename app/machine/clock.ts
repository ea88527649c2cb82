import { performance } from 'node:perf_hooks';
import type { Clock, Ticker } from '../engine/core/clock.js';

/** This machine's clock and timers. `now` replaces the wall clock (a run's own, or a test's). */
export function systemClock(now: () => Date = () => new Date()): Clock {
  return {
    now,
    monotonic: () => performance.now(),
    after(ms, fn) {
      const timer = setTimeout(fn, ms);
      return () => clearTimeout(timer);
    },
  };
}

/** This machine's repeating timer: unreferenced, so that it never keeps the process alive on its own. */
export function systemTicker(): Ticker {
  return {
    monotonic: () => performance.now(),
    every(ms, fn) {
      const timer = setInterval(fn, ms);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
