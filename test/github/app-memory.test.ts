import { describe, expect, it } from 'vitest';
import { classify } from '../../app/gateway/limit-model.js';
import { AppMemory, REMEMBERED_MAX, ROUND_ORDERS_KEPT, SPEC_TREES_KEPT } from '../../app/github/app-memory.js';

describe("the App's memory of its waits on GitHub's limits", () => {
  it('keeps one pacer per installation, remembers the wait its requests are in, and forgets it once it is over', async () => {
    let now = Date.parse('2026-11-02T08:00:00Z');
    let seen: ReturnType<AppMemory['limitWaitOf']>;
    const memory: AppMemory = new AppMemory({
      requestsPerHour: 1,
      clock: {
        now: () => now,
        // Asked while a request waits, the wait is the one it is in.
        sleep: async (ms) => {
          seen = memory.limitWaitOf('installation:1');
          now += ms;
        },
      },
    });
    const pace = memory.paceOf('installation:1')!;
    expect(memory.paceOf('installation:1')).toBe(pace);
    expect(memory.paceOf('installation:2')).not.toBe(pace);
    const read = classify('GET', '/repos/o/r/issues');
    await pace.take(read);
    expect(memory.limitWaitOf('installation:1')).toBeUndefined();
    // The second request of the hour waits for the first to leave it.
    await pace.take(read);
    expect(seen).toEqual({ limit: 'primary', until: Date.parse('2026-11-02T09:00:00Z') });
    expect(memory.limitWaitOf('installation:1')).toBeUndefined();
    expect(memory.limitWaitOf('installation:2')).toBeUndefined();
  });

  it('paces nothing when HARNESS_APP_REQUESTS_PER_HOUR is 0', () => {
    expect(new AppMemory({ requestsPerHour: 0 }).paceOf('installation:1')).toBeUndefined();
  });
});

describe("the App's remembered caches", () => {
  it('each keeps at most its bound, the least recently used going first: a long-lived App process does not grow', () => {
    const memory = new AppMemory({ requestsPerHour: 0 });
    const caches = [
      [memory.statusComments, REMEMBERED_MAX, { id: 1, body: 'b', at: 0 }],
      [memory.scannedBlobs, REMEMBERED_MAX, []],
      [memory.blobs, REMEMBERED_MAX, new Uint8Array(1)],
      [memory.roundOrders, ROUND_ORDERS_KEPT, {}],
      [memory.specOrders, SPEC_TREES_KEPT, {}],
      [memory.specTrees, SPEC_TREES_KEPT, []],
    ] as const;
    for (const [cache, bound, value] of caches) {
      const set = cache.set.bind(cache) as (key: string, value: unknown) => void;
      for (let i = 0; i <= bound; i++) {
        set(`k${i}`, value);
        // The first one is used all along: it stays, and the second goes instead.
        cache.get('k0');
      }
      expect(cache.size).toBe(bound);
      expect(cache.has('k0')).toBe(true);
      expect(cache.has('k1')).toBe(false);
      expect(cache.has(`k${bound}`)).toBe(true);
    }
  });
});
