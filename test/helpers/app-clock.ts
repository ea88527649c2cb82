import type { Clock } from '../../app/gateway/pacer.js';

/**
 * A clock for the App's pace (gateway/limit-model.ts) that jumps instead of sleeping: a test or a
 * benchmark that makes more requests than GitHub's limits allow in a minute sees them paced (the
 * waits are counted, in the memory's `paces`' `waited`) without waiting in real time, as Probot's
 * own throttling is off there. Give it to the App's memory: `restartApp({ clock: skippingClock() })`.
 */
export function skippingClock(): Clock {
  let skipped = 0;
  return {
    now: () => Date.now() + skipped,
    sleep: async (ms) => {
      skipped += ms;
    },
  };
}
