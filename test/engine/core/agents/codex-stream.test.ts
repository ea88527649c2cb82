import { describe, expect, it } from 'vitest';
import { codexLimitOf, cliTimeZone, tryAgainAt } from '../../../../app/engine/core/agents/codex-limit.js';
import {
  codexTurns,
  describeCodexEvent,
  isAction,
  isMessage,
  parseCodexLine,
  priced,
  rolloutUsage,
  runUsage,
  usageSince,
} from '../../../../app/engine/core/agents/codex-stream.js';
import { rateLimitOf } from '../../../../app/engine/core/agents/rate-limit.js';

/** Lines `codex exec --json` (@openai/codex 0.171.0) printed, as they were, against a Responses API on 127.0.0.1. */
const REAL = {
  thread: '{"type":"thread.started","thread_id":"01a21e45-911c-76b3-a22b-47dd41b3e98a"}',
  turn: '{"type":"turn.started"}',
  message: '{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"All done. HARNESS test"}}',
  completed:
    '{"type":"turn.completed","usage":{"input_tokens":2400,"cached_input_tokens":400,"cache_write_input_tokens":0,"output_tokens":100,"reasoning_output_tokens":20}}',
  commandStarted:
    '{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc \'echo hi > hello.txt && ls && false\'","aggregated_output":"","exit_code":null,"status":"in_progress"}}',
  commandFailed:
    '{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc \'echo hi > hello.txt && ls && false\'","aggregated_output":"hello.txt\\n","exit_code":1,"status":"failed"}}',
  fileChange:
    '{"type":"item.completed","item":{"id":"item_1","type":"file_change","changes":[{"path":"/tmp/codex/lab/work/added.txt","kind":"add"}],"status":"completed"}}',
  mcpStarted:
    '{"type":"item.started","item":{"id":"item_0","type":"mcp_tool_call","server":"harness","tool":"harness_worker_report","arguments":{"type":"progress_update","message":"hello from mock"},"result":null,"error":null,"status":"in_progress"}}',
  mcpCompleted:
    '{"type":"item.completed","item":{"id":"item_0","type":"mcp_tool_call","server":"harness","tool":"harness_worker_report","arguments":{"type":"progress_update","message":"hello from mock"},"result":{"content":[{"type":"text","text":"recorded"}],"structured_content":null},"error":null,"status":"completed"}}',
  mcpRefused:
    '{"type":"item.completed","item":{"id":"item_0","type":"mcp_tool_call","server":"harness","tool":"harness_worker_report","arguments":{"type":"progress_update","message":"hello from mock"},"result":null,"error":{"message":"MCP tool call requires approval, but approval policy is never"},"status":"failed"}}',
  reconnect:
    '{"type":"error","message":"Reconnecting... 2/5 (stream disconnected before completion: failed to lookup address information: Name does not resolve)"}',
  errorItem:
    '{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Falling back from WebSockets to HTTPS transport. stream disconnected before completion: failed to lookup address information: Name does not resolve"}}',
  missingKey: '{"type":"turn.failed","error":{"message":"Missing environment variable: `OPENAI_API_KEY`."}}',
  unauthorized:
    '{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: Incorrect API key provided: sk-test., url: http://127.0.0.1:18080/v1/responses"}}',
  quota: '{"type":"turn.failed","error":{"message":"Quota exceeded. Check your plan and billing details."}}',
  retries: '{"type":"turn.failed","error":{"message":"exceeded retry limit, last status: 429 Too Many Requests"}}',
  tokenCount:
    '{"timestamp":"2026-11-27T18:36:45.928Z","ordinal":40,"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":3600,"cached_input_tokens":600,"cache_write_input_tokens":0,"output_tokens":150,"reasoning_output_tokens":30,"total_tokens":3750},"last_token_usage":{"input_tokens":1200,"cached_input_tokens":200,"cache_write_input_tokens":0,"output_tokens":50,"reasoning_output_tokens":10,"total_tokens":1250},"last_usage_includes_reasoning":true,"model_context_window":475000},"rate_limits":{"limit_id":"codex","limit_name":null,"primary":null,"secondary":null,"credits":null,"individual_limit":null,"spend_control_reached":null,"plan_type":null,"rate_limit_reached_type":null}}}',
};

