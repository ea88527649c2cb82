/**
 * A fake Gemini API (generativelanguage.googleapis.com's v1beta) on 127.0.0.1, for the real Gemini
 * CLI (@google/gemini-cli 0.61.0, GOOGLE_GEMINI_BASE_URL with the gemini-api-key auth):
 * `POST /v1beta/models/<model>:streamGenerateContent?alt=sse`, answered as the API streams it
 * (`data: <GenerateContentResponse>` events, the last with finishReason STOP and usageMetadata,
 * which a reply may name),
 * and `:generateContent` / `:countTokens` where the CLI asks them. Each test scripts the replies
 * to the generating requests in order: a text, a function call, or an error status with the
 * API's JSON error body (a 429 RESOURCE_EXHAUSTED with its QuotaFailure details). Every request
 * is kept, for what the CLI sent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonOf, modelServer } from './server.js';

/** One scripted reply to a generating request. */
export type GeminiReply =
  { text: string; usage?: GeminiUsage } | { call: { name: string; args: Record<string, unknown> }; usage?: GeminiUsage } | { status: number; body: unknown };

/** The tokens a reply's usageMetadata reports (1000 in the prompt, 40 in the candidates, when not given). */
export interface GeminiUsage {
  promptTokenCount: number;
  candidatesTokenCount: number;
}

export interface GeminiPart {
  text?: string;
  functionCall?: { name: string; args?: Record<string, unknown>; id?: string };
  functionResponse?: { name: string; response?: Record<string, unknown>; id?: string };
  thought?: boolean;
}

export interface GeminiRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: { contents?: { role: string; parts: GeminiPart[] }[]; tools?: { functionDeclarations?: { name: string }[] }[]; systemInstruction?: unknown } & Record<
    string,
    unknown
  >;
}

export interface FakeGemini {
  /** The base URL, for GOOGLE_GEMINI_BASE_URL. */
  baseUrl: string;
  requests: GeminiRequest[];
  /** The generating requests (streamGenerateContent, generateContent), in order. */
  generations(): GeminiRequest[];
  reply(...replies: GeminiReply[]): void;
  pending(): number;
  /** What reached it as a proxy: traffic for anywhere but 127.0.0.1, refused (server.ts). */
  escaped: string[];
  close(): Promise<void>;
}

/**
 * The API's 429 for a daily quota spent, as generativelanguage.googleapis.com answers it: the CLI
 * (googleQuotaErrors.js) reads the QuotaFailure's `…PerDay…` quota id as a terminal quota error.
 */
export function dailyQuotaBody(model: string): unknown {
  return {
    error: {
      code: 429,
      message: 'You have exhausted your daily quota on this model.',
      status: 'RESOURCE_EXHAUSTED',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
          violations: [
            {
              quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
              quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier',
              quotaDimensions: { location: 'global', model },
              quotaValue: '100',
            },
          ],
        },
        {
          '@type': 'type.googleapis.com/google.rpc.Help',
          links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }],
        },
      ],
    },
  };
}

/** A fake Gemini API listening on 127.0.0.1 (a free port), answering the generating requests with `replies` in order. */
export async function fakeGemini(replies: GeminiReply[] = []): Promise<FakeGemini> {
  const queue = [...replies];
  const requests: GeminiRequest[] = [];
  const server = await modelServer(({ req, path, text }, res) => {
    const body = jsonOf<GeminiRequest['body']>(text, text ? { raw: text } : {});
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    const m = /^\/v1beta\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(path);
    if (req.method === 'POST' && m?.[2] === 'countTokens') return json(res, 200, { totalTokens: 1000 });
    if (req.method === 'POST' && m) return answer(res, queue.shift(), m[1]!, m[2] === 'streamGenerateContent');
    json(res, 404, { error: { code: 404, message: `no ${req.method} ${path} here`, status: 'NOT_FOUND' } });
  });
  return {
    baseUrl: server.origin,
    requests,
    generations: () => requests.filter((r) => /:(streamGenerateContent|generateContent)$/.test(r.url.split('?')[0]!)),
    reply: (...more) => void queue.push(...more),
    pending: () => queue.length,
    escaped: server.escaped,
    close: server.close,
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' }).end(JSON.stringify(body));
}

function answer(res: ServerResponse, reply: GeminiReply | undefined, model: string, stream: boolean): void {
  if (reply === undefined) {
    // Nothing scripted: a 400, which the CLI does not retry, so a test that scripted too little fails rather than hangs.
    return json(res, 400, { error: { code: 400, message: 'the fake model has no reply scripted for this request', status: 'INVALID_ARGUMENT' } });
  }
  if ('status' in reply) return json(res, reply.status, reply.body);
  const part: GeminiPart = 'text' in reply ? { text: reply.text } : { functionCall: { name: reply.call.name, args: reply.call.args } };
  const u = reply.usage ?? { promptTokenCount: 1000, candidatesTokenCount: 40 };
  const usageMetadata = { ...u, totalTokenCount: u.promptTokenCount + u.candidatesTokenCount };
  const response = {
    candidates: [{ content: { parts: [part], role: 'model' }, finishReason: 'STOP', index: 0 }],
    usageMetadata,
    modelVersion: model,
    responseId: `fake-${Date.now()}`,
  };
  if (!stream) return json(res, 200, response);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(`data: ${JSON.stringify(response)}\r\n\r\n`);
}
