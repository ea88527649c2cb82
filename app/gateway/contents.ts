import { hasStatus } from './github-error.js';
import type { GatewayRequest, Repo } from './request.js';

/** "This API has an upper limit of 1,000 files for a directory" (REST: get repository content). */
export const CONTENTS_DIRECTORY_MAX = 1_000;

export interface DirectoryEntry {
  name: string;
  path: string;
  /** Submodules are listed as `file` by this endpoint (GitHub keeps that for compatibility). */
  type: 'dir' | 'file' | 'symlink' | 'submodule';
  /** For a directory, the sha of its Git tree: equal shas mean equal contents, recursively. */
  sha: string;
}

/**
 * GET /repos/{owner}/{repo}/contents/{path}?ref= for a directory. Undefined when nothing is
 * at `path` at that commit (404) or when it is a file: either way there is no directory to list.
 */
export async function listDirectory(request: GatewayRequest, repo: Repo, path: string, ref: string): Promise<DirectoryEntry[] | undefined> {
  try {
    const { data } = await request('GET /repos/{owner}/{repo}/contents/{path}', { ...repo, path, ref });
    if (!Array.isArray(data)) return undefined;
    return data.map((e) => ({ name: e.name, path: e.path, type: e.type as DirectoryEntry['type'], sha: e.sha }));
  } catch (e) {
    if (hasStatus(e, 404)) return undefined;
    throw e;
  }
}
