import { describe, expect, it } from 'vitest';
import { classify } from '../../app/gateway/limit-model.js';
import { appMemory, limitWaitOf, paceOf } from '../../app/github/app-memory.js';

describe("the App's memory of its waits on GitHub's limits", () => {
  it('keeps one pacer per installation, remembers the wait its requests are in, and forgets it once it is over', async () => {
    let now = Date.parse('2026-11-02T08:00:00Z');
    appMemory.clock = { now: () => now, sleep: async (ms) => void (now += ms) };
    const before = appMemory.requestsPerHour;
    appMemory.requestsPerHour = 1;
    try {
      const pace = paceOf('installation:1')!;
      expect(paceOf('installation:1')).toBe(pace);
      expect(paceOf('installation:2')).not.toBe(pace);
      const read = classify('GET', '/repos/o/r/issues');
      await pace.take(read);
      expect(limitWaitOf('installation:1')).toBeUndefined();
      // The second request of the hour waits for the first to leave it; asked meanwhile, the wait is the one it is in.
      let seen: ReturnType<typeof limitWaitOf>;
      const sleep = appMemory.clock.sleep;
      appMemory.clock.sleep = async (ms) => {
        seen = limitWaitOf('installation:1');
        await sleep(ms);
      };
      await pace.take(read);
      expect(seen).toEqual({ limit: 'primary', until: Date.parse('2026-11-02T09:00:00Z') });
      expect(limitWaitOf('installation:1')).toBeUndefined();
      expect(limitWaitOf('installation:2')).toBeUndefined();
    } finally {
      appMemory.requestsPerHour = before;
    }
  });

  it('paces nothing when HARNESS_APP_REQUESTS_PER_HOUR is 0', () => {
    const before = appMemory.requestsPerHour;
    appMemory.requestsPerHour = 0;
    try {
      expect(paceOf('installation:1')).toBeUndefined();
    } finally {
      appMemory.requestsPerHour = before;
    }
  });
});
