import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { HarnessError } from '../engine/core/error.js';
import { environmentFault } from '../machine/environment-fault.js';
import { EXIT, type CliIO } from './io.js';

/**
 * What the CLI does with an error no command handled. A HarnessError is a failure harness
 * describes (its message says what to do): one line, exit 1. Anything else is a bug in
 * harness, not a problem in the input, so it is not allowed to look like one: exit 70
 * (EX_SOFTWARE), one line saying so, and the stack in a file whose path is printed, where
 * a bug report can quote it from. A raw stack in the terminal helps nobody but a developer,
 * and exit 1 would tell a CI job "problems found" in a spec that may have none.
 */
export function reportUnhandled(e: unknown, command: string, argv: readonly string[], io: CliIO, dir = tmpdir()): number {
  // The machine failed, not harness: one line with what to do, no stack, no bug report (environment-fault.ts).
  const fault = environmentFault(e);
  if (fault !== undefined) {
    io.stderr(`harness ${command}: ${fault}\n`);
    return EXIT.environment;
  }
  if (e instanceof HarnessError) {
    io.stderr(`harness ${command}: ${firstLine(e.message)}\n`);
    return EXIT.problems;
  }
  const message = e instanceof Error ? `${e.name}: ${firstLine(e.message)}` : firstLine(String(e));
  const where = writeDetails(e, argv, dir);
  const details = where ? `the details are in ${where}; include that file when you report the bug` : `the details could not be written to ${dir}`;
  io.stderr(`harness: internal error (a bug in harness, not a problem in your input): ${message}; ${details}\n`);
  return EXIT.internal;
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

function writeDetails(e: unknown, argv: readonly string[], dir: string): string | undefined {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const path = join(dir, `harness-internal-error-${stamp}-${process.pid}.txt`);
  const text = [
    `harness internal error, ${new Date().toISOString()}`,
    `command: harness ${argv.join(' ')}`,
    `node: ${process.version} (${process.platform}/${process.arch})`,
    '',
    // inspect prints the stack and every `cause` below it.
    inspect(e, { depth: 6 }),
    '',
  ].join('\n');
  try {
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  } catch {
    return undefined;
  }
}
