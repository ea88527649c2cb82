import type { CliIO } from './io.js';

/**
 * Everything the CLI prints can carry text a spec's author wrote (ids, titles, paths,
 * globs, YAML error excerpts), and a fork's author is not to be trusted with the reader's
 * terminal: an ESC starts a sequence that recolours, retitles the window (OSC), hides text
 * or writes a clickable link, a bare "\r" overwrites what was printed, and the bidi controls
 * reorder a line into something it does not say. Every control character but newline and
 * tab, DEL, the C1 controls and the bidi controls are printed as a visible "\u001b" instead.
 * In JSON output that is the same string escaped, so `--json` stays valid JSON.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The live progress view's own redraw (cursor up n lines, clear below), which it writes as
 * a chunk of its own: passed as it is. Author text never arrives as a chunk by itself.
 */
// eslint-disable-next-line no-control-regex
const REDRAW = /^(?:\u001b\[\d{1,4}A)?\u001b\[0J$/;

export function terminalSafeChunk(text: string): string {
  return REDRAW.test(text) ? text : terminalSafe(text);
}

/** The same IO with both streams passed through terminalSafeChunk: what every command prints through. */
export function terminalSafeIO(io: CliIO): CliIO {
  return { ...io, stdout: (t) => io.stdout(terminalSafeChunk(t)), stderr: (t) => io.stderr(terminalSafeChunk(t)) };
}
