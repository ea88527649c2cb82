import type { Usage } from '../protocol/messages.js';
import { describeToolUse } from './claude-stream.js';
import { clip, firstLine, initEvent, isObject, num, readLine, str, withDefined, type LineReaders } from './stream-json.js';

/**
 * Gemini CLI's headless output (`gemini -p … --output-format stream-json`), one JSON object a
 * line. Read in @google/gemini-cli 0.61.0, the version the worker workflow pins (its
 * StreamJsonFormatter and the non-interactive loop that emits through it), and run against a
 * local Gemini API to see the lines as they are:
 *
 *   {"type":"init","timestamp":"…","session_id":"36dd80c0-…","model":"auto"}
 *   {"type":"message","timestamp":"…","role":"user","content":"say hi"}
 *   {"type":"message","timestamp":"…","role":"assistant","content":"Hello","delta":true}
 *   {"type":"tool_use","timestamp":"…","tool_name":"mcp_harness_harness_worker_report","tool_id":"…","parameters":{…}}
 *   {"type":"tool_result","timestamp":"…","tool_id":"…","status":"success"|"error","output":"…","error":{"type":"…","message":"…"}}
 *   {"type":"error","timestamp":"…","severity":"warning"|"error","message":"Loop detected, stopping execution"}
 *   {"type":"result","timestamp":"…","status":"success"|"error","error":{"type":"FatalTurnLimitedError","message":"…"},
 *    "stats":{"total_tokens":1240,"input_tokens":1205,"output_tokens":35,"cached":200,"input":1005,
 *             "duration_ms":379,"tool_calls":0,"models":{"gemini-2.5-pro":{…the same per model}}}}
 *
 * An assistant message comes in deltas. The result carries no turn count and no cost: a turn is
 * one answer of the model (its text and the tool calls it asks for, up to their results), counted
 * here as the CLI counts them against `model.maxSessionTurns`; the cost is the tokens times the
 * price harness is configured with. Failures end in a result with status "error" whose error
 * names the CLI's error class (FatalTurnLimitedError, FatalToolExecutionError, …) or "unknown"
 * for an API error, its message then "[API Error: …]". Unknown lines and types yield nothing.
 */

export type GeminiEvent =
  | { type: 'init'; sessionId: string; model?: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; toolUseId: string; isError: boolean; content: string }
  | { type: 'error'; severity: string; message: string }
  | GeminiResult;

export interface GeminiResult {
  type: 'result';
  status: string;
  error?: { type: string; message: string };
  inputTokens?: number;
  outputTokens?: number;
  durationMs?: number;
  toolCalls?: number;
}

/** How Gemini CLI names an MCP server's tool to the model: `mcp_<server>_<tool>`. */
export const geminiMcpToolName = (server: string, tool: string): string => `mcp_${server}_${tool}`;

/** The event of one line of output, if it is one harness reads. */
export function parseGeminiLine(line: string): GeminiEvent[] {
  return readLine(line, GEMINI_LINES);
}

const GEMINI_LINES: LineReaders<GeminiEvent> = {
  init: (value) => {
    const sessionId = str(value.session_id);
    return sessionId ? [initEvent(sessionId, str(value.model))] : [];
  },
  message: (value) => {
    const text = str(value.content);
    return value.role === 'assistant' && text ? [{ type: 'text', text }] : [];
  },
  tool_use: (value) => {
    const name = str(value.tool_name);
    return name ? [{ type: 'tool_use', id: str(value.tool_id) ?? '', name, input: isObject(value.parameters) ? value.parameters : {} }] : [];
  },
  tool_result: (value) => {
    const isError = value.status === 'error';
    const error = isObject(value.error) ? str(value.error.message) : undefined;
    return [{ type: 'tool_result', toolUseId: str(value.tool_id) ?? '', isError, content: (isError ? error : undefined) ?? str(value.output) ?? '' }];
  },
  error: (value) => {
    const message = str(value.message);
    return message ? [{ type: 'error', severity: str(value.severity) ?? 'error', message }] : [];
  },
  result: (value) => {
    const result: GeminiResult = { type: 'result', status: str(value.status) ?? 'unknown' };
    if (isObject(value.error)) result.error = { type: str(value.error.type) ?? 'unknown', message: str(value.error.message) ?? '' };
    const stats = isObject(value.stats) ? value.stats : {};
    return [
      withDefined(result, {
        inputTokens: num(stats.input_tokens),
        outputTokens: num(stats.output_tokens),
        durationMs: num(stats.duration_ms),
        toolCalls: num(stats.tool_calls),
      }),
    ];
  },
};

