import type { HttpResponse } from '../engine/core/verify/ports.js';

export interface HttpInit {
  method: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/** Why a request got no answer, in words: fetch's own message is just "fetch failed". */
function reason(e: unknown, timeoutMs: number): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  return err.cause?.message ?? err.cause?.code ?? err.message;
}

/**
 * One request through the global fetch. Redirects are not followed: an api check judges what
 * the server itself answered, so a check can expect a 302.
 */
export async function verifyHttp(url: string, init: HttpInit): Promise<HttpResponse> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method,
      headers: init.headers,
      body: init.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(init.timeoutMs),
    });
  } catch (e) {
    throw new Error(`${init.method} ${url} failed: ${reason(e, init.timeoutMs)}`, { cause: e });
  }
  let body: string;
  try {
    body = await res.text();
  } catch (e) {
    throw new Error(`${init.method} ${url} answered ${res.status} but the body could not be read: ${reason(e, init.timeoutMs)}`, { cause: e });
  }
  const headers: Record<string, string> = {};
  res.headers.forEach((value, key) => {
    headers[key] = value;
  });
  return { status: res.status, headers, body };
}
