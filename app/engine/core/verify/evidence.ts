import { recognisedError } from './telling-line.js';

/**
 * Evidence is read by people in a table and by agents deciding what to fix: it must be
 * short, so long output is cut to its end, where runners print what went wrong.
 */

export const MAX_EVIDENCE_CHARS = 800;

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007/g;

/** Colour codes make output unreadable in Markdown and break line matching. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** The last lines of some output, at most `maxChars` long, marked when cut. */
export function tail(text: string, maxLines = 12, maxChars = 500): string {
  const lines = stripAnsi(text).replace(/\s+$/, '').split(/\r?\n/);
  let out = lines.slice(-maxLines).join('\n');
  const cut = lines.length > maxLines || out.length > maxChars;
  if (out.length > maxChars) out = out.slice(out.length - maxChars);
  return cut ? `…${out}` : out;
}

/** A value quoted for evidence, cut when long. */
export function quote(value: string, max = 80): string {
  const q = JSON.stringify(value);
  return q.length > max ? `${q.slice(0, max - 2)}…"` : q;
}

/** Cut evidence to the limit, keeping its start (the verdict and the first error, whole) and its end (the output tail). */
export function clip(text: string, max = MAX_EVIDENCE_CHARS): string {
  const t = text.trim() || '(nothing to show)';
  if (t.length <= max) return t;
  const firstError = t.indexOf(`\n${FIRST_ERROR}`);
  const firstErrorEnd = firstError < 0 ? -1 : t.indexOf('\n', firstError + 1);
  const head = Math.max(Math.floor(max * 0.4), Math.min(firstErrorEnd, max - 100));
  return `${t.slice(0, head)} … ${t.slice(t.length - (max - head - 3))}`;
}

/**
 * What introduces the first error a failing command's output names, on its own line of the
 * evidence: only an error a tool's recogniser knows (telling/), so that a signature made of it
 * is one (failure-reason.ts, evidenceErrorLine); an output that names none is told by its tail.
 */
export const FIRST_ERROR = 'first error: ';

/**
 * Exit status and output tail of a command, as evidence; for a failure, the first error the
 * whole output names too (telling-line.ts), whole, on the line after the verdict: the tail
 * holds the consequences (a runner's "# fail 1"), the cause is often far above it.
 */
export function commandEvidence(verdict: string, stdout: string, stderr: string, failed = false): string {
  const out = [stdout, stderr]
    .map((s) => s.replace(/\s+$/, ''))
    .filter((s) => s !== '')
    .join('\n');
  if (out.trim() === '') return `${verdict}; no output`;
  const telling = failed ? recognisedError(stripAnsi(out).split(/\r?\n/))?.line : undefined;
  return telling === undefined ? `${verdict}; output ends:\n${tail(out)}` : `${verdict}\n${FIRST_ERROR}${telling}\noutput ends:\n${tail(out)}`;
}
