import type { Context } from 'probot';
import { PAGE_SIZE } from '../limits.js';

type Octokit = Context['octokit'];

export interface Label {
  name: string;
  /** Six hex digits, no `#`. */
  color: string;
  description: string | null;
}

/** GET /repos/{owner}/{repo}/labels?per_page=100, every page. */
export async function listLabels(octokit: Octokit, repo: { owner: string; repo: string }): Promise<Label[]> {
  const all = await octokit.paginate('GET /repos/{owner}/{repo}/labels', { ...repo, per_page: PAGE_SIZE });
  return all.map((l) => ({ name: l.name, color: l.color, description: l.description }));
}

/**
 * POST /repos/{owner}/{repo}/labels. `exists` when GitHub answers 422 (the name is taken):
 * another delivery, or a person, created it first, which is what was wanted.
 */
export async function createLabel(octokit: Octokit, repo: { owner: string; repo: string }, label: Label): Promise<'created' | 'exists'> {
  try {
    await octokit.request('POST /repos/{owner}/{repo}/labels', { ...repo, name: label.name, color: label.color, ...(label.description ? { description: label.description } : {}) });
    return 'created';
  } catch (e) {
    if ((e as { status?: number }).status === 422) return 'exists';
    throw e;
  }
}
