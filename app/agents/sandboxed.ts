import type { WorkerContext } from '../engine/core/agents/agent.js';

/** What starts a process: the fields the sandbox rewrites. */
interface Start {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
}

/**
 * The same start, inside the attempt's sandbox when the run has one (engine/core/agents/sandbox.ts):
 * the one place every agent process (a CLI, a command, a script's step) goes through, so that no
 * engine starts outside it.
 */
export async function inSandbox<T extends Start>(context: WorkerContext, engine: string, start: T, writes: readonly string[] = []): Promise<T> {
  if (!context.sandbox) return start;
  const wrapped = await context.sandbox.wrap({
    engine,
    command: start.command,
    args: start.args,
    cwd: start.cwd,
    env: start.env,
    ...(writes.length > 0 ? { writes } : {}),
  });
  return { ...start, command: wrapped.command, args: wrapped.args, env: wrapped.env };
}
