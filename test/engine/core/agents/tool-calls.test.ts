import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ClaudeAgent } from '../../../../app/agents/claude.js';
import { CopilotAgent } from '../../../../app/agents/copilot.js';
import { GeminiAgent } from '../../../../app/agents/gemini.js';
import { parseClaudeLine } from '../../../../app/engine/core/agents/claude-stream.js';
import { codexToolCall, parseCodexLine } from '../../../../app/engine/core/agents/codex-stream.js';
import { parseCopilotLine } from '../../../../app/engine/core/agents/copilot-stream.js';
import { parseGeminiLine } from '../../../../app/engine/core/agents/gemini-stream.js';
import type { ToolCall } from '../../../../app/engine/core/agents/stream-json.js';

/**
 * The tool calls each agent CLI's stream reports, for the trace's `execute_tool` spans: read from
 * lines the pinned CLIs printed (the recorded fixtures), each call's start with its tool's name
 * and its end with whether it failed; harness's own reporting tool left out, as it reports for
 * itself.
 */

const fixture = (path: string) =>
  readFileSync(new URL(`../../../fixtures/${path}`, import.meta.url), 'utf8')
    .trim()
    .split('\n');
const calls = <E>(lines: string[], parse: (l: string) => E[], call: (e: E) => ToolCall | undefined) => lines.flatMap(parse).flatMap((e) => call(e) ?? []);

describe('tool calls from the agent streams', () => {
  it('Claude Code: each tool_use starts a call by its id, its tool_result ends it', () => {
    const claude = new ClaudeAgent({});
    expect(calls(fixture('claude/checkpoint.jsonl'), parseClaudeLine, (e) => claude.toolCall(e))).toEqual([
      { id: 'toolu_fake0001', name: 'Write', phase: 'start' },
      { id: 'toolu_fake0001', phase: 'end', error: false },
    ]);
  });

  it("Gemini CLI: a tool's call by its tool_id, failed on status error; harness's reporting tool is no call of the agent's", () => {
    const gemini = new GeminiAgent({});
    // The recorded session reports through harness's tool only; a shell command in the same shape as 0.61.0 prints it.
    const shell = [
      '{"type":"tool_use","timestamp":"2026-11-27T18:29:01.000Z","tool_name":"run_shell_command","tool_id":"run_shell_command_1795804141000_0","parameters":{"command":"npm test"}}',
      '{"type":"tool_result","timestamp":"2026-11-27T18:29:03.000Z","tool_id":"run_shell_command_1795804141000_0","status":"error","output":"","error":{"type":"execution_failed","message":"exit 1"}}',
    ];
    expect(
      calls([...fixture('gemini/mcp-report.jsonl'), ...shell], parseGeminiLine, (e) => gemini.toolCall(e)).filter(
        (c) => c.phase === 'start' || c.id.startsWith('run_shell'),
      ),
    ).toEqual([
      { id: 'run_shell_command_1795804141000_0', name: 'run_shell_command', phase: 'start' },
      { id: 'run_shell_command_1795804141000_0', phase: 'end', error: true },
    ]);
  });

  it('Copilot CLI: tool.execution_start and _complete by toolCallId, failed when success is not true', () => {
    const copilot = new CopilotAgent({});
    const found = calls(fixture('copilot/events-1.0.102.jsonl'), parseCopilotLine, (e) => copilot.toolCall(e));
    expect(found[0]).toEqual({ id: 'call_1', name: 'bash', phase: 'start' });
    expect(found[1]).toEqual({ id: 'call_1', phase: 'end', error: false });
  });

  it("Codex: a command from started to completed (failed), a file change seen only completed, never harness's own MCP tool", () => {
    const lines = [
      '{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc \'echo hi > hello.txt && ls && false\'","aggregated_output":"","exit_code":null,"status":"in_progress"}}',
      '{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc \'echo hi > hello.txt && ls && false\'","aggregated_output":"hello.txt\\n","exit_code":1,"status":"failed"}}',
      '{"type":"item.completed","item":{"id":"item_1","type":"file_change","changes":[{"path":"/tmp/codex/lab/work/added.txt","kind":"add"}],"status":"completed"}}',
      '{"type":"item.started","item":{"id":"item_2","type":"mcp_tool_call","server":"harness","tool":"harness_worker_report","arguments":{"type":"progress_update","message":"hello from mock"},"result":null,"error":null,"status":"in_progress"}}',
      '{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"All done."}}',
    ];
    expect(calls(lines, parseCodexLine, codexToolCall)).toEqual([
      { id: 'item_0', name: 'command_execution', phase: 'start' },
      { id: 'item_0', name: 'command_execution', phase: 'end', error: true },
      { id: 'item_1', name: 'file_change', phase: 'end', error: false },
    ]);
  });
});
