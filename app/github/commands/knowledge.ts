import type { Command } from '../../engine/forge/command.js';
import { projectName, type KnowledgeDraft } from '../../engine/forge/knowledge-draft.js';
import { spikeDraft } from '../../engine/forge/spike-draft.js';
import { hasStatus } from '../../gateway/github-error.js';
import type { PullRequestSummary } from '../../gateway/pulls.js';
import { loadTemplate } from '../../machine/templates.js';
import { specsHere, type Invocation } from './invocation.js';

/**
 * `/harness spike "<question>"`: a knowledge PR adding the spike's HYPOTHESIS.md (from
 * templates/spike/HYPOTHESIS.md) under spikes/<project>/<slug>/, where the project is the
 * repository's name. Asked on a plan issue or a spec PR about one spec, the spike names it.
 */
export async function spike(inv: Invocation, command: Extract<Command, { name: 'spike' }>, askedIn: string): Promise<string> {
  const specs = await specsHere(inv);
  const draft = spikeDraft({
    template: await loadTemplate('spike/HYPOTHESIS.md'),
    question: command.question,
    project: projectName(inv.github.repo.repo),
    ...(specs.length === 1 ? { spec: specs[0]! } : {}),
    now: inv.now(),
    askedIn,
  });
  const pr = await openKnowledgePr(inv, draft);
  switch (pr.state) {
    case 'opened':
      return `Opened spike #${pr.number} for "${command.question}": write the hypothesis and its success criteria there. ${pr.url}`;
    case 'open':
      return `This question has a spike already: #${pr.number} (${pr.url}).`;
    case 'merged':
      return `This question was spiked already, in #${pr.number} (merged): its folder is \`${draft.files[0]!.path.replace(/\/HYPOTHESIS\.md$/, '')}\`.`;
    case 'closed':
      return `A spike for this question was closed without merging: #${pr.number}. Reopen it, or ask a differently worded question.`;
  }
}

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
  const { github } = inv;
  const found = await newestPull(inv, draft.branch);
  if (found) return existing(found);

  const base = inv.defaultBranch;
  const headSha = await github.branchSha(base);
  if (headSha === undefined) throw new Error(`the default branch ${base} has no commit to start ${draft.branch} from`);
  const tree = await github.createTree(await github.commitTree(headSha), draft.files);
  const commit = await github.createCommit({ message: draft.commitMessage, tree, parents: [headSha] });
  await github.createBranch(draft.branch, commit);

  let pull: PullRequestSummary;
  try {
    pull = await github.createPullRequest({ title: draft.title, head: draft.branch, base, body: draft.body });
  } catch (e) {
    const again = hasStatus(e, 422) ? await newestPull(inv, draft.branch) : undefined;
    if (!again) throw e;
    return existing(again);
  }
  await github.addLabels(pull.number, draft.labels);
  return { number: pull.number, url: pull.url, state: 'opened' };
}

/** The newest PR whose head is the branch, in any state. */
async function newestPull(inv: Invocation, branch: string): Promise<PullRequestSummary | undefined> {
  return [...(await inv.github.pullRequests({ head: branch, state: 'all' }))].sort((a, b) => b.number - a.number)[0];
}
