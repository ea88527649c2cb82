import { instantOf, wallClock } from './rate-limit.js';

/**
 * The Codex CLI's words for a stop at the model's usage limit (@openai/codex 0.171.0, read from
 * its binary and from its runs against a Responses API that answered 429 usage_limit_reached):
 * an `error` event and then `turn.failed` with the same message, exit 1. By the account's plan:
 *
 *   You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 7:34 PM.
 *   You’ve hit your usage limit. Visit https://chatgpt.com/settings/usage to purchase more credits or try again at Nov 28th, 2026 7:34 PM.
 *   You’ve hit your usage limit. To get more access now, send a request to your admin or try again at 7:34 PM.
 *   You’ve hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again at 7:34 PM.
 *   You’ve hit your usage limit. Try again at 7:34 PM.
 *
 * (the apostrophe is U+2019). The time is the wall clock of the CLI's own time zone (its TZ; the
 * same reset printed "2:34 PM" with TZ=America/New_York), with no zone named: a time alone is
 * today's, a later day is written "Nov 28th, 2026 7:34 PM". An API key out of credit says
 * "Quota exceeded. Check your plan and billing details."; a 429 the CLI gave up retrying says
 * "exceeded retry limit, last status: 429 Too Many Requests". Both are limits without a reset time.
 */
export interface CodexLimit {
  /** The CLI's own words (the first line). */
  evidence: string;
  /** When it resets, where the words say and the zone is known. */
  resetsAt?: Date;
}

const USAGE_LIMIT = /You[’']ve hit your usage limit\.[^\n]*/;
const OTHER_LIMITS = [/Quota exceeded\. Check your plan and billing details\.[^\n]*/, /exceeded retry limit, last status: 429\b[^\n]*/];
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** "try again at 7:34 PM", "Try again at Nov 28th, 2026 7:34 PM". */
const TRY_AGAIN = /try again at (?:([A-Z][a-z]{2}) (\d{1,2})(?:st|nd|rd|th)?, (\d{4}) )?(\d{1,2}):(\d{2}) ([AP]M)/i;

/** The usage or rate limit a Codex message names, if any; `timeZone` is the CLI's, `now` places a time given without a date. */
export function codexLimitOf(text: string, now: Date, timeZone: string): CodexLimit | undefined {
  const usage = USAGE_LIMIT.exec(text);
  if (usage) {
    const evidence = usage[0].trim();
    const resetsAt = tryAgainAt(evidence, now, timeZone);
    return resetsAt ? { evidence, resetsAt } : { evidence };
  }
  for (const pattern of OTHER_LIMITS) {
    const found = pattern.exec(text);
    if (found) return { evidence: found[0].trim() };
  }
  return undefined;
}

/** The instant "try again at …" names in a zone: on the date given, else the first such time from now on. */
export function tryAgainAt(text: string, now: Date, timeZone: string): Date | undefined {
  const m = TRY_AGAIN.exec(text);
  if (!m) return undefined;
  const [, mon, day, year, hour, minute, half] = m;
  let h = Number(hour) % 12;
  if (half!.toUpperCase() === 'PM') h += 12;
  const min = Number(minute);
  if (h > 23 || min > 59) return undefined;
  if (mon !== undefined) {
    const month = MONTHS.indexOf(mon.toLowerCase());
    return month < 0 ? undefined : instantOf(timeZone, Number(year), month, Number(day), h, min);
  }
  const today = wallClock(now, timeZone);
  if (today === undefined) return undefined;
  for (const add of [0, 1]) {
    const at = instantOf(timeZone, today.year, today.month, today.day + add, h, min);
    if (at !== undefined && at.getTime() > now.getTime() - 60_000) return at;
  }
  return undefined;
}

/** The zone the CLI prints its times in: its TZ when it names one the runtime knows, else this machine's. */
export function cliTimeZone(env: Record<string, string | undefined>): string {
  const tz = env.TZ?.replace(/^:/, '');
  if (tz && wallClock(new Date(0), tz) !== undefined) return tz;
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
