import type { CopilotError } from './copilot-stream.js';

/**
 * Whether a Copilot CLI run stopped at GitHub's rate limit or the account's Copilot quota, and
 * when it resets: a pause to wait out, not a failure of the plan. The CLI says so in a
 * session.error event; the words and codes recognised here are read from @github/copilot
 * 1.0.102 (its runtime, prebuilds/linux-x64/runtime.node):
 *
 *   errorType "rate_limit" | "quota"   (the others: authentication, context_limit, execution, …)
 *   errorCode user_weekly_rate_limited | user_global_rate_limited | user_model_rate_limited |
 *             integration_rate_limited | rate_limited
 *   You've hit your rate limit. Please wait for your limit to reset
 *   You've hit the rate limit for this model. Please switch models or wait for your limit to reset
 *   You've hit your session rate limit.
 *   You've reached your weekly rate limit.
 *   You've run out of your AI credits. Manage budget: https://github.com/settings/copilot/features
 *   … (current limit resets in ~12m)   … (current limit resets in ~40s)
 *
 * The reset is said as a span from now, when it is said: the reason written here carries it as
 * "(resets <ISO time>)", which rateLimitOf (rate-limit.ts) reads as the exact reset. The reason
 * also says "rate limit", so rateLimitOf recognises it whatever the CLI's words.
 */

const LIMIT_TYPES = new Set(['rate_limit', 'quota']);
const LIMIT_CODES = new Set(['user_weekly_rate_limited', 'user_global_rate_limited', 'user_model_rate_limited', 'integration_rate_limited', 'rate_limited']);
export const COPILOT_LIMIT_MESSAGES = [
  "You've hit your rate limit.",
  "You've hit the rate limit for this model.",
  "You've hit your session rate limit.",
  "You've reached your weekly rate limit.",
  "You've run out of your AI credits.",
] as const;
const RESETS_IN = /resets in ~(\d+(?:\.\d+)?)\s*([smhd])\b/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The reason a run stopped at Copilot's limit, with the reset when the CLI said it; undefined for any other error. */
export function copilotLimitFailure(error: CopilotError | undefined, now: Date): string | undefined {
  if (!error) return undefined;
  const said = COPILOT_LIMIT_MESSAGES.some((m) => error.message.includes(m));
  const limited = LIMIT_TYPES.has(error.errorType) || (error.errorCode !== undefined && LIMIT_CODES.has(error.errorCode)) || said;
  if (!limited) return undefined;
  const words = error.message.trim().split('\n')[0] || error.errorCode || error.errorType;
  const resets = RESETS_IN.exec(error.message);
  const at = resets ? new Date(now.getTime() + Math.ceil(Number(resets[1]) * UNIT_MS[resets[2]!]!)) : undefined;
  const kind = error.errorType === 'quota' ? 'quota (rate limit)' : 'rate limit';
  return `copilot stopped at the Copilot ${kind}: ${words}${at ? ` (resets ${at.toISOString()})` : ''}`;
}
