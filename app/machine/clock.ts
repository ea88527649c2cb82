import { performance } from 'node:perf_hooks';
import type { Clock } from '../engine/core/clock.js';

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
