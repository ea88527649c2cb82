import type { KnowledgeDraft } from '../../engine/forge/knowledge-draft.js';
import { PAGE_SIZE } from '../limits.js';
import { branchSha, createBranch } from '../resources/refs.js';
import type { Invocation } from './invocation.js';

export interface KnowledgePr {
  number: number;
  url: string;
  /** `opened` now; `open`, `merged` or `closed` when a PR for the same branch was there already. */
  state: 'opened' | 'open' | 'merged' | 'closed';
}

type PullSummary = { number: number; html_url: string; state: string; merged_at: string | null };

function existing(pull: PullSummary): KnowledgePr {
  const state = pull.state === 'open' ? 'open' : pull.merged_at ? 'merged' : 'closed';
  return { number: pull.number, url: pull.html_url, state };
}

/**
 * A knowledge PR (docs/design.md, Knowledge): one branch `harness/knowledge/<kind>/<slug>` from the
 * default branch, one commit adding the draft's files, one PR labelled `harness:knowledge` and
 * the kind. The branch name is the identity, which makes asking twice safe:
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
export async function openKnowledgePr(inv: Invocation, draft: KnowledgeDraft): Promise<KnowledgePr> {
  const found = await pullsFor(inv, draft.branch);
  if (found) return existing(found);

  const base = inv.defaultBranch;
  const headSha = await branchSha(inv.octokit, inv.repo, base);
  if (headSha === undefined) throw new Error(`the default branch ${base} has no commit to start ${draft.branch} from`);
  const { data: commit } = await inv.octokit.rest.git.getCommit({ ...inv.repo, commit_sha: headSha });
  const { data: tree } = await inv.octokit.rest.git.createTree({
    ...inv.repo,
    base_tree: commit.tree.sha,
    tree: draft.files.map((f) => ({ path: f.path, mode: '100644' as const, type: 'blob' as const, content: f.content })),
  });
  const { data: created } = await inv.octokit.rest.git.createCommit({ ...inv.repo, message: draft.commitMessage, tree: tree.sha, parents: [headSha] });
  await createBranch(inv.octokit, inv.repo, draft.branch, created.sha);

  let pull: PullSummary;
  try {
    pull = (await inv.octokit.rest.pulls.create({ ...inv.repo, title: draft.title, head: draft.branch, base, body: draft.body })).data;
  } catch (e) {
    const again = (e as { status?: number }).status === 422 ? await pullsFor(inv, draft.branch) : undefined;
    if (!again) throw e;
    return existing(again);
  }
  await inv.octokit.rest.issues.addLabels({ ...inv.repo, issue_number: pull.number, labels: draft.labels });
  return { number: pull.number, url: pull.html_url, state: 'opened' };
}

/** The newest PR whose head is the branch, in any state. */
async function pullsFor(inv: Invocation, branch: string): Promise<PullSummary | undefined> {
  const { data } = await inv.octokit.rest.pulls.list({ ...inv.repo, head: `${inv.repo.owner}:${branch}`, state: 'all', per_page: PAGE_SIZE });
  return [...data].sort((a, b) => b.number - a.number)[0];
}