/** The usage-limit messages of 0.171.0 for a reset at 2026-11-27T19:34Z (and a day later for pro), by plan, in TZ=UTC and TZ=America/New_York. */
const LIMITS = {
  plus: 'You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 7:34 PM.',
  plusNewYork:
    'You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 2:34 PM.',
  pro: 'You’ve hit your usage limit. Visit https://chatgpt.com/settings/usage to purchase more credits or try again at Nov 28th, 2026 7:34 PM.',
  team: 'You’ve hit your usage limit. To get more access now, send a request to your admin or try again at 7:34 PM.',
  free: 'You’ve hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again at 7:34 PM.',
  enterprise: 'You’ve hit your usage limit. Try again at 7:34 PM.',
};
const NOW = new Date('2026-11-27T18:34:05Z');

describe('the JSONL of codex exec --json (0.171.0)', () => {
  it('reads the thread, the items, the usage and the failures as the CLI prints them', () => {
    expect(parseCodexLine(REAL.thread)).toEqual([{ type: 'thread', threadId: '01a21e45-911c-76b3-a22b-47dd41b3e98a' }]);
    expect(parseCodexLine(REAL.turn)).toEqual([]);
    expect(parseCodexLine(REAL.message)).toEqual([
      { type: 'item', phase: 'completed', item: { kind: 'agent_message', id: 'item_0', text: 'All done. HARNESS test' } },
    ]);
    expect(parseCodexLine(REAL.completed)).toEqual([{ type: 'turn_completed', usage: { inputTokens: 2400, cachedInputTokens: 400, outputTokens: 100 } }]);
    expect(parseCodexLine(REAL.commandFailed)).toEqual([
      {
        type: 'item',
        phase: 'completed',
        item: {
          kind: 'command_execution',
          id: 'item_0',
          command: "/bin/bash -lc 'echo hi > hello.txt && ls && false'",
          exitCode: 1,
          status: 'failed',
          output: 'hello.txt\n',
        },
      },
    ]);
    expect(parseCodexLine(REAL.mcpRefused)).toEqual([
      {
        type: 'item',
        phase: 'completed',
        item: {
          kind: 'mcp_tool_call',
          id: 'item_0',
          server: 'harness',
          tool: 'harness_worker_report',
          arguments: { type: 'progress_update', message: 'hello from mock' },
          status: 'failed',
          text: '',
          error: 'MCP tool call requires approval, but approval policy is never',
        },
      },
    ]);
    expect(parseCodexLine(REAL.mcpCompleted)[0]).toMatchObject({ item: { status: 'completed', text: 'recorded' } });
    expect(parseCodexLine(REAL.reconnect)).toEqual([
      { type: 'error', message: 'Reconnecting... 2/5 (stream disconnected before completion: failed to lookup address information: Name does not resolve)' },
    ]);
    expect(parseCodexLine(REAL.unauthorized)).toEqual([
      { type: 'turn_failed', message: 'unexpected status 401 Unauthorized: Incorrect API key provided: sk-test., url: http://127.0.0.1:18080/v1/responses' },
    ]);
    expect(parseCodexLine('Reading additional input from stdin...')).toEqual([]);
    expect(parseCodexLine('{"type":"item.plan.delta","item_id":"x","delta":"…"}')).toEqual([]);
  });

  it('says what the agent does, in a line each; the harness tools speak for themselves unless refused', () => {
    const said = (line: string) => parseCodexLine(line).map((e) => describeCodexEvent(e, '/tmp/codex/lab/work'));
    expect(said(REAL.thread)).toEqual(['codex session 01a21e45-911c-76b3-a22b-47dd41b3e98a']);
    expect(said(REAL.commandStarted)).toEqual(['Bash: echo hi > hello.txt && ls && false']);
    expect(said(REAL.commandFailed)).toEqual(['command failed (exit 1): echo hi > hello.txt && ls && false']);
    expect(said(REAL.fileChange)).toEqual(['Edit added.txt (add)']);
    expect(said(REAL.mcpStarted)).toEqual([undefined]);
    expect(said(REAL.mcpCompleted)).toEqual([undefined]);
    expect(said(REAL.mcpRefused)).toEqual(['tool error: MCP tool call requires approval, but approval policy is never']);
    expect(said(REAL.errorItem)).toEqual([
      'codex: Falling back from WebSockets to HTTPS transport. stream disconnected before completion: failed to lookup address information: Name does not resolve',
    ]);
    expect(said(REAL.message)).toEqual(['All done. HARNESS test']);
  });

  it('counts a turn for each completed action, and none for a message, their start or an error', () => {
    const events = Object.values(REAL).flatMap(parseCodexLine);
    // commandFailed, fileChange, mcpCompleted, mcpRefused; the message is no turn of its own.
    expect([events.filter(isAction).length, events.filter(isMessage).length]).toEqual([4, 1]);
    expect(codexTurns(4, 1)).toBe(4);
  });

  it('counts the closing message after the work as no further turn, and a run that only answered as one', () => {
    // max_turns: 1 — one file written, then "Done.": one turn, as the work took one step.
    expect(codexTurns(1, 1)).toBe(1);
    expect(codexTurns(1, 3)).toBe(1);
    expect(codexTurns(0, 1)).toBe(1);
    expect(codexTurns(0, 0)).toBe(0);
  });

  it("takes a resumed thread's earlier usage from its rollout file, and prices what the run added", () => {
    const before = rolloutUsage(`{"type":"session_meta","payload":{}}\n${REAL.tokenCount}\n`);
    expect(before).toEqual({ inputTokens: 3600, cachedInputTokens: 600, outputTokens: 150 });
    const run = usageSince({ inputTokens: 6000, cachedInputTokens: 1000, outputTokens: 250 }, before);
    expect(run).toEqual({ inputTokens: 2400, cachedInputTokens: 400, outputTokens: 100 });
    // 2000 uncached × $1.25, 400 cached × $0.125, 100 output × $10, a million each.
    expect(priced(run, { inputPerMillion: 1.25, cachedInputPerMillion: 0.125, outputPerMillion: 10 })).toBe(0.00355);
    expect(runUsage(4, run, undefined)).toEqual({ turns: 4, inputTokens: 2400, outputTokens: 100 });
    expect(rolloutUsage('{"type":"session_meta"}\n')).toBeUndefined();
  });
});

