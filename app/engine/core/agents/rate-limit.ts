/**
 * Whether an agent stopped because the model's rate or usage limit was hit, and when it resets:
 * a pause to wait out, not a failure of the plan. Claude Code ends such a run with an error
 * result whose text is "Claude AI usage limit reached|<unix seconds of the reset>" (older
 * versions) or names the limit and its reset in words; an API 429 / rate_limit_error says so too.
 */
export interface RateLimit {
  /** When the limit resets, if the agent said. */
  resetsAt?: Date;
  /** The agent's own words. */
  evidence: string;
}

const USAGE_LIMIT = /usage limit reached\|(\d{9,11})/i;
const LIMIT_WORDS = /(usage limit reached|rate[_ ]limit(?:_error|ed| exceeded| reached)?|\b429\b|limit reached[^\n]*resets?)/i;

export function rateLimitOf(text: string): RateLimit | undefined {
  const stamped = USAGE_LIMIT.exec(text);
  if (stamped) return { resetsAt: new Date(Number(stamped[1]) * 1000), evidence: stamped[0] };
  const worded = LIMIT_WORDS.exec(text);
  if (!worded) return undefined;
  const line = text.slice(Math.max(0, worded.index - 120), worded.index + 200).split('\n').find((l) => LIMIT_WORDS.test(l)) ?? worded[0];
  return { evidence: line.trim() };
}
