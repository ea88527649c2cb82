import type { HarnessConfig } from '../../engine/core/config/schema.js';
import { gateway, type Gateway } from '../../gateway/gateway.js';
import type { GitHubRequest } from '../../gateway/request.js';

/** Where the App reads and proposes knowledge: this repository's default branch, or the knowledge repository's. */
export interface KnowledgeStore {
  github: Gateway;
  base: string;
  /** `owner/name`, for messages. */
  name: string;
}

/**
 * The store reflection works on. With `knowledge.repository` set (learning across projects),
 * it is that repository's `.harness/knowledge/` on its default branch, reached with the same
 * installation's token (the App must be installed there too; GitHub answers 404 otherwise,
 * which the gateway's error says). Otherwise it is this repository's.
 */
export async function knowledgeStore(config: HarnessConfig, request: GitHubRequest, here: { github: Gateway; base: string }): Promise<KnowledgeStore> {
  const named = config.knowledge.repository;
  if (named === undefined || named.toLowerCase() === `${here.github.repo.owner}/${here.github.repo.repo}`.toLowerCase()) {
    return { ...here, name: `${here.github.repo.owner}/${here.github.repo.repo}` };
  }
  const [owner, repo] = named.split('/') as [string, string];
  const github = gateway(request, { owner, repo }, 'app');
  return { github, base: (await github.repository()).defaultBranch, name: named };
}

/** How an answer names the store's branch: `main` here, `acme/knowledge@main` elsewhere. */
export function storeLabel(store: KnowledgeStore, here: Gateway): string {
  return store.github === here ? store.base : `${store.name}@${store.base}`;
}
