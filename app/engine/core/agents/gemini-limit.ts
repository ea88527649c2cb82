/**
 * Whether a Gemini CLI run stopped at the model's quota or rate limit, and when it resets. Read
 * in @google/gemini-cli 0.61.0 (utils/errorParsing.js, utils/googleQuotaErrors.js): the CLI
 * retries a per-minute 429 itself (ten attempts, "Attempt n failed: … Retrying after …ms" on
 * stderr); what it cannot wait out ends the run in a result with status "error" and the message
 *
 *   [API Error: You have exhausted your daily quota on this model.]
 *   Please wait and try again later. To increase your limits, request a quota increase through AI Studio, or switch to another /auth method
 *
 * ("…through Vertex, …" with Vertex AI; "Possible quota limitations in place or slow response
 * times detected. Switching to the … model for the rest of this session." with a Google login),
 * the first line being the API's message, sometimes followed by the CLI's "Suggested retry after
 * 43s." or the API's "Please retry in 37.4s". The process exits with the HTTP status as its code
 * (429, seen as 173). Daily quotas reset at midnight Pacific time (Google's rate-limit
 * documentation for the Gemini API; the CLI names no time): that is the reset given for one.
 */

export interface GeminiLimit {
  /** The CLI's words, on one line. */
  evidence: string;
  resetsAt?: Date;
}

/** The CLI's own sentences for a 429 (errorParsing.js), and the quota errors it classifies (googleQuotaErrors.js). */
const LIMIT_SENTENCES = [
  'Please wait and try again later. To increase your limits, request a quota increase through',
  'Possible quota limitations in place or slow response times detected.',
  'You have exhausted your daily quota on this model.',
];
const CAPACITY = /exhausted your capacity|capacity exceeded|MODEL_CAPACITY_EXHAUSTED/i;
const RETRY_AFTER = /(?:Suggested retry after|Please retry in) ([0-9.]+)(ms|s)\b/i;

/** The limit a run's final error names, if it is one; `now` places a reset given as a delay. */
export function geminiLimitOf(message: string, now: Date): GeminiLimit | undefined {
  const said = LIMIT_SENTENCES.some((s) => message.includes(s)) || CAPACITY.test(message);
  if (!said) return undefined;
  const evidence = message.replace(/\s+/g, ' ').trim().slice(0, 400);
  const retry = RETRY_AFTER.exec(message);
  if (retry) return { evidence, resetsAt: new Date(now.getTime() + Math.ceil(Number(retry[1]) * (retry[2] === 'ms' ? 1 : 1000))) };
  if (message.includes('exhausted your daily quota')) return { evidence, resetsAt: nextPacificMidnight(now) };
  return { evidence };
}

/**
 * The reason the gemini agent gives for such a stop: "429" and "(resets <ISO time>)" in it are what
 * the worker's rateLimitOf reads, to pause the plan (neutral) until then rather than fail it.
 */
export function geminiLimitReason(limit: GeminiLimit): string {
  return `gemini stopped at the model's quota (429): ${limit.evidence}${limit.resetsAt ? ` (resets ${limit.resetsAt.toISOString()})` : ''}`;
}

/** The next midnight in America/Los_Angeles after `now`. */
export function nextPacificMidnight(now: Date): Date {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/Los_Angeles',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    hourCycle: 'h23',
  }).formatToParts(now);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  const offset = wall - Math.floor(now.getTime() / 1000) * 1000;
  // Midnight of the next wall-clock day, in the offset of now (a change of offset overnight is an hour off at worst, then checked once).
  const midnight = Date.UTC(get('year'), get('month') - 1, get('day') + 1) - offset;
  const check = new Intl.DateTimeFormat('en-US', { timeZone: 'America/Los_Angeles', hour: 'numeric', hourCycle: 'h23' }).format(new Date(midnight));
  const hour = Number(check) % 24;
  if (hour === 0) return new Date(midnight);
  return new Date(midnight + (hour >= 12 ? 24 - hour : -hour) * 3_600_000);
}
