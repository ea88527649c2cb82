import type { GatewayRequest, Repo } from './request.js';

export interface RepositoryInfo {
  defaultBranch: string;
}

/** GET /repos/{owner}/{repo}: what harness needs of a repository it has no event about (a knowledge repository). */
export async function getRepository(request: GatewayRequest, repo: Repo): Promise<RepositoryInfo> {
  const { data } = await request('GET /repos/{owner}/{repo}', { ...repo });
  return { defaultBranch: data.default_branch };
}
