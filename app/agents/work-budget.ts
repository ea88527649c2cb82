import { performance } from 'node:perf_hooks';

/**
 * A plan's timeout_minutes, spent only while an agent process runs: the hours a checkpoint
 * waits for a person are not the agent's time, and must not make the plan time out.
 */
export class WorkBudget {
  private usedMs = 0;

  constructor(readonly minutes: number) {}

  remainingMs(): number {
    return Math.max(0, this.minutes * 60_000 - this.usedMs);
  }

  async spend<T>(work: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await work();
    } finally {
      this.usedMs += performance.now() - start;
    }
  }
}