describe("the Codex CLI's usage-limit words (0.171.0)", () => {
  it.each([
    ['plus', LIMITS.plus, 'UTC', '2026-11-27T19:34:00.000Z'],
    ['plus', LIMITS.plusNewYork, 'America/New_York', '2026-11-27T19:34:00.000Z'],
    ['pro', LIMITS.pro, 'UTC', '2026-11-28T19:34:00.000Z'],
    ['team', LIMITS.team, 'UTC', '2026-11-27T19:34:00.000Z'],
    ['free', LIMITS.free, 'UTC', '2026-11-27T19:34:00.000Z'],
    ['enterprise', LIMITS.enterprise, 'UTC', '2026-11-27T19:34:00.000Z'],
  ])('a %s account: %s in %s resets at %s', (_plan, words, zone, reset) => {
    expect(codexLimitOf(REAL.completed.replace(/.*/, words), NOW, zone)).toEqual({ evidence: words, resetsAt: new Date(reset) });
  });

  it('a time already past today is tomorrow; an API key out of credit or a 429 given up on is a limit with no reset', () => {
    expect(tryAgainAt('try again at 6:00 AM.', NOW, 'UTC')).toEqual(new Date('2026-11-28T06:00:00Z'));
    expect(tryAgainAt('try again at 12:05 AM.', NOW, 'UTC')).toEqual(new Date('2026-11-28T00:05:00Z'));
    expect(codexLimitOf(parseCodexLine(REAL.quota).map((e) => (e.type === 'turn_failed' ? e.message : ''))[0]!, NOW, 'UTC')).toEqual({
      evidence: 'Quota exceeded. Check your plan and billing details.',
    });
    expect(codexLimitOf('exceeded retry limit, last status: 429 Too Many Requests', NOW, 'UTC')).toEqual({
      evidence: 'exceeded retry limit, last status: 429 Too Many Requests',
    });
    expect(codexLimitOf('unexpected status 401 Unauthorized: Incorrect API key provided', NOW, 'UTC')).toBeUndefined();
    expect(codexLimitOf('Missing environment variable: `OPENAI_API_KEY`.', NOW, 'UTC')).toBeUndefined();
  });

  it("the worker reads the codex agent's reason as a pause, with the exact reset the agent worked out", () => {
    const reason = `the codex agent failed: codex stopped at the model's usage limit: ${LIMITS.plus} (resets 2026-11-27T19:34:00.000Z)`;
    expect(rateLimitOf(reason, NOW)).toEqual({ resetsAt: new Date('2026-11-27T19:34:00.000Z'), evidence: LIMITS.plus });
    expect(rateLimitOf("the codex agent failed: codex stopped at the model's usage limit: Quota exceeded. Check your plan and billing details.", NOW)).toEqual({
      evidence: 'Quota exceeded. Check your plan and billing details.',
    });
    expect(rateLimitOf('Disk quota exceeded.', NOW)).toBeUndefined();
  });

  it("the CLI's zone is its TZ when the runtime knows it, else this machine's", () => {
    expect(cliTimeZone({ TZ: 'America/New_York' })).toBe('America/New_York');
    expect(cliTimeZone({ TZ: ':Europe/Berlin' })).toBe('Europe/Berlin');
    expect(cliTimeZone({ TZ: 'Not/AZone' })).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
});
