import { gitHubClient } from '../gateway/client.js';
import { gateway, type Gateway } from '../gateway/gateway.js';
import type { Repo } from '../gateway/request.js';

/**
 * The gateway with a person's own token: the same requests the App and the worker make, each
 * failure a GitHubError whose hint speaks of that token's permissions.
 */
export function personGateway(token: string, apiUrl: string, repo: Repo, options: { unthrottled?: boolean } = {}): Gateway {
  // stdout is the MCP channel: waits and retries are said on stderr.
  const warn = (m: string) => process.stderr.write(`harness mcp: ${m}\n`);
  const client = gitHubClient({
    token,
    baseUrl: apiUrl,
    userAgent: 'harness-mcp',
    warn,
    ...(options.unthrottled === undefined ? {} : { unthrottled: options.unthrottled }),
  });
  return gateway(client.request, repo, 'person');
}
