import type { GatewayRequest, Repo } from './request.js';

/**
 * "The limit for the tree array is 100,000 entries with a maximum size of 7 MB when using
 * the recursive parameter"; past it GitHub answers `truncated: true` (REST: get a tree).
 */
export const TREE_RECURSIVE_MAX_ENTRIES = 100_000;
export const TREE_RECURSIVE_MAX_BYTES = 7 * 1024 * 1024;

export interface TreeEntry {
  /** Relative to the tree asked for. */
  path: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  /** Git's file mode: "100644", "100755", "040000", "160000", or "120000" for a symbolic link. */
  mode?: string;
  /** Blobs only. */
  size?: number;
}

export interface Tree {
  entries: TreeEntry[];
  /** The recursive listing stopped at GitHub's limit: walk the sub-trees one at a time instead. */
  truncated: boolean;
}

/** GET /repos/{owner}/{repo}/git/trees/{tree_sha}[?recursive=1] */
export async function getTree(request: GatewayRequest, repo: Repo, sha: string, recursive: boolean): Promise<Tree> {
  const { data } = await request('GET /repos/{owner}/{repo}/git/trees/{tree_sha}', {
    ...repo,
    tree_sha: sha,
    ...(recursive ? { recursive: '1' } : {}),
  });
  const entries: TreeEntry[] = [];
  for (const e of data.tree) {
    if (e.path === undefined || e.sha === undefined || e.type === undefined) continue;
    const entry: TreeEntry = { path: e.path, type: e.type as TreeEntry['type'], sha: e.sha };
    if (e.mode !== undefined) entry.mode = e.mode;
    if (e.size !== undefined) entry.size = e.size;
    entries.push(entry);
  }
  return { entries, truncated: data.truncated };
}

/** A file written inline into a new tree (mode 100644: a regular file). */
export interface NewFile {
  path: string;
  content: string;
}

/**
 * POST /repos/{owner}/{repo}/git/trees (201): `base` with `files` added or replaced and
 * `deletions` removed (an entry whose sha is null deletes the file; GitHub refuses to delete
 * one that is not there); the new tree's sha.
 */
export async function createTree(
  request: GatewayRequest,
  repo: Repo,
  base: string,
  files: readonly NewFile[],
  deletions: readonly string[] = [],
): Promise<string> {
  const tree = [
    ...files.map((f) => ({ path: f.path, mode: '100644' as const, type: 'blob' as const, content: f.content })),
    ...deletions.map((path) => ({ path, mode: '100644' as const, type: 'blob' as const, sha: null })),
  ];
  return (await request('POST /repos/{owner}/{repo}/git/trees', { ...repo, base_tree: base, tree })).data.sha;
}
