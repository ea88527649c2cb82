import { describe, expect, it } from 'vitest';
import { classify } from '../../app/gateway/limit-model.js';
import { AppMemory } from '../../app/github/app-memory.js';

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
