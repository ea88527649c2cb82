/**
 * Whether an agent stopped because the model's rate or usage limit was hit, and when it resets:
 * a pause to wait out, not a failure of the plan.
 *
 * Claude Code says so in the text of its final result, in words that change between versions;
 * the ones recognised here are read from the pinned CLI's own source (2.1.332: the list it
 * checks its own limit messages against, and the function that writes them):
 *
 *   You've hit your session limit · resets 3pm (UTC)
 *   You've hit your weekly limit · resets Nov 28, 3pm (America/New_York)
 *   You've hit your Opus limit · resets Jan 2, 2027, 9:30am (Europe/Berlin) · progress saved
 *   You've reached your usage limit · …   You're out of usage credits · resets …
 *
 * The reset time is the runner's wall clock in the named zone, within a day without a date. Its
 * stream-json also carries a `rate_limit_event` whose `resetsAt` is exact (unix seconds): the
 * claude agent writes that into its reason as "(resets <ISO time>)", which wins over the words.
 * Older versions said "Claude AI usage limit reached|<unix seconds>"; an API 429 or
 * rate_limit_error is a limit too, with no reset time.
 */
export interface RateLimit {
  /** When the limit resets, if the agent said. */
  resetsAt?: Date;
  /** The agent's own words. */
  evidence: string;
}

const STAMPED = /usage limit reached\|(\d{9,11})/i;
/** What the claude agent appends when the stream's rate_limit_event gave the exact time. */
const EXACT = /\(resets (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z)\)/;
/**
 * The starts of Claude Code's own limit messages (2.1.332's list of them, and its pattern for a
 * model that needs usage credits), which it prints as they are in a result.
 */
const CLI_LIMIT_STARTS = [
  "You've hit your",
  "You've reached your",
  "You're out of usage credits",
  "You're out of extra usage",
  'Your org is out of usage',
  "Your seat type doesn't include usage",
  "Your seat type doesn't include extra usage",
  'Your usage allocation has been disabled by your admin',
  "Your group's usage limit is set to $0",
];
const CLI_LIMIT = new RegExp(
  `(?:^|[\\s:])((?:${CLI_LIMIT_STARTS.map(escape).join('|')})[^\\n]*|(?:Fable|Haiku|Mythos|Opus|Sonnet)(?: [^\\u00B7\\n]{1,40})? requires usage credits\\.[^\\n]*)`,
);
const LIMIT_WORDS = /(usage limit reached|rate[_ ]limit(?:_error|ed| exceeded| reached)?|\b429\b|limit reached[^\n]*resets?)/i;
/** The Codex CLI's own limit messages (codex-limit.ts); the codex agent adds the exact reset as "(resets <ISO time>)". */
const CODEX_LIMIT =
  /You’ve hit your usage limit\.[^\n]*|Quota exceeded\. Check your plan and billing details\.[^\n]*|exceeded retry limit, last status: 429\b[^\n]*/;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** "resets 3pm", "resets 9:30am (Europe/Berlin)", "resets Nov 28, 3pm (UTC)", "resets Jan 2, 2027, 3pm (UTC)". */
const RESETS = /resets (?:([A-Z][a-z]{2}) (\d{1,2}), (?:(\d{4}), )?)?(\d{1,2})(?::(\d{2}))?\s?([ap]m)(?: \(([A-Za-z0-9_+\-/]{1,64})\))?/i;

