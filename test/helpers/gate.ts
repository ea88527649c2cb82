import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
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

/**
 * A lifeline: a named pipe that the processes a test watches hold open for writing (`hold`, run
 * in their shell, and inherited by every process they start), so that the test learns they have
 * all ended from the kernel: end of file on the pipe's reading end, which the test opened first.
 * No look at /proc and no poll, though none of them is the test's child. A process that has
 * ended but was never reaped (a zombie) holds nothing: it counts as ended, as /proc would say.
 */
export interface Lifeline {
  readonly path: string;
  /** The shell command that holds the lifeline: the shell and what it starts from then on. */
  readonly hold: string;
  /** Resolves once every process that held the lifeline has ended (at least one must have held it). */
  readonly gone: Promise<void>;
}

/** A lifeline at `path` (a new named pipe), for the running test. */
export function lifeline(path: string): Lifeline {
  execFileSync('mkfifo', [path]);
  // Opened for reading before any holder: its open does not wait, and end of file comes only
  // once a holder has come and every holder has gone (not while none has come yet).
  const socket = new Socket({ fd: openSync(path, constants.O_RDONLY | constants.O_NONBLOCK), readable: true, writable: false });
  const gone = new Promise<void>((resolve) => socket.once('end', () => resolve()));
  socket.resume();
  onTestFinished(() => void socket.destroy());
  return { path, hold: `exec 9> ${shellQuote(path)}`, gone };
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
