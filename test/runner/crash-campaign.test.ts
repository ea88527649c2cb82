/**
 * A local run killed with SIGKILL at random moments, and started again each time, ends
 * as an uninterrupted run does: the same files (timestamps and commit ids aside), no
 * commit twice, no worktree or process left behind. The bench runs fifty kills
 * (bench/crash.bench.ts); this runs a few, seeded, so a failure repeats.
 */
import { describe, expect, it } from 'vitest';
import { crashCampaign } from '../helpers/crash-campaign.js';

describe('the crash campaign', () => {
  it('eight random kills leave the same result as an uninterrupted run, nothing duplicated or leaked', async () => {
    const report = await crashCampaign({ kills: 8, seed: 7, maxDelayMs: 4_000 });
    expect(report.kills).toBe(8);
    expect(report.failures).toEqual([]);
    expect(report.complete).toBe(true);
    expect(report.differingFiles).toEqual([]);
    expect(report.duplicateCommits).toEqual([]);
    expect(report.leakedWorktrees).toBe(0);
    expect(report.leakedProcesses).toEqual([]);
  }, 240_000);
});