/** The rate or usage limit an agent's words name, if any; `now` places a reset time given without a date. */
export function rateLimitOf(text: string, now: Date): RateLimit | undefined {
  const stamped = STAMPED.exec(text);
  if (stamped) return { resetsAt: new Date(Number(stamped[1]) * 1000), evidence: stamped[0] };
  const cli = CLI_LIMIT.exec(text);
  if (cli) {
    const evidence = cli[1]!.replace(EXACT, '').trim();
    const exact = EXACT.exec(text);
    const resetsAt = exact ? new Date(exact[1]!) : resetTimeOf(evidence, now);
    return resetsAt ? { resetsAt, evidence } : { evidence };
  }
  const codex = CODEX_LIMIT.exec(text);
  if (codex) {
    const exact = EXACT.exec(text);
    const evidence = codex[0].replace(EXACT, '').trim();
    return exact ? { resetsAt: new Date(exact[1]!), evidence } : { evidence };
  }
  const worded = LIMIT_WORDS.exec(text);
  if (!worded) return undefined;
  const line =
    text
      .slice(Math.max(0, worded.index - 120), worded.index + 200)
      .split('\n')
      .find((l) => LIMIT_WORDS.test(l)) ?? worded[0];
  const exact = EXACT.exec(text);
  return exact ? { resetsAt: new Date(exact[1]!), evidence: line.trim() } : { evidence: line.trim() };
}

/**
 * Whether a final text is one of the CLI's own limit messages (which it may end a run with as a
 * "success"): it starts as one does and its first line speaks of a limit, usage or credits, so a
 * summary of the model's that happens to begin "You've reached your goal" is not taken for one.
 */
export function isCliLimitMessage(text: string): boolean {
  const first = text.trim().split('\n')[0] ?? '';
  const found = CLI_LIMIT.exec(first);
  return found !== null && found.index === 0 && /\b(limit|usage|credits?|budget)\b/i.test(first);
}

/**
 * The instant a "resets <time>" of the CLI names: the wall-clock time in its zone (the runner's
 * UTC when none is named), on the date given, else the first such time after `now`.
 */
export function resetTimeOf(text: string, now: Date): Date | undefined {
  const m = RESETS.exec(text);
  if (!m) return undefined;
  const [, mon, day, year, hour, minute, half, zone] = m;
  const tz = zone ?? 'UTC';
  let h = Number(hour) % 12;
  if (half!.toLowerCase() === 'pm') h += 12;
  const min = minute === undefined ? 0 : Number(minute);
  if (h > 23 || min > 59) return undefined;
  const today = wallClock(now, tz);
  if (today === undefined) return undefined;
  if (mon === undefined) {
    for (const add of [0, 1]) {
      const at = instantOf(tz, today.year, today.month, today.day + add, h, min);
      if (at !== undefined && at.getTime() > now.getTime() - 60_000) return at;
    }
    return undefined;
  }
  const month = MONTHS.indexOf(mon.toLowerCase());
  if (month < 0) return undefined;
  const y = year === undefined ? today.year : Number(year);
  const at = instantOf(tz, y, month, Number(day), h, min);
  // A date without a year that has passed already is next year's (the CLI leaves the year out only within this one).
  if (at !== undefined && year === undefined && at.getTime() < now.getTime() - 86_400_000) return instantOf(tz, y + 1, month, Number(day), h, min);
  return at;
}

export interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

/** The wall clock in a zone at an instant; undefined for a zone the runtime does not know. */
export function wallClock(at: Date, timeZone: string): Wall | undefined {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      hourCycle: 'h23',
    }).formatToParts(at);
  } catch (e) {
    if (e instanceof RangeError) return undefined;
    throw e;
  }
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { year: get('year'), month: get('month') - 1, day: get('day'), hour: get('hour') % 24, minute: get('minute') };
}

/** The instant at which the wall clock in a zone shows the given time (the zone's offset found, then checked once for a change of offset). */
export function instantOf(timeZone: string, year: number, month: number, day: number, hour: number, minute: number): Date | undefined {
  const wanted = Date.UTC(year, month, day, hour, minute);
  let guess = wanted;
  for (let i = 0; i < 2; i++) {
    const shown = wallClock(new Date(guess), timeZone);
    if (shown === undefined) return undefined;
    const offset = Date.UTC(shown.year, shown.month, shown.day, shown.hour, shown.minute) - guess;
    guess = wanted - offset;
  }
  return new Date(guess);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
