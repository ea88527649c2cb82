/**
 * A fake OpenAI Responses API on 127.0.0.1, for the real Codex CLI (@openai/codex 0.171.0):
 * `POST /v1/responses` with `stream: true`, answered as the API streams it (server-sent events
 * `response.created`, `response.output_item.added` / `.done` for each output item, then
 * `response.completed` with the usage, which a reply may name), each test scripting the replies
 * in order: a text, a function call (codex's shell tool), or an error status with its JSON body (a 429 with
 * `usage_limit_reached`). Every request's body is kept, for what the CLI sent. Only what the CLI
 * uses is here; a request it did not expect is answered 404 and recorded.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonOf, modelServer } from './server.js';

/** One scripted reply to a POST /v1/responses. */
export type ResponsesReply =
  | ({ text: string } & Reported)
  | ({ call: { name: string; arguments: Record<string, unknown> | string; id?: string } } & Reported)
  | ({ custom: { name: string; input: string; id?: string } } & Reported)
  | { status: number; body: unknown; headers?: Record<string, string> };

/** The tokens a reply's response.completed reports (1000 input, 200 of them cached, and 40 output when not given). */
export interface ResponsesUsage {
  input_tokens: number;
  cached_tokens?: number;
  output_tokens: number;
}

interface Reported {
  usage?: ResponsesUsage;
}

export interface ResponsesRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown> & { input?: unknown[]; tools?: { type: string; name?: string }[]; instructions?: string };
}

export interface FakeResponses {
  /** The `/v1` base URL, for OPENAI_BASE_URL / a provider's base_url. */
  baseUrl: string;
  /** Every request, in order (POST /v1/responses and anything else the CLI asked). */
  requests: ResponsesRequest[];
  /** The requests to /v1/responses only. */
  responses(): ResponsesRequest[];
  /** Replies for the requests to come, after those already queued. */
  reply(...replies: ResponsesReply[]): void;
  /** The replies not yet given. */
  pending(): number;
  /** What reached it as a proxy: traffic for anywhere but 127.0.0.1, refused (server.ts). */
  escaped: string[];
  close(): Promise<void>;
}

/** The Responses API's body for a ChatGPT plan at its usage limit (what the CLI words as "You've hit your usage limit…"). */
export function usageLimitBody(resetsAt: Date, plan = 'plus'): unknown {
  return {
    error: { type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: plan, resets_at: Math.floor(resetsAt.getTime() / 1000) },
  };
}

/** A fake Responses API listening on 127.0.0.1 (a free port), answering with `replies` in order. */
export async function fakeResponses(replies: ResponsesReply[] = []): Promise<FakeResponses> {
  const queue = [...replies];
  const requests: ResponsesRequest[] = [];
  const server = await modelServer(({ req, path, text }, res) => {
    const body = jsonOf<ResponsesRequest['body']>(text, text ? { raw: text } : {});
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    if (req.method === 'POST' && path === '/v1/responses') return answer(res, queue.shift(), body);
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: { message: `no ${req.method} ${path} here`, type: 'invalid_request_error' } }));
  });
  return {
    baseUrl: `${server.origin}/v1`,
    requests,
    responses: () => requests.filter((r) => r.method === 'POST' && r.url.split('?')[0] === '/v1/responses'),
    reply: (...more) => void queue.push(...more),
    pending: () => queue.length,
    escaped: server.escaped,
    close: server.close,
  };
}

function answer(res: ServerResponse, reply: ResponsesReply | undefined, body: ResponsesRequest['body']): void {
  if (reply === undefined) {
    // Nothing scripted: an error the CLI does not retry, so a test that asked too little fails rather than hangs.
    res
      .writeHead(400, { 'content-type': 'application/json' })
      .end(
        JSON.stringify({ error: { message: 'the fake model has no reply scripted for this request', type: 'invalid_request_error', code: null, param: null } }),
      );
    return;
  }
  if ('status' in reply) {
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(JSON.stringify(reply.body));
    return;
  }
  const id = `resp_${randomUUID().replace(/-/g, '')}`;
  const model = typeof body.model === 'string' ? body.model : 'gpt-fake';
  const created = Math.floor(Date.now() / 1000);
  const item =
    'text' in reply
      ? {
          type: 'message',
          id: `msg_${randomUUID().replace(/-/g, '')}`,
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: reply.text, annotations: [] }],
        }
      : 'call' in reply
        ? {
            type: 'function_call',
            id: `fc_${randomUUID().replace(/-/g, '')}`,
            status: 'completed',
            call_id: reply.call.id ?? `call_${randomUUID().replace(/-/g, '')}`,
            name: reply.call.name,
            arguments: typeof reply.call.arguments === 'string' ? reply.call.arguments : JSON.stringify(reply.call.arguments),
          }
        : {
            type: 'custom_tool_call',
            id: `ctc_${randomUUID().replace(/-/g, '')}`,
            status: 'completed',
            call_id: reply.custom.id ?? `call_${randomUUID().replace(/-/g, '')}`,
            name: reply.custom.name,
            input: reply.custom.input,
          };
  const u = reply.usage ?? { input_tokens: 1000, cached_tokens: 200, output_tokens: 40 };
  const usage = {
    input_tokens: u.input_tokens,
    input_tokens_details: { cached_tokens: u.cached_tokens ?? 0 },
    output_tokens: u.output_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: u.input_tokens + u.output_tokens,
  };
  const response = { id, object: 'response', created_at: created, status: 'in_progress', model, output: [] as unknown[], usage: null as unknown };
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  let sequence = 0;
  const send = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
  send('response.created', { response });
  send('response.in_progress', { response });
  send('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress' } });
  if ('text' in reply) send('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: reply.text });
  send('response.output_item.done', { output_index: 0, item });
  send('response.completed', { response: { ...response, status: 'completed', output: [item], usage } });
  res.end();
}
