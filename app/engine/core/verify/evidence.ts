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

/** Cut evidence to the limit, keeping its start (the verdict) and its end (the output tail). */
export function clip(text: string, max = MAX_EVIDENCE_CHARS): string {
  const t = text.trim() || '(nothing to show)';
  if (t.length <= max) return t;
  const head = Math.floor(max * 0.4);
  return `${t.slice(0, head)} … ${t.slice(t.length - (max - head - 3))}`;
}

/** Exit status and output tail of a command, as evidence. */
export function commandEvidence(verdict: string, stdout: string, stderr: string): string {
  const out = [stdout, stderr].map((s) => s.replace(/\s+$/, '')).filter((s) => s !== '').join('\n');
  return out.trim() === '' ? `${verdict}; no output` : `${verdict}; output ends:\n${tail(out)}`;
}
