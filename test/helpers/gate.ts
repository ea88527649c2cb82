import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { onTestFinished } from 'vitest';

/**
 * A gate a shell step waits at until the test lets it through, with no poll on either side: a
 * named pipe the step reads one line from (`read`, which blocks in the kernel until a line
 * comes), and the test writes one line per waiter it lets through (or another process does,
 * `echo $$ > gate`: a step waiting for its own background process to say it started).
 *
 * The test holds the pipe open for reading and writing from the start, so neither side's open
 * blocks and a line written before the step arrives waits in the pipe for it: opening the gate
 * early and arriving late both work, in either order. The test's end closes it (a step still
 * waiting then reads end of file and goes on), so no test leaves a descriptor behind.
 */
export interface Gate {
  readonly path: string;
  /** The shell command that waits at the gate: a step's script puts it where the step must wait. */
  readonly wait: string;
  /** Lets `waiters` steps through, each now or when it arrives. */
  open(waiters?: number): void;
}

/** A gate at `path` (a new named pipe), for the running test. */
export function gate(path: string): Gate {
  execFileSync('mkfifo', [path]);
  // O_RDWR: a pipe's open for writing alone blocks until a reader comes; this one never does.
  const fd = openSync(path, constants.O_RDWR | constants.O_NONBLOCK);
  onTestFinished(() => closeSync(fd));
  return {
    path,
    // sh's read takes a pipe's bytes one at a time up to the newline: one line, one waiter.
    wait: `read -r gate_line < ${shellQuote(path)}`,
    open(waiters = 1) {
      writeSync(fd, '\n'.repeat(waiters));
    },
  };
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
