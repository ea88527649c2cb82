import { describe, expect, it } from 'vitest';
import { isCliLimitMessage, rateLimitOf, resetTimeOf } from '../../../../app/engine/core/agents/rate-limit.js';
import { parseClaudeLine, usageLimitFailure, type ClaudeRateLimit, type ClaudeResult } from '../../../../app/engine/core/agents/claude-stream.js';

/**
 * The limit messages of the pinned Claude Code (2.1.332), as its own code writes them:
 * `You've hit your ${limit}${" · resets " + time}${" · progress saved"}` with the limit one of
 * "session limit", "5-hour limit", "weekly limit", "Opus limit", "Sonnet limit", "usage limit",
 * "limit", …; the time `toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' when
 * not on the hour, hour12: true })` with " PM" folded to "pm" and the zone in brackets, and
 * "Nov 28, 3pm" (a year when it is not this one) beyond a day.
 */
const NOW = new Date('2026-11-27T10:20:00Z');

describe('the usage-limit wordings of the pinned Claude Code', () => {
  it.each([
    ["You've hit your session limit · resets 3pm (UTC)", '2026-11-27T15:00:00.000Z'],
    ["You've hit your session limit · resets 9am (UTC)", '2026-11-28T09:00:00.000Z'],
    ["You've hit your 5-hour limit · resets 2:30pm (Europe/London) · progress saved", '2026-11-27T14:30:00.000Z'],
    ["You've hit your weekly limit · resets Nov 30, 3pm (America/New_York)", '2026-11-30T20:00:00.000Z'],
    ["You've hit your Opus limit · resets Dec 1, 9:30am (Europe/Berlin)", '2026-12-01T08:30:00.000Z'],
    ["You've hit your Sonnet limit · resets Jan 2, 2027, 3pm (Asia/Tokyo)", '2027-01-02T06:00:00.000Z'],
    ["You've hit your usage limit · resets Jul 4, 12pm (America/Los_Angeles)", '2027-07-04T19:00:00.000Z'],
    ["You've hit your limit · resets 12am (UTC) · progress saved", '2026-11-28T00:00:00.000Z'],
    ["You're out of usage credits · resets Dec 1, 12am (UTC)", '2026-12-01T00:00:00.000Z'],
  ])('%s → paused until %s', (words, reset) => {
    expect(rateLimitOf(`the claude agent failed: claude stopped at the model's usage limit: ${words}`, NOW)).toEqual({
      resetsAt: new Date(reset),
      evidence: words,
    });
  });

  it('takes a date passed this year for next year, and a zone it does not know for no reset time', () => {
    expect(resetTimeOf('resets Jan 3, 3pm (UTC)', NOW)).toEqual(new Date('2027-01-03T15:00:00Z'));
    expect(rateLimitOf("You've hit your weekly limit · resets 3pm (Mars/Olympus)", NOW)).toEqual({
      evidence: "You've hit your weekly limit · resets 3pm (Mars/Olympus)",
    });
  });

  it('limits without a reset time are still limits', () => {
    for (const words of [
      "You've hit your org's monthly spend limit",
      'Your org is out of usage · contact your admin',
      'Opus 4.5 requires usage credits. Run /usage-credits',
      "You've reached your usage limit",
    ]) {
      expect(rateLimitOf(`claude stopped at the model's usage limit: ${words}`, NOW)).toEqual({ evidence: words });
    }
  });

  it('the exact reset of the stream wins over the words; the older stamped form still reads', () => {
    expect(
      rateLimitOf("claude stopped at the model's usage limit: You've hit your session limit · resets 3pm (UTC) (resets 2026-11-27T15:00:07.000Z)", NOW),
    ).toEqual({
      resetsAt: new Date('2026-11-27T15:00:07Z'),
      evidence: "You've hit your session limit · resets 3pm (UTC)",
    });
    expect(rateLimitOf('Claude AI usage limit reached|1764000000', NOW)).toEqual({
      resetsAt: new Date(1764000000 * 1000),
      evidence: 'usage limit reached|1764000000',
    });
  });

  it('ordinary failures are not limits', () => {
    expect(rateLimitOf('tests failed: expected 2 to be 3', NOW)).toBeUndefined();
    expect(isCliLimitMessage('I checked that you have hit your limit of files')).toBe(false);
    expect(isCliLimitMessage("You've reached your goal: the greeting is written and signed.")).toBe(false);
    expect(isCliLimitMessage("You've hit your session limit · resets 3pm (UTC)")).toBe(true);
  });
});

describe('a run of the CLI that stopped at the limit, from its stream', () => {
  const result = (fields: Partial<ClaudeResult>): ClaudeResult => ({ type: 'result', subtype: 'success', isError: false, errors: [], ...fields });
  const rejected = parseClaudeLine(
    JSON.stringify({
      type: 'rate_limit_event',
      rate_limit_info: { status: 'rejected', resetsAt: 1795791600, rateLimitType: 'five_hour', isUsingOverage: false },
      uuid: 'u',
      session_id: 's',
    }),
  )[0] as ClaudeRateLimit;

  it('reads the rate_limit_event', () => {
    expect(rejected).toEqual({ type: 'rate_limit', status: 'rejected', resetsAt: 1795791600, limitType: 'five_hour' });
  });

  it('a limit message reported as a success is a stop at the limit, with the exact reset of the stream', () => {
    expect(usageLimitFailure(result({ result: "You've hit your session limit · resets 3pm (UTC)" }), rejected)).toBe(
      "claude stopped at the model's usage limit: You've hit your session limit · resets 3pm (UTC) (resets 2026-11-27T15:00:00.000Z)",
    );
    expect(usageLimitFailure(result({ isError: true, result: "You've hit your weekly limit · resets Nov 30, 3pm (UTC)" }), undefined)).toBe(
      "claude stopped at the model's usage limit: You've hit your weekly limit · resets Nov 30, 3pm (UTC)",
    );
  });

  it('a rejection the run got past (a fallback model) is no stop; a plain success is none', () => {
    expect(usageLimitFailure(result({ result: 'All done.' }), rejected)).toBeUndefined();
    expect(usageLimitFailure(result({ result: 'All done.' }), undefined)).toBeUndefined();
    expect(usageLimitFailure(result({ isError: true, result: 'API Error: 500' }), rejected)).toBe(
      "claude stopped at the model's usage limit: the stream reported the five_hour limit rejected: API Error: 500 (resets 2026-11-27T15:00:00.000Z)",
    );
  });
});
