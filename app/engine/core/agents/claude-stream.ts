import type { Usage } from '../protocol/messages.js';
import { isCliLimitMessage } from './rate-limit.js';
import { clip, firstLine, initEvent, isObject, num, readLine, relative, str, withDefined, type Json, type LineReaders } from './stream-json.js';

/**
 * Claude Code's headless output (`claude -p … --output-format stream-json --verbose`): one JSON
 * object a line. The shapes read here:
 *
 *   {"type":"system","subtype":"init","session_id":"…","cwd":"…","model":"…","tools":[…],…}
 *   {"type":"assistant","message":{"content":[{"type":"text","text":"…"},{"type":"tool_use","id":"…","name":"Edit","input":{…}}],…},"session_id":"…"}
 *   {"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"…","content":"…","is_error":true}]},"session_id":"…"}
 *   {"type":"result","subtype":"success"|"error_max_turns"|"error_during_execution"|…,"is_error":false,
 *    "result":"…","session_id":"…","num_turns":6,"duration_ms":18319,"total_cost_usd":0.19,"errors":[…]}
 *   {"type":"rate_limit_event","rate_limit_info":{"status":"allowed"|"allowed_warning"|"rejected",
 *    "resetsAt":1764259200,"rateLimitType":"five_hour"|"seven_day"|…,…},"session_id":"…"}
 *
 * Parsing is tolerant: an unknown type or a line that is not JSON yields nothing rather than an
 * error, because the CLI adds fields and event types between versions. A failed API call arrives
 * as subtype "success" with is_error true, so both are checked.
 */

export type ClaudeEvent =
  | { type: 'init'; sessionId: string; model?: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; toolUseId: string; isError: boolean; content: string }
  | ClaudeRateLimit
  | ClaudeResult;

/** Where the account stands against the model's usage limits (`rate_limit_event`); `rejected` is a limit hit. */
export interface ClaudeRateLimit {
  type: 'rate_limit';
  status: string;
  /** Unix seconds. */
  resetsAt?: number;
  limitType?: string;
}

export interface ClaudeResult {
  type: 'result';
  subtype: string;
  isError: boolean;
  /** The final text; absent on error subtypes. */
  result?: string;
  sessionId?: string;
  numTurns?: number;
  durationMs?: number;
  costUsd?: number;
  /** `usage`: input tokens (cache reads and writes included) and output tokens. */
  inputTokens?: number;
  outputTokens?: number;
  errors: string[];
}

/** The events of one line of output (an assistant message may carry several content blocks). */
export function parseClaudeLine(line: string): ClaudeEvent[] {
  return readLine(line, CLAUDE_LINES);
}

const CLAUDE_LINES: LineReaders<ClaudeEvent> = {
  system: (value) => {
    const sessionId = str(value.session_id);
    return value.subtype === 'init' && sessionId ? [initEvent(sessionId, str(value.model))] : [];
  },
  assistant: (value) =>
    contentOf(value).flatMap((block): ClaudeEvent[] => {
      if (block.type === 'text' && typeof block.text === 'string' && block.text.trim()) return [{ type: 'text', text: block.text }];
      if (block.type === 'tool_use' && typeof block.name === 'string') {
        return [{ type: 'tool_use', id: str(block.id) ?? '', name: block.name, input: isObject(block.input) ? block.input : {} }];
      }
      return [];
    }),
  user: (value) =>
    contentOf(value).flatMap((block): ClaudeEvent[] =>
      block.type === 'tool_result'
        ? [{ type: 'tool_result', toolUseId: str(block.tool_use_id) ?? '', isError: block.is_error === true, content: textOf(block.content) }]
        : [],
    ),
  result: (value) => {
    const result: ClaudeResult = {
      type: 'result',
      subtype: str(value.subtype) ?? 'unknown',
      isError: value.is_error === true,
      errors: Array.isArray(value.errors) ? value.errors.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))) : [],
    };
    const fields = {
      result: str(value.result),
      sessionId: str(value.session_id),
      numTurns: num(value.num_turns),
      durationMs: num(value.duration_ms),
      costUsd: num(value.total_cost_usd),
      ...runTokens(value),
    };
    return [withDefined(result, fields)];
  },
  rate_limit_event: (value) => {
    const info = value.rate_limit_info;
    if (!isObject(info) || typeof info.status !== 'string') return [];
    const resetsAt = num(info.resetsAt);
    const limitType = str(info.rateLimitType);
    return [{ type: 'rate_limit', status: info.status, ...(resetsAt === undefined ? {} : { resetsAt }), ...(limitType === undefined ? {} : { limitType }) }];
  },
};

