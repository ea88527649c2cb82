import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { copilotUsage, describeCopilotEvent, parseCopilotLine, usageFileOf } from '../../../../app/engine/core/agents/copilot-stream.js';
import { copilotLimitFailure } from '../../../../app/engine/core/agents/copilot-limit.js';
import { rateLimitOf } from '../../../../app/engine/core/agents/rate-limit.js';

// Lines Copilot CLI 1.0.102 wrote with --output-format json (against a local OpenAI-compatible endpoint: COPILOT_PROVIDER_BASE_URL).
const fixture = (name: string) => readFileSync(new URL(`../../../fixtures/copilot/${name}`, import.meta.url), 'utf8');
const lines = fixture('events-1.0.102.jsonl').trim().split('\n');
const [limitLine, limitResult, mcpStart, mcpComplete] = fixture('events-limit-mcp-1.0.102.jsonl').trim().split('\n');

describe('Copilot CLI --output-format json', () => {
  it('reads a run: the model, its turns, the tool it ran and its result, the final text and the closing line', () => {
    const events = lines.flatMap(parseCopilotLine);
    expect(events).toEqual([
      { type: 'init', model: 'fake-model' },
      { type: 'turn' },
      { type: 'text', text: '' },
      { type: 'tool_use', id: 'call_1', name: 'bash', input: { command: 'echo hello', description: 'say hello' } },
      { type: 'tool_result', toolUseId: 'call_1', isError: false, content: 'hello\n<shellId: 0 completed with exit code 0>' },
      { type: 'turn' },
      { type: 'text', text: 'All done.\nHARNESS_DONE' },
      { type: 'result', sessionId: '11111111-2222-4333-8444-555555555555', exitCode: 0, premiumRequests: 0, durationMs: 1629 },
    ]);
  });

  it('says what the agent does, and nothing for an empty message or a turn', () => {
    const said = lines.flatMap(parseCopilotLine).map((e) => describeCopilotEvent(e, '/tmp/copilot/proj'));
    expect(said).toEqual([
      'copilot session (fake-model)',
      undefined,
      undefined,
      'Bash: echo hello',
      undefined,
      undefined,
      'All done. HARNESS_DONE',
      'copilot finished (exit 0): 0 premium requests',
    ]);
  });

  it("names an MCP tool by the server's own tool name, keeps the harness server's calls quiet, and reads a failed call's error", () => {
    const [start] = parseCopilotLine(mcpStart!);
    expect(start).toEqual({
      type: 'tool_use',
      id: 'call_m',
      name: 'harness_worker_report',
      input: { type: 'progress_update', message: 'halfway' },
      server: 'harness',
    });
    expect(describeCopilotEvent(start!, '/w')).toBeUndefined();
    expect(parseCopilotLine(mcpComplete!)).toEqual([
      { type: 'tool_result', toolUseId: 'call_m', isError: true, content: "MCP server 'harness': fetch failed" },
    ]);
  });

  it('reads a session.error and the failed closing line', () => {
    expect(parseCopilotLine(limitLine!)).toEqual([{ type: 'error', errorType: 'rate_limit', message: '429 Rate limit exceeded', statusCode: 429 }]);
    expect(parseCopilotLine(limitResult!)).toEqual([
      { type: 'result', sessionId: '11edebd3-4f5c-4873-b382-9e705e973727', exitCode: 1, premiumRequests: 0, durationMs: 1339 },
    ]);
  });

  it("leaves out what is not an event of a session's own: a sub-agent's turn and message, text, broken JSON", () => {
    expect(parseCopilotLine('{"type":"assistant.turn_start","data":{"turnId":"0","parentToolCallId":"call_9"}}')).toEqual([]);
    expect(parseCopilotLine('{"type":"assistant.message","data":{"messageId":"m","content":"inner","parentToolCallId":"call_9"}}')).toEqual([]);
    expect(parseCopilotLine('error: unexpected argument')).toEqual([]);
    expect(parseCopilotLine('{"type":"result",')).toEqual([]);
    expect(parseCopilotLine('{"type":"session.background_tasks_changed","data":{},"ephemeral":true}')).toEqual([]);
  });
});

describe('Copilot usage', () => {
  const file = usageFileOf(fixture('usage-1.0.102.json'))!;

  it("reads --usage-output-file: tokens summed over the session's models, premium requests", () => {
    expect(file).toEqual({ inputTokens: 2400, outputTokens: 68, premiumRequests: 0, models: ['fake-model'] });
    expect(usageFileOf('not json')).toBeUndefined();
    expect(usageFileOf('{"totalPremiumRequestCost":1}')).toBeUndefined();
  });

  it('prices tokens and premium requests as configured, and reports no cost without a price', () => {
    expect(copilotUsage(2, file, undefined)).toEqual({ turns: 2, inputTokens: 2400, outputTokens: 68 });
    expect(copilotUsage(2, file, { inputPerMillion: 3, outputPerMillion: 15 })).toEqual({ turns: 2, inputTokens: 2400, outputTokens: 68, costUsd: 0.00822 });
    expect(copilotUsage(1, { models: [], premiumRequests: 3 }, { perPremiumRequest: 0.04 })).toEqual({ turns: 1, costUsd: 0.12 });
    // A price for tokens the CLI did not report is no cost of zero.
    expect(copilotUsage(1, undefined, { inputPerMillion: 3 })).toEqual({ turns: 1 });
  });
});

describe("Copilot's rate limit and quota", () => {
  const now = new Date('2026-11-27T19:00:00Z');

  it('takes the real rate_limit error for a pause that rateLimitOf reads', () => {
    const [error] = parseCopilotLine(limitLine!);
    const reason = copilotLimitFailure(error?.type === 'error' ? error : undefined, now)!;
    expect(reason).toBe('copilot stopped at the Copilot rate limit: 429 Rate limit exceeded');
    expect(rateLimitOf(reason, now)).toEqual({ evidence: reason });
  });

  it("reads the CLI's words, its codes and the reset it says as a span", () => {
    const weekly = copilotLimitFailure(
      {
        type: 'error',
        errorType: 'model_call',
        message: "You've reached your weekly rate limit. (current limit resets in ~90m)",
        errorCode: 'user_weekly_rate_limited',
      },
      now,
    )!;
    expect(weekly).toBe(
      "copilot stopped at the Copilot rate limit: You've reached your weekly rate limit. (current limit resets in ~90m) (resets 2026-11-27T20:30:00.000Z)",
    );
    expect(rateLimitOf(weekly, now)?.resetsAt).toEqual(new Date('2026-11-27T20:30:00Z'));
    const credits = copilotLimitFailure(
      { type: 'error', errorType: 'quota', message: "You've run out of your AI credits. Manage budget: https://github.com/settings/copilot/features" },
      now,
    )!;
    expect(credits).toBe(
      "copilot stopped at the Copilot quota (rate limit): You've run out of your AI credits. Manage budget: https://github.com/settings/copilot/features",
    );
    expect(rateLimitOf(credits, now)).toBeDefined();
    expect(copilotLimitFailure({ type: 'error', errorType: 'model_call', message: 'upstream failed', errorCode: 'integration_rate_limited' }, now)).toBe(
      'copilot stopped at the Copilot rate limit: upstream failed',
    );
  });

  it('is no limit for any other error', () => {
    expect(copilotLimitFailure({ type: 'error', errorType: 'context_limit', message: 'The conversation is too long' }, now)).toBeUndefined();
    expect(copilotLimitFailure(undefined, now)).toBeUndefined();
  });
});
