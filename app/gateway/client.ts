import { Octokit } from '@octokit/core';
import type { OctokitOptions, OctokitPlugin } from '@octokit/core/types';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { limitedRequests, type HookedOctokit } from './conditional.js';
import { describeWait, LimitPacer } from './limit-model.js';
import type { Clock } from './pacer.js';

/**
 * The one way harness builds a GitHub client outside the App: the worker on a runner and
 * `harness mcp` with a person's token. The App's client is Probot's, which carries the same two
 * plugins (retry and throttling) with the same behaviour; this gives the others what they lacked:
 * a 5xx or a dropped connection is asked again instead of ending a verified plan as a failure, and
 * GitHub's rate limits are waited out instead of failing the job.
 */

/** Transient failures (5xx, a connection reset) are asked again this many times: 1 s, 4 s, 9 s apart. */
export const RETRIES = 3;
/**
 * The longest wait for a rate limit (retry-after or x-ratelimit-reset) a job sits out, in seconds:
 * a runner costs minutes while it waits, and a limit that resets later than this is better met by
 * failing with the reason (the App retries the plan later).
 */
export const LONGEST_LIMIT_WAIT_S = 15 * 60;
/** Rate-limited requests asked again at most this many times each. */
const LIMIT_RETRIES = 3;

/** The plugins every client of harness's gets. */
export const CLIENT_PLUGINS: OctokitPlugin[] = [retry, throttling];

export interface ClientOptions {
  /** Left out where the client is built by a factory that takes the token itself (@actions/github's getOctokit). */
  token?: string;
  /** The REST API's root ($GITHUB_API_URL on a runner; GHES: https://<host>/api/v3). */
  baseUrl?: string;
  userAgent: string;
  /** Where waits and retries are said: the job log, the MCP server's stderr. */
  warn: (message: string) => void;
  /** Milliseconds that retries' waits are counted in (1,000: 1 s, 4 s, 9 s); tests make it small. */
  retryBase?: number;
  /**
   * No throttling: writes are not spaced a second apart and rate limits are not waited out
   * (HARNESS_GITHUB_THROTTLE=off: a GHES with rate limiting turned off, and tests against a
   * local server). Retries stay.
   */
  unthrottled?: boolean;
}

interface Limited {
  method: string;
  url: string;
}

/** The Octokit options (without the plugins) that CLIENT_PLUGINS read: auth, retries, throttling and its logging. */
export function clientOptions(o: ClientOptions): OctokitOptions {
  const onLimit = (kind: string) => (after: number, options: Limited, _octokit: unknown, retryCount: number) => {
    const wait = after <= LONGEST_LIMIT_WAIT_S && retryCount < LIMIT_RETRIES;
    o.warn(
      `GitHub's ${kind} limit was hit on ${options.method} ${options.url}: ${wait ? `waiting ${after} s, then asking again` : `not waiting ${after} s; the request fails`}`,
    );
    return wait;
  };
  return {
    ...(o.token ? { auth: o.token } : {}),
    userAgent: o.userAgent,
    ...(o.baseUrl ? { baseUrl: o.baseUrl.replace(/\/+$/, '') } : {}),
    retry: { retries: RETRIES, ...(o.retryBase === undefined ? {} : { retryAfterBaseValue: o.retryBase }) },
    throttle: { enabled: !o.unthrottled, onRateLimit: onLimit('rate'), onSecondaryRateLimit: onLimit('secondary rate') },
  };
}

/**
 * Keep `octokit`'s requests within GitHub's limits (limit-model.ts): its share of each secondary
 * limit, `retry-after` and `x-ratelimit-reset` waited out before the next request rather than
 * after a refusal; each wait said through `warn`. Nothing when the client is unthrottled.
 */
export function paceClient(octokit: unknown, o: Pick<ClientOptions, 'warn' | 'unthrottled'> & { clock?: Clock }): LimitPacer | undefined {
  if (o.unthrottled) return undefined;
  const pacer = new LimitPacer({ onWait: (wait) => o.warn(describeWait(wait)), ...(o.clock ? { clock: o.clock } : {}) });
  limitedRequests(octokit as HookedOctokit, pacer);
  return pacer;
}

/** A client over @octokit/core with the plugins and options above, paced by the limits model (harness mcp). */
export function gitHubClient(o: ClientOptions & { token: string }): Octokit {
  const Client = Octokit.plugin(...CLIENT_PLUGINS);
  const client = new Client(clientOptions(o));
  paceClient(client, o);
  return client;
}