/**
 * A result's tokens: its `usage`, unless that says nothing was used where the run's per-model
 * figures (`model_usage_since_last_result`) say otherwise. 2.1.332 stopping at --max-budget-usd
 * (error_max_budget_usd) writes `usage` all zeros, and the tokens it spent only per model.
 */
function runTokens(value: Json): { inputTokens?: number; outputTokens?: number } {
  const said = tokensOf(value.usage);
  if ((said.inputTokens ?? 0) + (said.outputTokens ?? 0) > 0) return said;
  const models = value.model_usage_since_last_result;
  if (!isObject(models)) return said;
  let input = 0;
  let output = 0;
  for (const m of Object.values(models)) {
    if (!isObject(m)) continue;
    input += [m.inputTokens, m.cacheReadInputTokens, m.cacheCreationInputTokens].reduce<number>((a, b) => a + (num(b) ?? 0), 0);
    output += num(m.outputTokens) ?? 0;
  }
  return input + output > 0 ? { inputTokens: input, outputTokens: output } : said;
}

function tokensOf(usage: unknown): { inputTokens?: number; outputTokens?: number } {
  if (!isObject(usage)) return {};
  const parts = [usage.input_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens].map(num).filter((n): n is number => n !== undefined);
  const output = num(usage.output_tokens);
  return { ...(parts.length > 0 ? { inputTokens: parts.reduce((a, b) => a + b, 0) } : {}), ...(output === undefined ? {} : { outputTokens: output }) };
}

function contentOf(value: Json): Json[] {
  const message = value.message;
  if (!isObject(message) || !Array.isArray(message.content)) return [];
  return message.content.filter(isObject);
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c) => (isObject(c) && typeof c.text === 'string' ? c.text : '')).join('\n');
  return '';
}

/** One line for a person watching: what the agent is doing. Undefined for events not worth a message. */
export function describeClaudeEvent(event: ClaudeEvent, root: string): string | undefined {
  switch (event.type) {
    case 'init':
      return `claude session ${event.sessionId}${event.model ? ` (${event.model})` : ''}`;
    case 'text':
      return clip(event.text.replace(/\s+/g, ' ').trim(), 300);
    case 'tool_use':
      // The harness tools report for themselves: their report is the message.
      return event.name.startsWith('mcp__harness__') ? undefined : describeToolUse(event.name, event.input, root);
    case 'tool_result':
      return event.isError ? `tool error: ${clip(firstLine(event.content), 200)}` : undefined;
    case 'result':
      return `claude finished (${event.subtype}): ${resultStats(event)}`;
    case 'rate_limit':
      if (event.status === 'rejected') return `the model's usage limit was hit${event.limitType ? ` (${event.limitType})` : ''}`;
      return event.status === 'allowed_warning' ? `nearing the model's usage limit${event.limitType ? ` (${event.limitType})` : ''}` : undefined;
  }
}

/**
 * Why a run of the CLI stopped at the model's usage limit, or undefined when it did not: its
 * final text is one of the CLI's own limit messages (which it may report as a "success"), or the
 * stream said the limit was hit and the run did not succeed. The exact reset time of the stream
 * goes with it, for rateLimitOf.
 */
export function usageLimitFailure(result: ClaudeResult | undefined, limit: ClaudeRateLimit | undefined): string | undefined {
  const text = (result?.result ?? '').trim();
  const succeeded = result !== undefined && result.subtype === 'success' && !result.isError;
  const said = text !== '' && isCliLimitMessage(text);
  const rejected = limit?.status === 'rejected' && !succeeded;
  if (!said && !rejected) return undefined;
  const words = said
    ? firstLine(text)
    : `the stream reported the ${limit?.limitType ?? 'usage'} limit rejected${text ? `: ${clip(firstLine(text), 300)}` : ''}`;
  const exact = limit?.status === 'rejected' && limit.resetsAt !== undefined ? ` (resets ${new Date(limit.resetsAt * 1000).toISOString()})` : '';
  return `claude stopped at the model's usage limit: ${words}${exact}`;
}

