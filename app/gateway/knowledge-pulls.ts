import { knowledgeBranch, type KnowledgeKind } from '../engine/forge/knowledge-draft.js';
import { PAGE_SIZE } from './limits.js';
import { paginate } from './paginate.js';
import type { GatewayRequest, Repo } from './request.js';

/** An open knowledge PR, with what reflection reads of it: its branch and its description. */
export interface OpenKnowledgePull {
  number: number;
  url: string;
  headRef: string;
  body: string;
}

interface RawPull {
  number: number;
  html_url: string;
  body?: string | null;
  head: { ref: string; repo?: { full_name: string } | null };
}

/**
 * The open knowledge PRs of one kind: GET /repos/{owner}/{repo}/pulls?state=open&per_page=100,
 * every page, those whose head is a `harness/knowledge/<kind>/…` branch of this repository (a
 * fork's branch of that name is nobody's proposal). One list for all of them: what each
 * proposes is in its description, so no branch is read.
 */
export async function openKnowledgePulls(request: GatewayRequest, repo: Repo, kind: KnowledgeKind): Promise<OpenKnowledgePull[]> {
  const prefix = knowledgeBranch(kind, '');
  const pulls = await paginate<RawPull>(request, 'GET /repos/{owner}/{repo}/pulls', { ...repo, state: 'open', per_page: PAGE_SIZE });
  return pulls
    .filter((p) => p.head.ref.startsWith(prefix) && (p.head.repo === undefined || p.head.repo?.full_name === `${repo.owner}/${repo.repo}`))
    .map((p) => ({ number: p.number, url: p.html_url, headRef: p.head.ref, body: p.body ?? '' }))
    .sort((a, b) => a.number - b.number);
}
