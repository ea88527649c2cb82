import type { KnowledgeDraft } from '../engine/forge/knowledge-draft.js';
import { commitTree, createCommit } from './commits.js';
import { hasStatus } from './github-error.js';
import { addLabels } from './labels.js';
import { createPullRequest, listPullRequests, type PullRequestSummary } from './pulls.js';
import { branchSha, createBranch } from './refs.js';
import type { GatewayRequest, Repo } from './request.js';
import { createTree } from './trees.js';

export interface KnowledgePr {
  number: number;
  url: string;
  /** `opened` now; `open`, `merged` or `closed` when a PR for the same branch was there already. */
  state: 'opened' | 'open' | 'merged' | 'closed';
}

function existing(pull: PullRequestSummary): KnowledgePr {
  const state = pull.state === 'open' ? 'open' : pull.mergedAt ? 'merged' : 'closed';
  return { number: pull.number, url: pull.url, state };
}

/** The newest PR whose head is the branch, in any state. */
async function newestPull(request: GatewayRequest, repo: Repo, branch: string): Promise<PullRequestSummary | undefined> {
  return [...(await listPullRequests(request, repo, { head: branch, state: 'all' }))].sort((a, b) => b.number - a.number)[0];
}

/**
 * A knowledge PR (docs/design.md, Knowledge): one branch `harness/knowledge/<kind>/<slug>` from
 * `base`, one commit adding the draft's files, one PR labelled `harness:knowledge` and the kind.
 * The branch name is the identity, which makes asking twice safe:
 *
 * 1. GET /pulls?head=<owner>:<branch>&state=all: a PR for the branch, open or not, is the
 *    answer (an open one is reused; a merged or closed one is not reopened behind a reviewer).
 * 2. The commit, through the git data API so that the branch only ever appears with its
 *    commit: GET /git/ref/heads/<base>, GET /git/commits/<sha> (its tree), POST /git/trees
 *    (base_tree plus the files, inline), POST /git/commits, POST /git/refs. A 422 "Reference
 *    already exists" means an earlier attempt made the branch: it is used as it is.
 * 3. POST /pulls (201), then POST /issues/<n>/labels. A 422 from POST /pulls means a PR for the
 *    branch appeared meanwhile: it is looked up again and reused.
 */
export async function openKnowledgePr(request: GatewayRequest, repo: Repo, draft: KnowledgeDraft, base: string): Promise<KnowledgePr> {
  const found = await newestPull(request, repo, draft.branch);
  if (found) return existing(found);

  const headSha = await branchSha(request, repo, base);
  if (headSha === undefined) throw new Error(`the branch ${base} has no commit to start ${draft.branch} from`);
  const tree = await createTree(request, repo, await commitTree(request, repo, headSha), draft.files, draft.deletions);
  const commit = await createCommit(request, repo, { message: draft.commitMessage, tree, parents: [headSha] });
  await createBranch(request, repo, draft.branch, commit);

  let pull: PullRequestSummary;
  try {
    pull = await createPullRequest(request, repo, { title: draft.title, head: draft.branch, base, body: draft.body });
  } catch (e) {
    const again = hasStatus(e, 422) ? await newestPull(request, repo, draft.branch) : undefined;
    if (!again) throw e;
    return existing(again);
  }
  await addLabels(request, repo, pull.number, draft.labels);
  return { number: pull.number, url: pull.url, state: 'opened' };
}
