import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonOf, modelServer } from './server.js';

/**
 * A fake model provider on 127.0.0.1 for the real GitHub Copilot CLI, brought as the user's own
 * (BYOK: `COPILOT_PROVIDER_BASE_URL`, type "openai", wire API "completions", the CLI's defaults):
 * `POST /v1/chat/completions` answered from a queue the test scripts, streamed as OpenAI streams
 * chat completions (`data: {chunk}` lines, the usage in a last chunk with no choices when
 * `stream_options.include_usage` asks for it, then `data: [DONE]`), or one JSON completion when
 * the request does not ask for a stream; an error reply is OpenAI's error body with its status
 * and headers. Every request is recorded for the test's assertions.
 *
 * Only the conversation's requests take a reply from the queue: those that offer tools (the
 * agent's turns). Anything else the CLI asks on the side is answered with a short text.
 */

export interface ProviderUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export type ProviderReply =
  /** An assistant turn calling one tool (bash, create, …) with these arguments. */
  | { tool: string; arguments: Record<string, unknown>; text?: string; usage?: ProviderUsage }
  /** An assistant turn that ends with this text. */
  | { text: string; usage?: ProviderUsage }
  /** An error as OpenAI answers it: status, headers, and body `{"error":{message,type,code}}`. */
  | { status: number; headers?: Record<string, string>; error: { message: string; type: string; code?: string | null } };

/** A reply, or what makes one from the request it answers. */
export type ProviderScript = ProviderReply | ((body: ChatBody) => ProviderReply);

export interface ProviderRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: ChatBody | undefined;
  turn: boolean;
  reply?: ProviderReply;
}

export interface ChatBody {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: { type: string; function: { name: string } }[];
  messages?: { role: string; content?: unknown; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
  [key: string]: unknown;
}

export interface FakeProvider {
  /** COPILOT_PROVIDER_BASE_URL (with its /v1). */
  url: string;
  requests: ProviderRequest[];
  turns(): ProviderRequest[];
  left(): number;
  push(...replies: ProviderScript[]): void;
  /** What reached it as a proxy (HTTPS_PROXY, HTTP_PROXY): traffic for anywhere but 127.0.0.1, refused. */
  escaped: string[];
  close(): Promise<void>;
}

export const DEFAULT_PROVIDER_USAGE: ProviderUsage = { prompt_tokens: 1500, completion_tokens: 30 };

export async function fakeCopilotProvider(replies: ProviderScript[]): Promise<FakeProvider> {
  const queue = [...replies];
  const requests: ProviderRequest[] = [];
  let completions = 0;
  const server = await modelServer(({ req, path, text }, res) => {
    const body = jsonOf<ChatBody | undefined>(text, undefined);
    const chat = req.method === 'POST' && path === '/v1/chat/completions';
    const turn = chat && (body?.tools?.length ?? 0) > 0;
    const recorded: ProviderRequest = { method: req.method ?? 'GET', path, headers: req.headers, body, turn };
    requests.push(recorded);
    if (!chat) return notFound(res);
    const next = turn ? queue.shift() : undefined;
    const scripted = typeof next === 'function' ? next(body!) : next;
    const reply: ProviderReply = turn
      ? (scripted ?? { status: 500, error: { message: 'the fake model has no reply left', type: 'server_error' } })
      : { text: 'Side answer', usage: { prompt_tokens: 10, completion_tokens: 2 } };
    if (turn) recorded.reply = reply;
    answer(res, reply, body, `chatcmpl-fake${String(++completions).padStart(4, '0')}`);
  });
  return {
    url: `${server.origin}/v1`,
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
  res.end(JSON.stringify({ error: { message: 'Not found', type: 'invalid_request_error', code: null } }));
}

function answer(res: ServerResponse, reply: ProviderReply, body: ChatBody | undefined, id: string): void {
  if ('status' in reply) {
    res.writeHead(reply.status, { 'content-type': 'application/json', 'x-request-id': id, ...reply.headers });
    res.end(JSON.stringify({ error: { code: null, ...reply.error } }));
    return;
  }
  const model = body?.model ?? 'fake-model';
  const created = Math.floor(Date.now() / 1000);
  const u = reply.usage ?? DEFAULT_PROVIDER_USAGE;
  const usage = { ...u, total_tokens: u.prompt_tokens + u.completion_tokens };
  const call =
    'tool' in reply
      ? { index: 0, id: `call_${id.slice(-4)}`, type: 'function' as const, function: { name: reply.tool, arguments: JSON.stringify(reply.arguments) } }
      : undefined;
  const finish = call ? 'tool_calls' : 'stop';
  if (body?.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': id });
    const message = {
      role: 'assistant',
      content: reply.text ?? null,
      ...(call ? { tool_calls: [{ id: call.id, type: call.type, function: call.function }] } : {}),
    };
    res.end(JSON.stringify({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: finish }], usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': id });
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`);
  chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
  if (reply.text) chunk([{ index: 0, delta: { content: reply.text }, finish_reason: null }]);
  if (call) chunk([{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }]);
  chunk([{ index: 0, delta: {}, finish_reason: finish }]);
  if (body.stream_options?.include_usage) chunk([], { usage });
  res.write('data: [DONE]\n\n');
  res.end();
}

/** The text of every message of a request, tool calls and results included: what the model was given. */
export function conversationText(body: ChatBody | undefined): string {
  return JSON.stringify(body?.messages ?? []);
}
