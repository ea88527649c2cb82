import { appMemory } from '../../app/github/app-memory.js';

/**
 * The App's pace (gateway/limit-model.ts) waits on a clock that jumps instead of sleeping: a
 * test or a benchmark that makes more requests than GitHub's limits allow in a minute sees them
 * paced (the waits are counted, in `appMemory.paces`' `waited`) without waiting in real time,
 * as Probot's own throttling is off there.
 */
export function skipAppWaits(): void {
  let skipped = 0;
  appMemory.clock = {
    now: () => Date.now() + skipped,
    sleep: async (ms) => {
      skipped += ms;
    },
  };
}
