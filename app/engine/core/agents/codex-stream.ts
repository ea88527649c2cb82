import type { Usage } from '../protocol/messages.js';
import { type ToolCall, clip, firstLine, isObject, jsonLine, num, readLine, relative, str, type LineReaders } from './stream-json.js';

/**
 * The OpenAI Codex CLI's headless output (`codex exec --json …`, @openai/codex 0.171.0, the
 * version the worker workflow pins): one JSON object a line on stdout, read from the installed
 * CLI's own runs (its --help, the strings of its binary, and its output against a Responses API
 * on 127.0.0.1). The shapes read here, as that version prints them:
 *
 *   {"type":"thread.started","thread_id":"01a21e45-911c-76b3-a22b-47dd41b3e98a"}
 *   {"type":"turn.started"}
 *   {"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc 'npm test'","aggregated_output":"","exit_code":null,"status":"in_progress"}}
 *   {"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"…","aggregated_output":"…","exit_code":1,"status":"failed"}}
 *   {"type":"item.completed","item":{"id":"item_1","type":"file_change","changes":[{"path":"/abs/added.txt","kind":"add"}],"status":"completed"}}
 *   {"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"harness","tool":"harness_worker_report","arguments":{…},
 *     "result":{"content":[{"type":"text","text":"recorded"}],"structured_content":null},"error":null,"status":"completed"}}
 *     (a refused call: "result":null,"error":{"message":"MCP tool call requires approval, but approval policy is never"},"status":"failed")
 *   {"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"…"}}
 *   {"type":"item.completed","item":{"id":"item_0","type":"error","message":"Falling back from WebSockets to HTTPS transport. …"}}
 *   {"type":"error","message":"Reconnecting... 2/5 (stream disconnected before completion: …)"}
 *   {"type":"turn.completed","usage":{"input_tokens":2400,"cached_input_tokens":400,"cache_write_input_tokens":0,"output_tokens":100,"reasoning_output_tokens":20}}
 *   {"type":"turn.failed","error":{"message":"You’ve hit your usage limit. … or try again at 7:34 PM."}}
 *
 * Other item types (reasoning, todo_list, web_search, plan, collab_tool_call) and event types
 * (item.plan.delta, request_user_input) are read where they say something, else skipped. The
 * stream carries no cost and no turn count; its usage is the thread's total so far (a resumed
 * thread's turn.completed counts the runs before it too: it grew 1200, 2400, 3600 over three
 * runs of one thread), and `input_tokens` includes the cached ones, `output_tokens` the
 * reasoning ones. An `error` event is not the end: the CLI says its reconnects that way; a run
 * ends with turn.completed or turn.failed, and exits 1 after turn.failed.
 *
 * The session a run writes is `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local time>-<thread
 * id>.jsonl` (CODEX_HOME defaults to ~/.codex); `codex exec resume <thread id>` finds it there
 * from that file alone, in any working directory, and fails "thread/resume failed: no rollout
 * found for thread id <id>" without it. Its `token_count` lines carry the thread's total usage.
 *
 * Parsing is tolerant: an unknown type or a line that is not JSON yields nothing.
 */

export interface CodexUsage {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
}

export type CodexItem =
  | { kind: 'agent_message'; id: string; text: string }
  | { kind: 'command_execution'; id: string; command: string; exitCode?: number; status: string; output: string }
  | { kind: 'file_change'; id: string; changes: { path: string; kind: string }[]; status: string }
  | { kind: 'mcp_tool_call'; id: string; server: string; tool: string; arguments: Record<string, unknown>; status: string; error?: string; text: string }
  | { kind: 'web_search'; id: string; query: string }
  | { kind: 'todo_list'; id: string; items: { text: string; completed: boolean }[] }
  | { kind: 'error'; id: string; message: string }
  | { kind: 'other'; id: string; itemType: string };

export type CodexEvent =
  | { type: 'thread'; threadId: string }
  | { type: 'item'; phase: 'started' | 'updated' | 'completed'; item: CodexItem }
  | { type: 'turn_completed'; usage: CodexUsage }
  | { type: 'turn_failed'; message: string }
  | { type: 'error'; message: string };

/** The events of one line of `codex exec --json` output. */
export function parseCodexLine(line: string): CodexEvent[] {
  return readLine(line, CODEX_LINES);
}

/** An item's event, in the phase its line names. */
const item =
  (phase: 'started' | 'updated' | 'completed') =>
  (value: Record<string, unknown>): CodexEvent[] => {
    const item = itemOf(value.item);
    return item ? [{ type: 'item', phase, item }] : [];
  };

const CODEX_LINES: LineReaders<CodexEvent> = {
  'thread.started': (value) => {
    const threadId = str(value.thread_id);
    return threadId ? [{ type: 'thread', threadId }] : [];
  },
  'item.started': item('started'),
  'item.updated': item('updated'),
  'item.completed': item('completed'),
  'turn.completed': (value) => {
    const usage = usageOf(value.usage);
    return usage ? [{ type: 'turn_completed', usage }] : [];
  },
  'turn.failed': (value) => [{ type: 'turn_failed', message: isObject(value.error) ? (str(value.error.message) ?? '') : '' }],
  error: (value) => [{ type: 'error', message: str(value.message) ?? '' }],
};

