import type { Ticker } from '../../app/engine/core/clock.js';

/** A ticker whose time moves only when the test says: `advance` moves it and fires every timer once. */
export interface ManualTicker extends Ticker {
  advance(ms: number): void;
  /** Timers not cancelled. */
  readonly active: number;
}

export function manualTicker(): ManualTicker {
  let now = 0;
  const timers = new Set<() => void>();
  return {
    monotonic: () => now,
    every(_ms, fn) {
      const timer = () => fn();
      timers.add(timer);
      return () => void timers.delete(timer);
    },
    advance(ms) {
      now += ms;
      for (const timer of [...timers]) timer();
    },
    get active() {
      return timers.size;
    },
  };
}
