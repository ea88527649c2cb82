import { Octokit } from '@octokit/core';
import { gateway, type Gateway } from '../gateway/gateway.js';
import type { Repo } from '../gateway/request.js';

/**
 * The gateway with a person's own token: the same requests the App and the worker make, each
 * failure a GitHubError whose hint speaks of that token's permissions.
 */
export function personGateway(token: string, apiUrl: string, repo: Repo): Gateway {
  return gateway(new Octokit({ auth: token, baseUrl: apiUrl, userAgent: 'harness-mcp' }).request, repo, 'person');
}