function itemOf(value: unknown): CodexItem | undefined {
  if (!isObject(value) || typeof value.type !== 'string') return undefined;
  const id = str(value.id) ?? '';
  const status = str(value.status) ?? '';
  switch (value.type) {
    case 'agent_message':
      return { kind: 'agent_message', id, text: str(value.text) ?? '' };
    case 'command_execution': {
      const exitCode = num(value.exit_code);
      return {
        kind: 'command_execution',
        id,
        command: str(value.command) ?? '',
        status,
        output: str(value.aggregated_output) ?? '',
        ...(exitCode === undefined ? {} : { exitCode }),
      };
    }
    case 'file_change':
      return {
        kind: 'file_change',
        id,
        status,
        changes: (Array.isArray(value.changes) ? value.changes : []).filter(isObject).map((c) => ({ path: str(c.path) ?? '', kind: str(c.kind) ?? '' })),
      };
    case 'mcp_tool_call': {
      const error = isObject(value.error) ? str(value.error.message) : undefined;
      const content = isObject(value.result) && Array.isArray(value.result.content) ? value.result.content : [];
      const text = content.map((c) => (isObject(c) && typeof c.text === 'string' ? c.text : '')).join('\n');
      return {
        kind: 'mcp_tool_call',
        id,
        server: str(value.server) ?? '',
        tool: str(value.tool) ?? '',
        arguments: isObject(value.arguments) ? value.arguments : {},
        status,
        text,
        ...(error === undefined ? {} : { error }),
      };
    }
    case 'web_search':
      return { kind: 'web_search', id, query: str(value.query) ?? '' };
    case 'todo_list':
      return {
        kind: 'todo_list',
        id,
        items: (Array.isArray(value.items) ? value.items : []).filter(isObject).map((i) => ({ text: str(i.text) ?? '', completed: i.completed === true })),
      };
    case 'error':
      return { kind: 'error', id, message: str(value.message) ?? '' };
    default:
      return { kind: 'other', id, itemType: value.type };
  }
}

function usageOf(value: unknown): CodexUsage | undefined {
  if (!isObject(value)) return undefined;
  const input = num(value.input_tokens);
  const output = num(value.output_tokens);
  if (input === undefined || output === undefined) return undefined;
  return { inputTokens: input, cachedInputTokens: num(value.cached_input_tokens) ?? 0, outputTokens: output };
}

/**
 * The thread's total usage as its rollout file last recorded it (`token_count` events), the
 * starting point of a resumed run's own usage; undefined when the file records none.
 *
 *   {"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":3600,"cached_input_tokens":600,…,"output_tokens":150,…},…},…}}
 */
export function rolloutUsage(text: string): CodexUsage | undefined {
  let last: CodexUsage | undefined;
  for (const line of text.split('\n')) {
    if (!line.includes('"token_count"')) continue;
    const value = jsonLine(line);
    const payload = value && isObject(value.payload) ? value.payload : undefined;
    if (value?.type !== 'event_msg' || payload?.type !== 'token_count' || !isObject(payload.info)) continue;
    last = usageOf(payload.info.total_token_usage) ?? last;
  }
  return last;
}

/** What one run used: the thread's total at its end less the total it started from (a resumed thread's earlier runs). */
export function usageSince(total: CodexUsage, before: CodexUsage | undefined): CodexUsage {
  if (!before) return total;
  const less = (a: number, b: number) => Math.max(0, a - b);
  return {
    inputTokens: less(total.inputTokens, before.inputTokens),
    cachedInputTokens: less(total.cachedInputTokens, before.cachedInputTokens),
    outputTokens: less(total.outputTokens, before.outputTokens),
  };
}

/** US dollars a million tokens (agents.codex.price): Codex reports tokens, never a cost. */
export interface TokenPrice {
  inputPerMillion: number;
  /** Cached input; the input price when not given. */
  cachedInputPerMillion?: number;
  outputPerMillion: number;
}

/** The cost of a run's tokens at a price: uncached input, cached input and output (reasoning included), each at its rate. */
export function priced(usage: CodexUsage, price: TokenPrice): number {
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const dollars =
    ((usage.inputTokens - cached) * price.inputPerMillion +
      cached * (price.cachedInputPerMillion ?? price.inputPerMillion) +
      usage.outputTokens * price.outputPerMillion) /
    1e6;
  return Math.round(dollars * 1e6) / 1e6;
}

/** A step the agent completed that acts: a command, a file change, a tool call, a web search. */
export function isAction(event: CodexEvent): boolean {
  return event.type === 'item' && event.phase === 'completed' && ['command_execution', 'file_change', 'mcp_tool_call', 'web_search'].includes(event.item.kind);
}

