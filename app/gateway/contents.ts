import { getBlob } from './blobs.js';
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

/** Above this size GET /contents answers a file without its content ("encoding": "none"): the blob is read instead. */
const CONTENTS_FILE_MAX = 1024 * 1024;

/**
 * A file's text at `ref`: GET /repos/{owner}/{repo}/contents/{path}?ref= (its content base64),
 * or for a file over 1 MB the blob (GET /git/blobs/{sha}). Undefined when there is no file at
 * `path` (404, or a directory there).
 */
export async function fileText(request: GatewayRequest, repo: Repo, path: string, ref: string): Promise<string | undefined> {
  let data: unknown;
  try {
    data = (await request('GET /repos/{owner}/{repo}/contents/{path}', { ...repo, path, ref })).data;
  } catch (e) {
    if (hasStatus(e, 404)) return undefined;
    throw e;
  }
  if (Array.isArray(data)) return undefined;
  const file = data as { type?: string; encoding?: string; content?: string; sha?: string; size?: number };
  if (file.type !== 'file' || file.sha === undefined) return undefined;
  const inline = file.encoding === 'base64' && ((file.content ?? '') !== '' || (file.size ?? 0) === 0) && (file.size ?? 0) <= CONTENTS_FILE_MAX;
  if (inline) return Buffer.from(file.content ?? '', 'base64').toString('utf8');
  return new TextDecoder().decode(await getBlob(request, repo, file.sha));
}
