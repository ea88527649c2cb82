import type { GatewayRequest, Repo } from './request.js';

/** GET /repos/{owner}/{repo}/git/commits/{commit_sha}: the sha of the commit's tree. */
export async function commitTree(request: GatewayRequest, repo: Repo, sha: string): Promise<string> {
  return (await request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { ...repo, commit_sha: sha })).data.tree.sha;
}

/** POST /repos/{owner}/{repo}/git/commits (201): a commit of `tree` on `parents`, not yet on any branch. */
export async function createCommit(request: GatewayRequest, repo: Repo, commit: { message: string; tree: string; parents: string[] }): Promise<string> {
  return (await request('POST /repos/{owner}/{repo}/git/commits', { ...repo, ...commit })).data.sha;
}