/**
 * The model's turns in a stream, as Gemini CLI counts them against maxSessionTurns: a turn
 * begins with the model's first text or tool call after the prompt or after tool results.
 */
export class TurnCounter {
  #turns = 0;
  #inTurn = false;

  add(event: GeminiEvent): void {
    if (event.type === 'text' || event.type === 'tool_use') {
      if (!this.#inTurn) this.#turns++;
      this.#inTurn = true;
    } else if (event.type === 'tool_result') this.#inTurn = false;
  }

  get turns(): number {
    return this.#turns;
  }
}

/** Dollars per million tokens, input and output, for an agent whose CLI reports no cost. */
export interface TokenPrice {
  inputPerMTok: number;
  outputPerMTok: number;
}

/** What one run of the CLI used: its turns and tokens, and their cost at the configured price (none without one). */
export function geminiUsage(result: GeminiResult | undefined, turns: number, price: TokenPrice | undefined): Usage {
  const input = result?.inputTokens;
  const output = result?.outputTokens;
  const cost =
    price && input !== undefined && output !== undefined
      ? Math.round(((input * price.inputPerMTok + output * price.outputPerMTok) / 1e6) * 1e6) / 1e6
      : undefined;
  return {
    turns,
    ...(input === undefined ? {} : { inputTokens: input }),
    ...(output === undefined ? {} : { outputTokens: output }),
    ...(cost === undefined ? {} : { costUsd: cost }),
  };
}

/** One line for a person watching: what the agent is doing. Undefined for events not worth a message. */
export function describeGeminiEvent(event: GeminiEvent, root: string): string | undefined {
  switch (event.type) {
    case 'init':
      return `gemini session ${event.sessionId}${event.model ? ` (${event.model})` : ''}`;
    case 'text':
      return undefined;
    case 'tool_use':
      // The harness tools report for themselves: their report is the message.
      return event.name.startsWith('mcp_harness_') ? undefined : describeGeminiTool(event.name, event.input, root);
    case 'tool_result':
      return event.isError ? `tool error: ${clip(firstLine(event.content), 200)}` : undefined;
    case 'error':
      return `gemini ${event.severity}: ${clip(firstLine(event.message), 300)}`;
    case 'result':
      return `gemini finished (${event.status})${event.error ? `: ${clip(firstLine(event.error.message), 300)}` : ''}`;
  }
}

/** Gemini CLI's own tools (run_shell_command, write_file, replace, read_file, …) by what they touch. */
function describeGeminiTool(name: string, input: Record<string, unknown>, root: string): string {
  switch (name) {
    case 'run_shell_command':
      return `Shell: ${clip(firstLine(str(input.command) ?? ''), 200)}`;
    case 'write_file':
    case 'replace':
    case 'read_file':
      return describeToolUse(name, { file_path: input.file_path ?? input.absolute_path }, root);
    default:
      return describeToolUse(name, input, root);
  }
}

/**
 * Why a result is a failure, or undefined for a success. The turn limit (maxSessionTurns) and a
 * fatal tool error would come again with the same brief; an API error is worth another attempt.
 */
export function geminiResultFailure(result: GeminiResult, turns: number): { error: string; retryable: boolean } | undefined {
  if (result.status === 'success') return undefined;
  const detail = result.error?.message ? `: ${clip(result.error.message.replace(/\s+/g, ' ').trim(), 500)}` : '';
  const stats = `${turns} turn${turns === 1 ? '' : 's'}`;
  switch (result.error?.type) {
    case 'FatalTurnLimitedError':
      return { error: `gemini stopped at its turn limit (${stats})${detail}`, retryable: false };
    case 'FatalToolExecutionError':
      return { error: `gemini stopped at a tool it could not run (${stats})${detail}`, retryable: false };
    case 'FatalCancellationError':
      return { error: `gemini was cancelled (${stats})${detail}`, retryable: true };
    default:
      return { error: `gemini reported an error (${stats})${detail}`, retryable: true };
  }
}

/** The final text of a run: the assistant's deltas after the last tool result, joined. */
export class FinalText {
  #text = '';

  add(event: GeminiEvent): void {
    if (event.type === 'text') this.#text += event.text;
    else if (event.type === 'tool_use' || event.type === 'tool_result') this.#text = '';
  }

  get text(): string {
    return this.#text;
  }
}
