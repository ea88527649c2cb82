import type { Check } from '../spec/model.js';
import { fail, pass, type CheckContext, type Finding } from './check-result.js';
import { quote } from './evidence.js';
import { jsonSubset } from './json-subset.js';
import type { VerifyPorts } from './ports.js';
import { targetUrl } from './target-url.js';

type ApiResponse = Extract<Check, { type: 'api_response' }>;

/**
 * One request, one answer. Without expect.status any 2xx passes: a check that accepted a
 * 500 would be green over a broken server.
 */
export async function checkApiResponse(check: ApiResponse, ports: VerifyPorts, ctx: CheckContext, timeoutMs: number): Promise<Finding> {
  const space = check.request.indexOf(' ');
  const method = check.request.slice(0, space);
  const target = targetUrl(check.request.slice(space + 1), ctx);
  if ('error' in target) return fail(target.error);

  const headers: Record<string, string> = { ...check.headers };
  let body: string | undefined;
  if (check.body !== undefined) {
    body = typeof check.body === 'string' ? check.body : JSON.stringify(check.body);
    const typed = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
    if (typeof check.body !== 'string' && !typed) headers['content-type'] = 'application/json';
  }

  const res = await ports.http(target.url, { method, headers, body, timeoutMs });
  const seen = `${method} ${target.url} → ${res.status}`;
  const shown = res.body.trim() === '' ? 'empty body' : `body ${quote(res.body.trim(), 160)}`;

  const { status, body_contains: contains, json } = check.expect;
  if (status !== undefined ? res.status !== status : res.status < 200 || res.status > 299) {
    return fail(`${seen}, expected ${status ?? 'a 2xx status'}; ${shown}`);
  }
  if (contains !== undefined && !res.body.includes(contains)) return fail(`${seen}; ${shown} does not contain ${quote(contains)}`);
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(res.body);
    } catch {
      return fail(`${seen}; expected JSON but the ${shown} does not parse`);
    }
    const diff = jsonSubset(json, parsed);
    if (diff !== undefined) return fail(`${seen}; JSON differs at ${diff}; ${shown}`);
  }
  return pass(`${seen}; ${shown}`);
}