export function describeToolUse(name: string, input: Record<string, unknown>, root: string): string {
  const path = str(input.file_path) ?? str(input.notebook_path);
  switch (name) {
    case 'Bash':
      return `Bash: ${clip(firstLine(str(input.command) ?? ''), 200)}`;
    case 'Grep':
      return `Grep ${str(input.pattern) ?? ''}${str(input.path) ? ` in ${relative(str(input.path)!, root)}` : ''}`;
    case 'Glob':
      return `Glob ${str(input.pattern) ?? ''}`;
    case 'Task':
      return `Task: ${str(input.description) ?? ''}`;
    case 'WebFetch':
      return `WebFetch ${str(input.url) ?? ''}`;
    case 'WebSearch':
      return `WebSearch ${str(input.query) ?? ''}`;
    case 'TodoWrite':
      return `TodoWrite (${Array.isArray(input.todos) ? input.todos.length : 0} items)`;
    default:
      return path ? `${name} ${relative(path, root)}` : name;
  }
}

export function resultStats(result: ClaudeResult): string {
  const parts: string[] = [];
  if (result.numTurns !== undefined) parts.push(`${result.numTurns} turn${result.numTurns === 1 ? '' : 's'}`);
  if (result.costUsd !== undefined) parts.push(`$${result.costUsd.toFixed(2)}`);
  if (result.durationMs !== undefined) parts.push(`${(result.durationMs / 1000).toFixed(1)}s`);
  return parts.join(', ') || 'no statistics';
}

/** What one run of the CLI reported it used: the figures its result carries, and no others. */
export function usageOf(result: ClaudeResult): Usage {
  return {
    ...(result.numTurns === undefined ? {} : { turns: result.numTurns }),
    ...(result.costUsd === undefined ? {} : { costUsd: result.costUsd }),
    ...(result.inputTokens === undefined ? {} : { inputTokens: result.inputTokens }),
    ...(result.outputTokens === undefined ? {} : { outputTokens: result.outputTokens }),
  };
}

/**
 * The usage of every run of one attempt (undefined: a run that reported nothing, such as one
 * stopped by the time-out). A figure is summed only when every run reported it: a total with a
 * run missing would be smaller than what was used, so it is left out instead. Undefined when no
 * figure is known.
 */
export function totalUsage(runs: readonly (Usage | undefined)[]): Usage | undefined {
  if (runs.length === 0) return undefined;
  const sum = (key: keyof Usage): number | undefined =>
    runs.every((r) => r?.[key] !== undefined) ? runs.reduce((total, r) => total + r![key]!, 0) : undefined;
  const turns = sum('turns');
  const costUsd = sum('costUsd');
  const inputTokens = sum('inputTokens');
  const outputTokens = sum('outputTokens');
  if (turns === undefined && costUsd === undefined && inputTokens === undefined && outputTokens === undefined) return undefined;
  return {
    ...(turns === undefined ? {} : { turns }),
    // To a millionth of a dollar: sums of floats grow long tails (0.1843 + 0.0318).
    ...(costUsd === undefined ? {} : { costUsd: Math.round(costUsd * 1e6) / 1e6 }),
    ...(inputTokens === undefined ? {} : { inputTokens }),
    ...(outputTokens === undefined ? {} : { outputTokens }),
  };
}

/** Why a result is a failure, or undefined for a success. */
export function resultFailure(result: ClaudeResult): { error: string; retryable: boolean } | undefined {
  if (result.subtype === 'success' && !result.isError) return undefined;
  const stats = resultStats(result);
  const details = [...result.errors, ...(result.isError && result.result ? [result.result] : [])].join('; ');
  const detail = details ? `: ${clip(details, 500)}` : '';
  switch (result.subtype) {
    case 'error_max_turns':
      // The same brief would hit the same limit again: raise max_turns or split the plan.
      return { error: `claude stopped at its turn limit (${stats})${detail}`, retryable: false };
    case 'error_max_budget_usd':
      // Claude Code's own stop at --max-budget-usd: the same brief would spend as much again.
      return { error: `claude stopped at its spending limit (--max-budget-usd; ${stats})${detail}`, retryable: false };
    case 'error_during_execution':
      return { error: `claude failed during execution (${stats})${detail}`, retryable: true };
    case 'success':
      // An API error (overload, rate limit) reported as a result: worth another attempt.
      return { error: `claude reported an error (${stats})${detail}`, retryable: true };
    default:
      return { error: `claude ended with ${result.subtype} (${stats})${detail}`, retryable: false };
  }
}
