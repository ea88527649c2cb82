import { hasStatus } from './github-error.js';
import type { GatewayRequest, Repo } from './request.js';

/** Branches go by their short name here; the refs API wants `heads/<branch>`. */
function headsRef(branch: string): string {
  return `heads/${branch}`;
}

/** The commit a branch points at, or undefined when there is no such branch (GET /git/ref/heads/{branch}: 404). */
export async function branchSha(request: GatewayRequest, repo: Repo, branch: string): Promise<string | undefined> {
  try {
    return (await request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...repo, ref: headsRef(branch) })).data.object.sha;
  } catch (e) {
    if (hasStatus(e, 404)) return undefined;
    throw e;
  }
}

/**
 * POST /git/refs: `exists` when GitHub answers 422 "Reference already exists". Creating a ref
 * is atomic, so this is how two deliveries racing for the same branch learn which one won.
 */
export async function createBranch(request: GatewayRequest, repo: Repo, branch: string, sha: string): Promise<'created' | 'exists'> {
  try {
    await request('POST /repos/{owner}/{repo}/git/refs', { ...repo, ref: `refs/${headsRef(branch)}`, sha });
    return 'created';
  } catch (e) {
    if (hasStatus(e, 422) && /already exists/i.test(e.reason)) return 'exists';
    throw e;
  }
}

/**
 * PATCH /git/refs/heads/{branch} with `force: false`: the branch moves to `sha` only when `sha`
 * descends from where it is. `moved` when GitHub refuses ("Update is not a fast forward"):
 * someone else moved it meanwhile, and whatever `sha` was built on is out of date.
 */
export async function updateBranch(request: GatewayRequest, repo: Repo, branch: string, sha: string): Promise<'updated' | 'moved'> {
  try {
    await request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', { ...repo, ref: headsRef(branch), sha, force: false });
    return 'updated';
  } catch (e) {
    if (hasStatus(e, 409) || (hasStatus(e, 422) && /fast.?forward/i.test(e.reason))) return 'moved';
    throw e;
  }
}

/**
 * DELETE /git/refs/heads/{branch} (204). A branch that is not there is `missing`: GitHub
 * answers 422 "Reference does not exist" (404 on some paths), and deleting twice is no error.
 */
export async function deleteBranch(request: GatewayRequest, repo: Repo, branch: string): Promise<'deleted' | 'missing'> {
  try {
    await request('DELETE /repos/{owner}/{repo}/git/refs/{ref}', { ...repo, ref: headsRef(branch) });
    return 'deleted';
  } catch (e) {
    if (hasStatus(e, 404) || (hasStatus(e, 422) && /does not exist/i.test(e.reason))) return 'missing';
    throw e;
  }
}

/**
 * GET /git/matching-refs/heads/{prefix} (200, an array, empty when none match): the branches
 * whose name starts with `prefix`, name → commit, in one request. GitHub matches on the
 * prefix as text, so `harness/SPC-1/phase-` lists every phase branch of that spec.
 */
export async function branchesWithPrefix(request: GatewayRequest, repo: Repo, prefix: string): Promise<Map<string, string>> {
  const { data } = await request('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', { ...repo, ref: headsRef(prefix) });
  return new Map(data.map((r) => [r.ref.slice('refs/heads/'.length), r.object.sha]));
}
