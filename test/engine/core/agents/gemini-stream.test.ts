import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  describeGeminiEvent,
  FinalText,
  geminiResultFailure,
  geminiUsage,
  parseGeminiLine,
  TurnCounter,
  type GeminiEvent,
  type GeminiResult,
} from '../../../../app/engine/core/agents/gemini-stream.js';
import { geminiLimitOf, geminiLimitReason, nextPacificMidnight } from '../../../../app/engine/core/agents/gemini-limit.js';
import { rateLimitOf } from '../../../../app/engine/core/agents/rate-limit.js';

/** Lines printed by @google/gemini-cli 0.61.0 (`-p … --output-format stream-json`) run against a local Gemini API. */
const lines = (name: string): string[] =>
  readFileSync(new URL(`../../../fixtures/gemini/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean);
const events = (name: string): GeminiEvent[] => lines(name).flatMap(parseGeminiLine);
const NOW = new Date('2026-11-27T18:29:43Z');

describe("Gemini CLI's stream-json, as 0.61.0 prints it", () => {
  it('reads the session, the tool calls, the final text and the tokens of a run', () => {
    expect(events('mcp-report.jsonl')).toEqual([
      { type: 'init', sessionId: '6cb5b0ed-5176-48a0-b37c-44883e71e758', model: 'auto' },
      {
        type: 'tool_use',
        id: 'mcp_harness_harness_worker_report__mcp_harness_harness_worker_report_1795804120735_0',
        name: 'mcp_harness_harness_worker_report',
        input: { type: 'session_ready', message: 'hi' },
      },
      {
        type: 'tool_result',
        toolUseId: 'mcp_harness_harness_worker_report__mcp_harness_harness_worker_report_1795804120735_0',
        isError: false,
        content: 'recorded',
      },
      { type: 'text', text: 'all done' },
      { type: 'result', status: 'success', inputTokens: 2405, outputTokens: 65, durationMs: 659, toolCalls: 1 },
    ]);
  });

  it('counts a turn per answer of the model and keeps the text after the last tool result', () => {
    const turns = new TurnCounter();
    const final = new FinalText();
    for (const e of events('mcp-report.jsonl')) {
      turns.add(e);
      final.add(e);
    }
    expect(turns.turns).toBe(2);
    expect(final.text).toBe('all done');
  });

  it('joins the deltas of one assistant message', () => {
    const final = new FinalText();
    for (const e of [
      '{"type":"message","role":"assistant","content":"Done. ","delta":true}',
      '{"type":"message","role":"assistant","content":"HARNESS_CHECKPOINT","delta":true}',
    ].flatMap(parseGeminiLine))
      final.add(e);
    expect(final.text).toBe('Done. HARNESS_CHECKPOINT');
  });

  it('prices the tokens at the configured rate, and reports none without one', () => {
    const result = events('mcp-report.jsonl').at(-1) as GeminiResult;
    expect(geminiUsage(result, 2, { inputPerMTok: 1.25, outputPerMTok: 10 })).toEqual({ turns: 2, inputTokens: 2405, outputTokens: 65, costUsd: 0.003656 });
    expect(geminiUsage(result, 2, undefined)).toEqual({ turns: 2, inputTokens: 2405, outputTokens: 65 });
  });

  it('says the harness tools for themselves and other tools by what they touch', () => {
    expect(describeGeminiEvent({ type: 'tool_use', id: '1', name: 'mcp_harness_harness_worker_report', input: {} }, '/w')).toBeUndefined();
    expect(describeGeminiEvent({ type: 'tool_use', id: '1', name: 'run_shell_command', input: { command: 'npm test\nmore' } }, '/w')).toBe('Shell: npm test');
    expect(describeGeminiEvent({ type: 'tool_use', id: '1', name: 'write_file', input: { file_path: '/w/src/a.ts', content: 'x' } }, '/w')).toBe(
      'write_file src/a.ts',
    );
  });

  it('ends at the turn limit (maxSessionTurns) as a failure the same brief would meet again', () => {
    const all = events('turn-limit.jsonl');
    const turns = new TurnCounter();
    for (const e of all) turns.add(e);
    expect(geminiResultFailure(all.at(-1) as GeminiResult, turns.turns)).toEqual({
      error:
        'gemini stopped at its turn limit (1 turn): Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json.',
      retryable: false,
    });
  });

  it('skips lines that are not its events', () => {
    expect(parseGeminiLine('Ripgrep is not available. Falling back to GrepTool.')).toEqual([]);
    expect(parseGeminiLine('{"type":"message","role":"user","content":"say hi"}')).toEqual([]);
    expect(parseGeminiLine('{"type":"something_new"}')).toEqual([]);
  });
});

describe("Gemini CLI's quota wording", () => {
  it('reads the daily quota stop as a limit that resets at midnight Pacific time, which the worker pauses until', () => {
    const result = events('daily-quota.jsonl').at(-1) as GeminiResult;
    const limit = geminiLimitOf(result.error!.message, NOW);
    expect(limit).toEqual({
      evidence:
        '[API Error: You have exhausted your daily quota on this model.] Please wait and try again later. To increase your limits, request a quota increase through AI Studio, or switch to another /auth method',
      resetsAt: new Date('2026-11-28T08:00:00.000Z'),
    });
    expect(rateLimitOf(geminiLimitReason(limit!), NOW)?.resetsAt).toEqual(new Date('2026-11-28T08:00:00.000Z'));
  });

  it('reads a retry delay the CLI or the API names', () => {
    const minute =
      '[API Error: You exceeded your current quota, please check your plan and billing details.\nSuggested retry after 60s.]\nPlease wait and try again later. To increase your limits, request a quota increase through AI Studio, or switch to another /auth method';
    expect(geminiLimitOf(minute, NOW)?.resetsAt).toEqual(new Date('2026-11-27T18:30:43.000Z'));
    const vertex =
      '[API Error: Resource exhausted. Please retry in 37.5s]\nPlease wait and try again later. To increase your limits, request a quota increase through Vertex, or switch to another /auth method';
    expect(geminiLimitOf(vertex, NOW)?.resetsAt).toEqual(new Date('2026-11-27T18:30:20.500Z'));
  });

  it('reads the Google-login fallback sentence and a capacity stop, without a reset time', () => {
    expect(
      geminiLimitOf(
        '[API Error: Quota exceeded]\nPossible quota limitations in place or slow response times detected. Switching to the gemini-2.5-flash model for the rest of this session.',
        NOW,
      )?.resetsAt,
    ).toBeUndefined();
    expect(geminiLimitOf('[API Error: You have exhausted your capacity on this model.]', NOW)).toBeDefined();
  });

  it('does not take other API errors for a limit', () => {
    expect(geminiLimitOf('[API Error: API key not valid. Please pass a valid API key. (Status: INVALID_ARGUMENT)]', NOW)).toBeUndefined();
    expect(geminiLimitOf('Reached max session turns for this session.', NOW)).toBeUndefined();
  });

  it('finds the next Pacific midnight in summer time and in winter time', () => {
    expect(nextPacificMidnight(new Date('2026-07-01T06:59:00Z'))).toEqual(new Date('2026-07-01T07:00:00Z'));
    expect(nextPacificMidnight(new Date('2026-07-01T07:00:00Z'))).toEqual(new Date('2026-07-02T07:00:00Z'));
    expect(nextPacificMidnight(new Date('2026-01-15T12:00:00Z'))).toEqual(new Date('2026-01-16T08:00:00Z'));
  });
});
