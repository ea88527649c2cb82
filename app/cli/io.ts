import { HarnessError } from '../engine/core/error.js';
import type { Clock, Ticker } from '../engine/core/clock.js';
import { systemTicker } from '../machine/clock.js';
/** What a command may touch of the outside world; tests pass their own. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  isTTY: boolean;
  /**
   * The timer of a run's heartbeat (engine/lifecycle/heartbeat.ts): the machine's for a person's
   * terminal; a test passes its own, or none, and then a run prints no heartbeat.
   */
  ticker?: Ticker;
  /** The clock `harness run --wait` waits for a usage limit's reset with: the machine's unless a test gives its own. */
  clock?: Pick<Clock, 'now' | 'after'>;
  /**
   * How the advice a command prints names harness itself, so that a line pasted from it runs:
   * `harness` (on PATH once installed or linked) unless the caller knows better, as npm start
   * does (`node …/bin/harness.js` from a checkout).
   */
  self?: string;
}

/** The command that runs harness, as advice spells it. */
export function selfCommand(io: CliIO): string {
  return io.self ?? 'harness';
}

export function processIO(): CliIO {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
    isTTY: Boolean(process.stdout.isTTY),
    ticker: systemTicker(),
  };
}

/** Exit codes shared by every command: docs/design.md's CLI table. */
/** 70 is EX_SOFTWARE (sysexits.h): a bug in harness, never a verdict on the input. */
/** 74 (EX_IOERR): the machine failed (a full disk, a checkout's .git removed), not the spec and not harness. */
/** 75 (EX_TEMPFAIL): nothing failed, a plan waits for the model's usage limit to reset; the same command goes on after it. */
export const EXIT = { ok: 0, problems: 1, usage: 2, internal: 70, environment: 74, paused: 75 } as const;

export class UsageError extends HarnessError {}
