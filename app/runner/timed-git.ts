import { Git, type GitOptions } from '../machine/git.js';

/** Time spent in git by the orchestrator, kept apart so the engine's own overhead can be measured. */
export class Stopwatch {
  ms = 0;

  async time<T>(work: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await work();
    } finally {
      this.ms += performance.now() - start;
    }
  }
}

export class TimedGit extends Git {
  constructor(
    cwd: string,
    private readonly watch: Stopwatch,
    options?: GitOptions,
  ) {
    super(cwd, options);
  }

  override run(args: string[], input?: string): Promise<string> {
    return this.watch.time(() => super.run(args, input));
  }
}
