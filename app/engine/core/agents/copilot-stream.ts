import type { Usage } from '../protocol/messages.js';
import { describeToolUse } from './claude-stream.js';
import { clip, firstLine, isObject, num, readLine, str, withDefined, type Json, type LineReaders } from './stream-json.js';

/**
 * GitHub Copilot CLI's headless output (`copilot -p … --output-format json`), read in
 * @github/copilot 1.0.102, the version the worker workflow pins (its cli-main.js and the
 * session-events schema it ships, copilot-sdk/generated/session-events.d.ts). One JSON object a
 * line: every session event as the CLI records it, `{"type","data","id","parentId","timestamp"}`,
 * less the ones it keeps out of the stream (assistant.usage, session.shutdown, session.idle,
 * permission.*, hook.*, …), then one closing line of its own. The shapes read here:
 *
 *   {"type":"session.tools_updated","data":{"model":"…"},"ephemeral":true,…}
 *   {"type":"assistant.turn_start","data":{"turnId":"…","parentToolCallId"?:"…"},…}
 *   {"type":"assistant.message","data":{"messageId":"…","content":"…","outputTokens":42,"parentToolCallId"?:"…"},…}
 *   {"type":"tool.execution_start","data":{"toolCallId":"…","toolName":"bash","arguments":{…},"mcpServerName"?:"harness"},…}
 *   {"type":"tool.execution_complete","data":{"toolCallId":"…","success":false,"result"?:{"content":"…"},"error"?:{"message":"…"}},…}
 *   {"type":"session.error","data":{"errorType":"rate_limit"|"quota"|"authentication"|"context_limit"|"execution"|…,
 *    "message":"…","errorCode"?:"user_weekly_rate_limited","statusCode"?:429},…}
 *   {"type":"result","timestamp":"…","sessionId":"…","exitCode":0,"usage":{"premiumRequests":1,
 *    "totalApiDurationMs":8123,"sessionDurationMs":9000,"codeChanges":{…}}}
 *
 * session.start is written to the session's events.jsonl before the stream is subscribed, so it
 * never reaches stdout: the session id is the one harness gives (--session-id) and the closing
 * line repeats; the model is session.tools_updated's. Read from runs of 1.0.102 against a local
 * OpenAI-compatible endpoint (COPILOT_PROVIDER_BASE_URL), kept in test/fixtures/copilot/.
 *
 * The stream carries no input tokens and no cost: the CLI writes its session's figures with
 * `--usage-output-file <file>` (`modelMetrics[model].usage.{inputTokens,outputTokens,…}`,
 * `totalPremiumRequestCost`), read by usageFileOf. A turn is a top-level assistant.turn_start
 * (a sub-agent's carry parentToolCallId). Parsing is tolerant: an unknown type or a line that is
 * not JSON yields nothing, because the CLI adds event types between versions.
 */

export type CopilotEvent =
  | { type: 'init'; sessionId?: string; model?: string }
  | { type: 'turn' }
  | { type: 'text'; text: string; outputTokens?: number }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown>; server?: string }
  | { type: 'tool_result'; toolUseId: string; isError: boolean; content: string }
  | CopilotError
  | CopilotResult;

/** A session.error: what went wrong, in the CLI's words, and its kind. */
export interface CopilotError {
  type: 'error';
  errorType: string;
  message: string;
  errorCode?: string;
  statusCode?: number;
}

/** The closing line of a headless run. */
export interface CopilotResult {
  type: 'result';
  sessionId?: string;
  exitCode?: number;
  premiumRequests?: number;
  durationMs?: number;
}

/** The events of one line of output. */
export function parseCopilotLine(line: string): CopilotEvent[] {
  return readLine(line, COPILOT_LINES);
}

/** A session event's reader, given its `data` and whether it is a sub-agent's (it carries parentToolCallId). */
const sessionEvent =
  (read: (data: Json, nested: boolean) => CopilotEvent[]) =>
  (value: Json): CopilotEvent[] => {
    const data = isObject(value.data) ? value.data : undefined;
    return data ? read(data, str(data.parentToolCallId) !== undefined) : [];
  };

