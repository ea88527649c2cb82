import { Octokit } from '@octokit/core';
import type { OctokitOptions, OctokitPlugin } from '@octokit/core/types';
import { retry } from '@octokit/plugin-retry';
import { limitedRequests, type HookedOctokit } from './conditional.js';
import { describeWait, LimitPacer } from './limit-model.js';
import type { Clock } from './pacer.js';

/**
 * The one way harness builds a GitHub client outside the App: the worker on a runner and
 * `harness mcp` with a person's token. The App's client is Probot's (app/github/app-octokit.ts),
 * set the same way: a 5xx or a dropped connection is asked again by the retry plugin instead of
 * ending a verified plan as a failure, and GitHub's rate limits are kept, and waited out when
 * GitHub refuses anyway, by the one limiter every client has (limit-model.ts, through
 * `paceClient` here and conditional.ts in the App). Octokit's throttling plugin is not used: it
 * was a second limiter with its own idea of the limits (a write a second apart, notifications
 * three seconds apart), under the model's.
 */

/** Transient failures (5xx, a connection reset) are asked again this many times: 1 s, 4 s, 9 s apart. */
export const RETRIES = 3;
/**
 * Statuses the retry plugin never asks again: its own list, and 429, which is a rate limit
 * (limit-model.ts waits it out for as long as GitHub says, where the retry plugin would ask
 * again after a second).
 */
export const DO_NOT_RETRY = [400, 401, 403, 404, 410, 422, 429, 451];

/** The plugins every client of harness's gets. */
export const CLIENT_PLUGINS: OctokitPlugin[] = [retry];

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
   * Not paced: GitHub's limits are neither kept nor waited out (HARNESS_GITHUB_THROTTLE=off: a
   * GHES with rate limiting turned off, and tests against a local server). Retries stay.
   */
  unthrottled?: boolean;
}

/** The Octokit options (without the plugins) that CLIENT_PLUGINS read: auth and retries. */
export function clientOptions(o: ClientOptions): OctokitOptions {
  return {
    ...(o.token ? { auth: o.token } : {}),
    userAgent: o.userAgent,
    ...(o.baseUrl ? { baseUrl: o.baseUrl.replace(/\/+$/, '') } : {}),
    retry: { retries: RETRIES, doNotRetry: DO_NOT_RETRY, ...(o.retryBase === undefined ? {} : { retryAfterBaseValue: o.retryBase }) },
  };
}

/**
 * Keep `octokit`'s requests within GitHub's limits (limit-model.ts): its share of each secondary
 * limit, `retry-after` and `x-ratelimit-reset` waited out before the next request rather than
 * after a refusal, and a request refused for a limit anyway asked again after GitHub's wait;
 * each wait said through `warn`. Nothing when the client is unthrottled.
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
