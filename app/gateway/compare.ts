import type { GatewayRequest, Repo } from './request.js';

/**
 * The merge base of two commits: GET /repos/{owner}/{repo}/compare/{base}...{head}.
 * `per_page=1` keeps the commit list to one entry: only `merge_base_commit` is wanted
 * (GitHub still includes the changed files, up to 300, on the first page).
 */
export async function mergeBase(request: GatewayRequest, repo: Repo, base: string, head: string): Promise<string> {
  const { data } = await request('GET /repos/{owner}/{repo}/compare/{basehead}', { ...repo, basehead: `${base}...${head}`, per_page: 1 });
  return data.merge_base_commit.sha;
}
