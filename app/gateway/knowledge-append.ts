export type { KnowledgeAppend, StoreAtBranch, StoreFile } from '../engine/forge/signals-pr.js';
import { commitTree, createCommit } from './commits.js';
import { fileText } from './contents.js';
import { hasStatus, GitHubError } from './github-error.js';
import type { KnowledgeAppend } from '../engine/forge/signals-pr.js';
import type { KnowledgePr } from './knowledge-pr.js';
import { addLabels } from './labels.js';
import { createPullRequest, listPullRequests, type PullRequestSummary } from './pulls.js';
import { branchSha, createBranch, updateBranch } from './refs.js';
import type { GatewayRequest, Repo } from './request.js';
import { createTree } from './trees.js';

export interface KnowledgeAppended {
  /** The commit added; undefined when there was nothing new. */
  commit?: string;
  /** The open PR that collects the branch; undefined when nothing was added and none is open. */
  pr?: KnowledgePr;
  /** Repository paths committed. */
  files: string[];
  /** Tries it took: more than one when another writer moved the branch meanwhile. */
  tries: number;
}

/** Writers racing for one branch take turns; this many lost races in a row is a fault, not a race. */
export const MAX_APPEND_TRIES = 6;

function newest(pulls: readonly PullRequestSummary[]): PullRequestSummary | undefined {
  return [...pulls].sort((a, b) => b.number - a.number)[0];
}

/**
 * Commit files onto a knowledge branch and make sure its PR is open, without ever overwriting
 * another writer (two workers finishing at once both land):
 *
 * 1. GET /pulls?head=<owner>:<branch>&state=all and GET /git/ref/heads/<branch>.
 * 2. Where to build: on the branch's head while a PR collects it (or none was ever opened); on
 *    the base when there is no branch; and when the branch is what its last PR already took
 *    (merged) or refused (closed), on the base as well, with the old head as a second parent,
 *    so that the new PR starts clean and the ref still only moves forward.
 * 3. The store's files are read there (GET /contents/<path>?ref=) and `build` decides.
 * 4. GET /git/commits/<start> (its tree), POST /git/trees, POST /git/commits.
 * 5. The ref moves only forward: PATCH /git/refs/heads/<branch> with force false, or POST
 *    /git/refs for a new branch. GitHub refusing (422, the branch moved or appeared meanwhile)
 *    starts again from 1, and `build` sees the other writer's files.
 * 6. No open PR: POST /pulls and POST /issues/<n>/labels (a 422 from POST /pulls: one was
 *    opened meanwhile, and it is used). An open PR found without its labels (a writer failed
 *    between the two) gets them.
 */
export async function appendKnowledge(request: GatewayRequest, repo: Repo, append: KnowledgeAppend): Promise<KnowledgeAppended> {
  const where = (path: string) => (append.root === '' ? path : `${append.root}/${path}`);
  for (let tries = 1; tries <= MAX_APPEND_TRIES; tries++) {
    const pulls = await listPullRequests(request, repo, { head: append.branch, state: 'all' });
    const open = newest(pulls.filter((p) => p.state === 'open'));
    const last = newest(pulls);
    const head = await branchSha(request, repo, append.branch);
    const stale = head !== undefined && open === undefined && last !== undefined && last.headSha === head;
    let start = head;
    let parents = head === undefined ? [] : [head];
    if (head === undefined || stale) {
      const base = await branchSha(request, repo, append.base);
      if (base === undefined) throw new Error(`the branch ${append.base} has no commit to start ${append.branch} from`);
      start = base;
      parents = [...parents, base];
    }
    const files = await append.build({
      read: (path) => fileText(request, repo, where(path), start!),
      ...(open?.createdAt === undefined ? {} : { openedAt: open.createdAt }),
    });
    if (files.length === 0) {
      // An earlier writer committed but never opened the PR (it failed in between): open it now.
      const pr = open ? await labelled(request, repo, open, append) : head !== undefined && !stale ? await ensurePr(request, repo, append) : undefined;
      return { ...(pr ? { pr } : {}), files: [], tries };
    }
    const tree = await createTree(
      request,
      repo,
      await commitTree(request, repo, start!),
      files.map((f) => ({ path: where(f.path), content: f.text })),
    );
    const commit = await createCommit(request, repo, { message: append.commitMessage, tree, parents });
    const moved =
      head === undefined
        ? (await createBranch(request, repo, append.branch, commit)) === 'exists'
        : (await updateBranch(request, repo, append.branch, commit)) === 'moved';
    if (moved) continue;
    const pr = open ? await labelled(request, repo, open, append) : await ensurePr(request, repo, append);
    return { commit, pr, files: files.map((f) => where(f.path)), tries };
  }
  throw new GitHubError(
    `PATCH /repos/{owner}/{repo}/git/refs/heads/${append.branch}`,
    409,
    'conflict',
    `the branch moved under each of ${MAX_APPEND_TRIES} tries`,
    'Other writers keep changing it; what could not be added is in the job log, and the next writer adds its own',
  );
}

function summary(pull: PullRequestSummary, state: KnowledgePr['state']): KnowledgePr {
  return { number: pull.number, url: pull.url, state };
}

/**
 * An open PR found again, with the labels it should have: a writer that failed between POST
 * /pulls and POST /issues/<n>/labels left it without them, and whoever finds it next adds them.
 */
async function labelled(request: GatewayRequest, repo: Repo, open: PullRequestSummary, append: KnowledgeAppend): Promise<KnowledgePr> {
  const missing = open.labels === undefined ? [] : append.pr.labels.filter((l) => !open.labels!.includes(l));
  if (missing.length > 0) await addLabels(request, repo, open.number, missing);
  return summary(open, 'open');
}

async function ensurePr(request: GatewayRequest, repo: Repo, append: KnowledgeAppend): Promise<KnowledgePr> {
  let pull: PullRequestSummary;
  try {
    pull = await createPullRequest(request, repo, { title: append.pr.title, head: append.branch, base: append.base, body: append.pr.body });
  } catch (e) {
    const again = hasStatus(e, 422)
      ? newest((await listPullRequests(request, repo, { head: append.branch, state: 'open' })).filter((p) => p.state === 'open'))
      : undefined;
    if (!again) throw e;
    return labelled(request, repo, again, append);
  }
  await addLabels(request, repo, pull.number, append.pr.labels);
  return summary(pull, 'opened');
}
