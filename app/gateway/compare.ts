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

/** A file two commits differ in, with its patch (GitHub leaves the patch out of a binary or very large file). */
export interface ComparedFile {
  path: string;
  patch?: string;
}

/**
 * The files that differ from `base` to `head`, with their patches: GET
 * /repos/{owner}/{repo}/compare/{base}...{head}. The first page's files are all GitHub lists
 * (up to 300); `per_page=1` keeps the commit list short.
 */
export async function comparedFiles(request: GatewayRequest, repo: Repo, base: string, head: string): Promise<ComparedFile[]> {
  const { data } = await request('GET /repos/{owner}/{repo}/compare/{basehead}', { ...repo, basehead: `${base}...${head}`, per_page: 1 });
  return (data.files ?? []).map((f) => ({ path: f.filename, ...(f.patch === undefined ? {} : { patch: f.patch }) }));
}
