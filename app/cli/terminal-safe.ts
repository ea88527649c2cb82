import type { CliIO } from './io.js';

/**
 * Everything the CLI prints can carry text a spec's author wrote (ids, titles, paths,
 * globs, YAML error excerpts), and a fork's author is not to be trusted with the reader's
 * terminal: an ESC starts a sequence that recolours, retitles the window (OSC), hides text
 * or writes a clickable link, a bare "\r" overwrites what was printed, and the bidi controls
 * reorder a line into something it does not say. Every control character but newline and
 * tab, DEL, the C1 controls, the bidi controls and the other format characters (zero-width
 * ones) are printed as a visible "\u001b" instead.
 * In JSON output that is the same string escaped, so `--json` stays valid JSON.
 */
// Every control character (Cc) but tab and newline, every format character (Cf: the bidi controls, the zero-width ones), and the line and paragraph separators.
const UNSAFE = /(?![\t\n])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
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
