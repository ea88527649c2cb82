import type { Octokit } from '@octokit/core';
import { gitHubError, type TokenKind } from './github-error.js';

/**
 * Octokit's `request`: route and parameters in, the response out. Probot's `context.octokit`
 * and `@actions/github`'s client are both @octokit/core underneath, so this one function
 * type takes either, with the endpoints typed as GitHub documents them.
 */
export type GitHubRequest = Octokit['request'];

export interface Repo {
  owner: string;
  repo: string;
}

declare const translated: unique symbol;

/**
 * A GitHubRequest whose failures are GitHubErrors. The resource modules take only this, so
 * that every status they test is one the error module translated: a plain `request` does
 * not type-check where they want one.
 */
export type GatewayRequest = GitHubRequest & { readonly [translated]: true };

function routeOf(route: unknown): string {
  if (typeof route === 'string') return route;
  const options = route as { method?: string; url?: string };
  return `${options.method ?? 'GET'} ${options.url ?? ''}`;
}

/** `request`, with every HTTP failure turned into a GitHubError naming the route (gitHubError). */
export function gatewayRequest(request: GitHubRequest, token: TokenKind, onAnswer?: (route: string, data: unknown) => void): GatewayRequest {
  const call = request as unknown as (route: unknown, params?: unknown) => Promise<unknown>;
  const send = async (route: unknown, params?: unknown): Promise<unknown> => {
    let answer: unknown;
    try {
      answer = await call(route, params);
    } catch (e) {
      throw gitHubError(e, routeOf(route), token);
    }
    onAnswer?.(routeOf(route), (answer as { data?: unknown } | undefined)?.data);
    return answer;
  };
  return Object.assign(send, {
    endpoint: request.endpoint,
    defaults: (options: Parameters<GitHubRequest['defaults']>[0]) => gatewayRequest(request.defaults(options), token, onAnswer),
  }) as unknown as GatewayRequest;
}
