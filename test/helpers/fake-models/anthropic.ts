import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonOf, modelServer } from './server.js';

/**
 * A fake Anthropic Messages API on 127.0.0.1, for the real Claude Code (`ANTHROPIC_BASE_URL`):
 * `POST /v1/messages` answered from a queue the test scripts, streamed as the real API streams
 * (server-sent events: message_start, content_block_start, content_block_delta,
 * content_block_stop, message_delta, message_stop), or a JSON message when the request does not
 * ask for a stream; an error reply is the API's error body with its status and headers. Every
 * request is recorded, whatever it asked, for the test's assertions.
 *
 * Only the conversation's requests take a reply from the queue: those that offer tools (the
 * agent's turns). Anything else Claude Code asks on the side (a session title from a small model,
 * say) is answered with a short text and recorded, so a test's script is only the agent's turns.
 */

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

export type AnthropicReply =
  /** An assistant turn calling one tool (Bash, Write, …) with this input. */
  | { tool: string; input: Record<string, unknown>; text?: string; usage?: Usage }
  /** An assistant turn that ends the conversation with this text. */
  | { text: string; usage?: Usage }
  /** An error as the API answers it: status, headers, and body `{"type":"error","error":{type,message}}`. */
  | { status: number; headers?: Record<string, string>; error: { type: string; message: string } };

/** A reply, or what makes one from the request it answers (to name a path under the session's working directory, say). */
export type AnthropicScript = AnthropicReply | ((body: AnthropicBody) => AnthropicReply);

export interface AnthropicRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: AnthropicBody | undefined;
  /** Whether it was one of the conversation's, given a reply from the queue. */
  turn: boolean;
  /** The reply it was given (for a turn). */
  reply?: AnthropicReply;
}

export interface AnthropicBody {
  model?: string;
  stream?: boolean;
  max_tokens?: number;
  system?: unknown;
  tools?: { name: string }[];
  messages?: {
    role: string;
    content: string | { type: string; text?: string; id?: string; tool_use_id?: string; content?: unknown; name?: string; input?: unknown }[];
  }[];
  [key: string]: unknown;
}

export interface FakeAnthropic {
  /** ANTHROPIC_BASE_URL. */
  url: string;
  requests: AnthropicRequest[];
  /** The conversation's requests, in order. */
  turns(): AnthropicRequest[];
  /** Replies still queued. */
  left(): number;
  /** More replies, at the end of the queue. */
  push(...replies: AnthropicScript[]): void;
  /** What reached it as a proxy (HTTPS_PROXY, HTTP_PROXY): traffic for anywhere but 127.0.0.1, refused. */
  escaped: string[];
  close(): Promise<void>;
}

/** The usage a reply reports when the test names none. */
export const DEFAULT_USAGE: Usage = { input_tokens: 1200, output_tokens: 40 };

export async function fakeAnthropic(replies: AnthropicScript[]): Promise<FakeAnthropic> {
  const queue = [...replies];
  const requests: AnthropicRequest[] = [];
  let messages = 0;
  const server = await modelServer(({ req, path, text }, res) => {
    const body = jsonOf<AnthropicBody | undefined>(text, undefined);
    const turn = req.method === 'POST' && path === '/v1/messages' && (body?.tools?.length ?? 0) > 0;
    const recorded: AnthropicRequest = { method: req.method ?? 'GET', path, headers: req.headers, body, turn };
    requests.push(recorded);
    if (req.method !== 'POST' || path !== '/v1/messages') return notFound(res);
    const next = turn ? queue.shift() : undefined;
    const scripted = typeof next === 'function' ? next(body!) : next;
    const reply: AnthropicReply = turn
      ? (scripted ?? { status: 500, error: { type: 'api_error', message: 'the fake model has no reply left' } })
      : { text: 'Side answer', usage: { input_tokens: 10, output_tokens: 2 } };
    if (turn) recorded.reply = reply;
    answer(res, reply, body, `msg_fake${String(++messages).padStart(4, '0')}`);
  });
  return {
    url: server.origin,
    requests,
    escaped: server.escaped,
    turns: () => requests.filter((r) => r.turn),
    left: () => queue.length,
    push: (...more) => void queue.push(...more),
    close: server.close,
  };
}

function notFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'Not found' } }));
}

function answer(res: ServerResponse, reply: AnthropicReply, body: AnthropicBody | undefined, id: string): void {
  if ('status' in reply) {
    res.writeHead(reply.status, { 'content-type': 'application/json', 'request-id': `req_${id}`, ...reply.headers });
    res.end(JSON.stringify({ type: 'error', error: reply.error, request_id: `req_${id}` }));
    return;
  }
  const model = body?.model ?? 'claude-sonnet-4-5';
  const usage = reply.usage ?? DEFAULT_USAGE;
  const blocks: ({ type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> })[] = [];
  if (reply.text) blocks.push({ type: 'text', text: reply.text });
  if ('tool' in reply) blocks.push({ type: 'tool_use', id: `toolu_${id.slice(4)}`, name: reply.tool, input: reply.input });
  const stopReason = 'tool' in reply ? 'tool_use' : 'end_turn';
  const message = { id, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stopReason, stop_sequence: null, usage };
  if (body?.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${id}` });
    res.end(JSON.stringify(message));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${id}` });
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  // As the API streams: the input's usage first (output so far 1), the blocks, then the final output count.
  const startUsage = { ...usage, output_tokens: 1 };
  send('message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: startUsage } });
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      send('ping', { type: 'ping' });
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    } else {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    }
    send('content_block_stop', { type: 'content_block_stop', index });
  });
  send('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

/** The working directory Claude Code says it runs in, from the request's environment section ("Primary working directory: …"). */
export function workingDirectory(body: AnthropicBody): string {
  const found = /Primary working directory: ([^\n"\\]+)/.exec(JSON.stringify(body));
  if (!found) throw new Error('the request names no working directory');
  return found[1]!.trim();
}

/** The text of every message of a request, tool inputs and results included: what the model was given. */
export function conversationText(body: AnthropicBody | undefined): string {
  return JSON.stringify(body?.messages ?? []);
}
