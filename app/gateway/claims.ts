import { hasStatus } from './github-error.js';
import type { GatewayRequest, Repo } from './request.js';

/**
 * Claims outside the branch namespace: refs under `refs/harness/`, which no workflow's `on:
 * push` sees and no branch list shows. Creating a ref is atomic on GitHub (the second create
 * gets 422 "Reference already exists"), so a claim is how two deliveries of one event, or two
 * presses of one button, agree that exactly one of them acts.
 */

/** POST /git/refs with a full ref name (`refs/harness/…`); `exists` on 422 "Reference already exists". */
export async function createClaimRef(request: GatewayRequest, repo: Repo, ref: string, sha: string): Promise<'created' | 'exists'> {
  try {
    await request('POST /repos/{owner}/{repo}/git/refs', { ...repo, ref, sha });
    return 'created';
  } catch (e) {
    if (hasStatus(e, 422) && /already exists/i.test(e.reason)) return 'exists';
    throw e;
  }
}

/** DELETE /git/refs/{ref} (204), `ref` without its `refs/` prefix; a ref already gone is `missing`. */
export async function deleteClaimRef(request: GatewayRequest, repo: Repo, ref: string): Promise<'deleted' | 'missing'> {
  try {
    await request('DELETE /repos/{owner}/{repo}/git/refs/{ref}', { ...repo, ref: ref.replace(/^refs\//, '') });
    return 'deleted';
  } catch (e) {
    if (hasStatus(e, 404) || (hasStatus(e, 422) && /does not exist/i.test(e.reason))) return 'missing';
    throw e;
  }
}

/**
 * When a branch was last created (GET /repos/{owner}/{repo}/activity, `activity_type=branch_creation`,
 * newest first, one entry): a claim's age, which tells a claim whose delivery died from one
 * whose delivery is still at work. Undefined when GitHub lists no creation (yet): the caller
 * must then take the claim as fresh.
 */
export async function branchCreatedAt(request: GatewayRequest, repo: Repo, branch: string): Promise<Date | undefined> {
  const { data } = await request('GET /repos/{owner}/{repo}/activity', {
    ...repo,
    ref: `refs/heads/${branch}`,
    activity_type: 'branch_creation',
    direction: 'desc',
    per_page: 1,
  });
  const at = (data as { timestamp?: string }[])[0]?.timestamp;
  return at === undefined ? undefined : new Date(at);
}

/** A claim as found: when it was taken and what it says. */
export interface ClaimRecord {
  /** The tag object the claim's ref points at: this claim and no later one, for takeoverRef. */
  id: string;
  at: Date;
  note: string;
}

export type ClaimOutcome = { won: true } | { won: false; record: ClaimRecord | undefined };

/**
 * A claim that says when it was taken: an annotated tag object (POST /git/tags, 201) on
 * `sha`, its tagger date now and its message `note`, then the ref `ref` on the tag (POST
 * /git/refs: 201, or 422 when another delivery holds it). A ref alone carries no time, and a
 * claim whose taker died must be told from one whose taker is at work.
 */
export async function takeClaim(request: GatewayRequest, repo: Repo, ref: string, sha: string, note: string, now: Date): Promise<ClaimOutcome> {
  const tag = ref.split('/').pop()!;
  const { data } = await request('POST /repos/{owner}/{repo}/git/tags', {
    ...repo,
    tag,
    message: note,
    object: sha,
    type: 'commit',
    tagger: { name: 'harness', email: 'harness@users.noreply.github.com', date: now.toISOString() },
  });
  if ((await createClaimRef(request, repo, ref, data.sha)) === 'created') return { won: true };
  return { won: false, record: await readClaim(request, repo, ref) };
}

/**
 * The claim at `ref`: GET /git/ref/{ref} (404: none), then the tag it points at (GET
 * /git/tags/{tag_sha}). A ref that points straight at a commit is a claim of unknown age: undefined.
 */
export async function readClaim(request: GatewayRequest, repo: Repo, ref: string): Promise<ClaimRecord | undefined> {
  let object: { sha: string; type: string };
  try {
    object = (await request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...repo, ref: ref.replace(/^refs\//, '') })).data.object;
  } catch (e) {
    if (hasStatus(e, 404)) return undefined;
    throw e;
  }
  if (object.type !== 'tag') return undefined;
  const { data } = await request('GET /repos/{owner}/{repo}/git/tags/{tag_sha}', { ...repo, tag_sha: object.sha });
  return { id: object.sha, at: new Date(data.tagger.date), note: data.message };
}

/**
 * Take over an abandoned claim: create its takeover ref (engine/forge/claims.ts, takeoverRef).
 * True for the one delivery that creates it, which may then delete the claim and take it
 * again; false for every other.
 */
export async function takeOver(request: GatewayRequest, repo: Repo, takeover: string, sha: string): Promise<boolean> {
  return (await createClaimRef(request, repo, takeover, sha)) === 'created';
}

/**
 * GET /git/matching-refs/{ref} (200, an array, empty when none match) for refs outside the
 * branches: full ref name → what it points at, in one request. `prefix` is without `refs/`.
 */
export async function claimRefsWithPrefix(request: GatewayRequest, repo: Repo, prefix: string): Promise<Map<string, string>> {
  const { data } = await request('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', { ...repo, ref: prefix });
  return new Map(data.map((r) => [r.ref, r.object.sha]));
}
