/**
 * The live area of `harness run` in a terminal: one row per running plan and a bar for the
 * spec, redrawn in place by moving the cursor up over the rows drawn before. That only works
 * when each line takes exactly one terminal row and the area fits on the screen: a line that
 * wraps, or an area taller than the terminal, leaves rows the cursor cannot reach, which
 * then stay behind as stale lines.
 */

export interface LivePlan {
  plan: string;
  title: string;
  detail: string;
  seconds: number;
  waiting: boolean;
}

export interface LiveTotals {
  plansVerified: number;
  plansTotal: number;
  phasesVerified: number;
  phasesTotal: number;
}

export interface LiveInput {
  plans: readonly LivePlan[];
  totals: LiveTotals;
  /** The terminal's size; the area keeps off its last column and a row for the cursor. */
  columns: number;
  rows: number;
  /** The spinner frame for running plans. */
  frame: string;
}

/** The area's lines, each at most columns - 1 wide as the terminal shows it, at most rows - 1 of them. */
export function liveLines(input: LiveInput): string[] {
  const width = Math.max(20, input.columns - 1);
  const maxRows = Math.max(2, input.rows - 1);
  const { plansVerified, plansTotal, phasesVerified, phasesTotal } = input.totals;
  const bar: string[] = [];
  if (plansTotal > 0) {
    const barWidth = Math.max(0, Math.min(30, width - 40));
    const filled = Math.round((plansVerified / plansTotal) * barWidth);
    const gauge = barWidth > 0 ? `[${'█'.repeat(filled)}${'░'.repeat(barWidth - filled)}] ` : '';
    bar.push(fit(`${gauge}${plansVerified}/${plansTotal} plans · ${phasesVerified}/${phasesTotal} phases`, width));
  }
  const room = maxRows - bar.length;
  // Plans waiting for a person first: they are what the person must see.
  const plans = [...input.plans].sort((a, b) => Number(b.waiting) - Number(a.waiting));
  const shown = plans.length > room ? plans.slice(0, Math.max(0, room - 1)) : plans;
  const lines = shown.map((r) => fit(`${r.waiting ? '?' : input.frame} ${r.plan} ${r.title} · ${oneLine(r.detail)} · ${r.seconds}s`, width));
  if (shown.length < plans.length) lines.push(fit(`… and ${plans.length - shown.length} more running`, width));
  return [...lines, ...bar];
}

/** Cut text to `width` terminal columns, marking the cut. */
export function fit(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const ch of text) {
    const w = charWidth(ch.codePointAt(0)!);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return `${out}…`;
}

/** How many columns a terminal gives the text: wide (East Asian, emoji) characters take two, combining marks none. */
export function displayWidth(text: string): number {
  let w = 0;
  for (const ch of text) w += charWidth(ch.codePointAt(0)!);
  return w;
}

function charWidth(cp: number): number {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

/** Step output can hold newlines and tabs; in a one-row line they would break the row count. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