const COPILOT_LINES: LineReaders<CopilotEvent> = {
  // The CLI's own closing line: no `data`.
  result: (value) => {
    const usage = isObject(value.usage) ? value.usage : {};
    const result: CopilotResult = { type: 'result' };
    return [
      withDefined(result, {
        sessionId: str(value.sessionId),
        exitCode: num(value.exitCode),
        premiumRequests: num(usage.premiumRequests),
        durationMs: num(usage.sessionDurationMs),
      }),
    ];
  },
  'session.tools_updated': sessionEvent((data) => {
    const model = str(data.model);
    return model ? [{ type: 'init', model }] : [];
  }),
  'session.start': sessionEvent((data) => {
    const sessionId = str(data.sessionId);
    const model = str(data.selectedModel);
    return [{ type: 'init', ...(sessionId ? { sessionId } : {}), ...(model ? { model } : {}) }];
  }),
  // A sub-agent's turns and messages are its own: the session's are the top-level ones.
  'assistant.turn_start': sessionEvent((_data, nested) => (nested ? [] : [{ type: 'turn' }])),
  'assistant.message': sessionEvent((data, nested) => {
    const outputTokens = num(data.outputTokens);
    return nested ? [] : [{ type: 'text', text: str(data.content) ?? '', ...(outputTokens === undefined ? {} : { outputTokens }) }];
  }),
  'tool.execution_start': sessionEvent((data) => {
    const name = str(data.toolName);
    if (!name) return [];
    const server = str(data.mcpServerName);
    return [
      {
        type: 'tool_use',
        id: str(data.toolCallId) ?? '',
        name: str(data.mcpToolName) ?? name,
        input: isObject(data.arguments) ? data.arguments : {},
        ...(server ? { server } : {}),
      },
    ];
  }),
  'tool.execution_complete': sessionEvent((data) => {
    const error = isObject(data.error) ? str(data.error.message) : undefined;
    const result = isObject(data.result) ? str(data.result.content) : undefined;
    return [{ type: 'tool_result', toolUseId: str(data.toolCallId) ?? '', isError: data.success !== true, content: error ?? result ?? '' }];
  }),
  'session.error': sessionEvent((data) => {
    const errorCode = str(data.errorCode);
    const statusCode = num(data.statusCode);
    return [
      {
        type: 'error',
        errorType: str(data.errorType) ?? 'unknown',
        message: str(data.message) ?? '',
        ...(errorCode ? { errorCode } : {}),
        ...(statusCode === undefined ? {} : { statusCode }),
      },
    ];
  }),
};

/** The names Copilot CLI gives its built-in tools, as describeToolUse knows Claude Code's. */
const TOOL_NAMES: Record<string, string> = { bash: 'Bash', view: 'Read', edit: 'Edit', create: 'Write', grep: 'Grep', glob: 'Glob', web_fetch: 'WebFetch' };

/** One line for a person watching: what the agent is doing. Undefined for events not worth a message. */
export function describeCopilotEvent(event: CopilotEvent, root: string): string | undefined {
  switch (event.type) {
    case 'init':
      return `copilot session${event.sessionId ? ` ${event.sessionId}` : ''}${event.model ? ` (${event.model})` : ''}`;
    case 'text': {
      const text = event.text.replace(/\s+/g, ' ').trim();
      return text ? clip(text, 300) : undefined;
    }
    case 'tool_use': {
      // The harness tools report for themselves: their report is the message.
      if (event.server === 'harness') return undefined;
      const input = { ...event.input, ...(typeof event.input.path === 'string' ? { file_path: event.input.path } : {}) };
      return describeToolUse(TOOL_NAMES[event.name] ?? event.name, input, root);
    }
    case 'tool_result':
      return event.isError ? `tool error: ${clip(firstLine(event.content), 200)}` : undefined;
    case 'error':
      return `copilot error (${event.errorType}): ${clip(firstLine(event.message), 300)}`;
    case 'result':
      return `copilot finished (exit ${event.exitCode ?? '?'})${event.premiumRequests !== undefined ? `: ${event.premiumRequests} premium request${event.premiumRequests === 1 ? '' : 's'}` : ''}`;
    case 'turn':
      return undefined;
  }
}