/** A message the agent completed (its words on the way, or its closing ones). */
export function isMessage(event: CodexEvent): boolean {
  return event.type === 'item' && event.phase === 'completed' && event.item.kind === 'agent_message';
}

/**
 * A run's turns. Codex counts none of its own, so harness counts a turn as a tool-using agent
 * counts one (Claude Code's num_turns, Copilot's assistant turns): a step that acts. A message is
 * no turn of its own — the closing one after the work ("Done: …"), or words between actions —
 * so `max_turns: 1` lets a plan do one thing and say so (issue 38); a run that only answered took
 * one turn. max_turns is held to this count.
 */
export function codexTurns(actions: number, messages: number): number {
  return actions > 0 ? actions : messages > 0 ? 1 : 0;
}

/** A run's figures in harness's terms: turns as counted, tokens, and the cost when a price is known. */
export function runUsage(turns: number, usage: CodexUsage | undefined, price: TokenPrice | undefined): Usage {
  return {
    turns,
    ...(usage ? { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens } : {}),
    ...(usage && price ? { costUsd: priced(usage, price) } : {}),
  };
}

/**
 * The tool call of an item's event: a command, a file change, an MCP tool (not harness's own,
 * which reports for itself) or a web search, as it starts and as it completes (failed unless
 * its status says completed). A completed item names its tool too: one seen only as it
 * completed (a file change) is still a call.
 */
export function codexToolCall(event: CodexEvent): ToolCall | undefined {
  if (event.type !== 'item' || event.phase === 'updated' || event.item.id === '') return undefined;
  const { item } = event;
  const name =
    item.kind === 'command_execution' || item.kind === 'file_change' || item.kind === 'web_search'
      ? item.kind
      : item.kind === 'mcp_tool_call' && item.server !== 'harness'
        ? `${item.server}.${item.tool}`
        : undefined;
  if (name === undefined) return undefined;
  if (event.phase === 'started') return { id: item.id, name, phase: 'start' };
  const failed = 'status' in item && item.status !== '' && item.status !== 'completed';
  return { id: item.id, name, phase: 'end', error: failed };
}

/** One line for a person watching: what the agent is doing. Undefined for events not worth a message. */
export function describeCodexEvent(event: CodexEvent, root: string): string | undefined {
  switch (event.type) {
    case 'thread':
      return `codex session ${event.threadId}`;
    case 'error':
      return `codex: ${clip(firstLine(event.message), 300)}`;
    case 'turn_failed':
      return `codex failed: ${clip(firstLine(event.message), 300)}`;
    case 'turn_completed':
      return `codex finished (${event.usage.inputTokens} input tokens, ${event.usage.outputTokens} output tokens in the session)`;
    case 'item':
      return describeItem(event.phase, event.item, root);
  }
}

function describeItem(phase: 'started' | 'updated' | 'completed', item: CodexItem, root: string): string | undefined {
  switch (item.kind) {
    case 'agent_message':
      return phase === 'completed' && item.text.trim() ? clip(item.text.replace(/\s+/g, ' ').trim(), 300) : undefined;
    case 'command_execution':
      if (phase === 'started') return `Bash: ${clip(firstLine(unwrapShell(item.command)), 200)}`;
      return phase === 'completed' && item.status !== 'completed'
        ? `command failed${item.exitCode === undefined ? '' : ` (exit ${item.exitCode})`}: ${clip(firstLine(unwrapShell(item.command)), 200)}`
        : undefined;
    case 'file_change':
      return phase === 'completed'
        ? `${item.status === 'completed' ? 'Edit' : 'edit failed:'} ${item.changes.map((c) => `${relative(c.path, root)} (${c.kind})`).join(', ')}`
        : undefined;
    case 'mcp_tool_call':
      // The harness tools report for themselves: their report is the message; a refused one is said.
      if (item.server === 'harness')
        return phase === 'completed' && item.status === 'failed' ? `tool error: ${clip(firstLine(item.error ?? item.text), 200)}` : undefined;
      if (phase === 'started') return `${item.server}.${item.tool}`;
      return phase === 'completed' && item.status === 'failed' ? `tool error: ${clip(firstLine(item.error ?? item.text), 200)}` : undefined;
    case 'web_search':
      return phase === 'started' ? `WebSearch ${item.query}` : undefined;
    case 'todo_list':
      return phase === 'completed' || phase === 'started'
        ? `TodoWrite (${item.items.length} items, ${item.items.filter((i) => i.completed).length} done)`
        : undefined;
    case 'error':
      return `codex: ${clip(firstLine(item.message), 300)}`;
    case 'other':
      return undefined;
  }
}

/** `/bin/bash -lc 'npm test'` as the command the agent meant. */
function unwrapShell(command: string): string {
  const m = /^\S*\/(?:ba|z)?sh -l?c '([\s\S]*)'$/.exec(command);
  return m ? m[1]!.replace(/'\\''/g, "'") : command;
}
