import { hasStatus } from './github-error.js';
import { PAGE_SIZE } from './limits.js';
import { paginate } from './paginate.js';
import type { GatewayRequest, Repo } from './request.js';

export interface Label {
  name: string;
  /** Six hex digits, no `#`. */
  color: string;
  description: string | null;
}

/** GET /repos/{owner}/{repo}/labels?per_page=100, every page. */
export async function listLabels(request: GatewayRequest, repo: Repo): Promise<Label[]> {
  const all = await paginate<Label>(request, 'GET /repos/{owner}/{repo}/labels', { ...repo, per_page: PAGE_SIZE });
  return all.map((l) => ({ name: l.name, color: l.color, description: l.description }));
}

/**
 * POST /repos/{owner}/{repo}/labels. `exists` when GitHub answers 422 (the name is taken):
 * another delivery, or a person, created it first, which is what was wanted.
 */
export async function createLabel(request: GatewayRequest, repo: Repo, label: Label): Promise<'created' | 'exists'> {
  try {
    await request('POST /repos/{owner}/{repo}/labels', { ...repo, name: label.name, color: label.color, ...(label.description ? { description: label.description } : {}) });
    return 'created';
  } catch (e) {
    if (hasStatus(e, 422)) return 'exists';
    throw e;
  }
}

/**
 * POST /repos/{owner}/{repo}/issues/{issue_number}/labels (200): adds to the issue's labels,
 * leaving the others as they are, whoever set them meanwhile. GitHub answers with every label
 * the issue has now: their names.
 */
export async function addLabels(request: GatewayRequest, repo: Repo, issueNumber: number, labels: readonly string[]): Promise<string[]> {
  const { data } = await request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', { ...repo, issue_number: issueNumber, labels: [...labels] });
  return Array.isArray(data) ? (data as { name?: unknown }[]).flatMap((l) => (typeof l?.name === 'string' ? [l.name] : [])) : [];
}

/**
 * DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name} (200). A label the issue
 * no longer has (GitHub answers 404) is `absent`: someone took it off first, which is what
 * was wanted.
 */
export async function removeLabel(request: GatewayRequest, repo: Repo, issueNumber: number, name: string): Promise<'removed' | 'absent'> {
  try {
    await request('DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', { ...repo, issue_number: issueNumber, name });
    return 'removed';
  } catch (e) {
    if (hasStatus(e, 404)) return 'absent';
    throw e;
  }
}