/** What `--usage-output-file` holds (the CLI's UsageGetMetricsResult), reduced to what harness counts. */
export interface CopilotUsageFile {
  inputTokens?: number;
  outputTokens?: number;
  premiumRequests?: number;
  models: string[];
}

/** The figures of a --usage-output-file, summed over its models; undefined for a file the CLI did not write as it does. */
export function usageFileOf(text: string): CopilotUsageFile | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value) || !isObject(value.modelMetrics)) return undefined;
  let input = 0;
  let output = 0;
  let counted = false;
  const models: string[] = [];
  for (const [model, metric] of Object.entries(value.modelMetrics)) {
    if (!isObject(metric) || !isObject(metric.usage)) continue;
    const i = num(metric.usage.inputTokens);
    const o = num(metric.usage.outputTokens);
    if (i === undefined || o === undefined) continue;
    input += i;
    output += o;
    counted = true;
    models.push(model);
  }
  const premium = num(value.totalPremiumRequestCost);
  return { ...(counted ? { inputTokens: input, outputTokens: output } : {}), ...(premium === undefined ? {} : { premiumRequests: premium }), models };
}

/**
 * What a session's usage file adds to what was counted of the session before: after
 * `--resume=<id>` 1.0.102 writes the session's totals (every run of it), not the run's, so a
 * resumed run is what the totals grew by (issue 38: 4,007 tokens counted where 3,006 were used).
 * A figure the earlier count lacks is taken whole; one that went down (a file not the session's) is
 * taken as it is rather than made negative.
 */
export function usageSince(file: CopilotUsageFile, before: Omit<CopilotUsageFile, 'models'> | undefined): CopilotUsageFile {
  if (!before) return file;
  const since = (now: number | undefined, then: number | undefined) => (now === undefined || then === undefined ? now : now >= then ? now - then : now);
  const input = since(file.inputTokens, before.inputTokens);
  const output = since(file.outputTokens, before.outputTokens);
  const premium = since(file.premiumRequests, before.premiumRequests);
  return {
    ...(input === undefined ? {} : { inputTokens: input }),
    ...(output === undefined ? {} : { outputTokens: output }),
    ...(premium === undefined ? {} : { premiumRequests: premium }),
    models: file.models,
  };
}

/** What harness pays for Copilot's tokens and premium requests, in US dollars: the CLI reports no cost of its own. */
export interface CopilotPrice {
  inputPerMillion?: number;
  outputPerMillion?: number;
  perPremiumRequest?: number;
}

/**
 * One run's usage: the turns counted in the stream, the tokens of its usage file, and the cost
 * they come to at the configured price (none without a price: a cost nobody set is not guessed).
 */
export function copilotUsage(turns: number, file: CopilotUsageFile | undefined, price: CopilotPrice | undefined): Usage {
  const usage: Usage = { turns };
  if (file?.inputTokens !== undefined) usage.inputTokens = file.inputTokens;
  if (file?.outputTokens !== undefined) usage.outputTokens = file.outputTokens;
  const parts: number[] = [];
  if (price?.inputPerMillion !== undefined || price?.outputPerMillion !== undefined) {
    if (file?.inputTokens === undefined || file.outputTokens === undefined) return usage;
    parts.push((file.inputTokens * (price.inputPerMillion ?? 0) + file.outputTokens * (price.outputPerMillion ?? 0)) / 1e6);
  }
  if (price?.perPremiumRequest !== undefined) {
    if (file?.premiumRequests === undefined) return usage;
    parts.push(file.premiumRequests * price.perPremiumRequest);
  }
  if (parts.length > 0) usage.costUsd = Math.round(parts.reduce((a, b) => a + b, 0) * 1e6) / 1e6;
  return usage;
}
