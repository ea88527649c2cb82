import type { GatewayRequest, Repo } from './request.js';

/** GET /repos/{owner}/{repo}: the branch a knowledge repository's pull requests go to. */
export async function defaultBranch(request: GatewayRequest, repo: Repo): Promise<string> {
  return (await request('GET /repos/{owner}/{repo}', { ...repo })).data.default_branch;
}
