import { KNOWLEDGE_ROOT } from '../../engine/forge/knowledge-draft.js';
import type { StoreText } from '../../engine/knowledge/skills/skill-known.js';
import type { Gateway } from '../../gateway/gateway.js';
import type { TreeEntry } from '../../gateway/trees.js';

/** Files of one folder read at most (one blob request each): the newest, by path, when there are more. */
export const MAX_FOLDER_READS = 400;

export interface GitHubStoreRead {
  /** Store-relative path → text, of the folders asked for. */
  files: StoreText[];
  /** Folders with more files than were read. */
  limited: string[];
}

/**
 * Folders of a knowledge store on GitHub at a ref, as the skill commands read them: GET
 * /contents/<root>, then for each folder GET /git/trees/{sha}?recursive=1 and one blob per file
 * that `keep` accepts, the newest MAX_FOLDER_READS by path (signals and trajectory files are
 * named by day). `root` is `.harness/knowledge`, or '' for a knowledge repository.
 */
export async function readStoreFolders(
  github: Pick<Gateway, 'directory' | 'tree' | 'blob'>,
  ref: string,
  folders: readonly string[],
  keep: (path: string) => boolean = () => true,
  root: string = KNOWLEDGE_ROOT,
): Promise<GitHubStoreRead> {
  const out: GitHubStoreRead = { files: [], limited: [] };
  const listed = await github.directory(root, ref);
  if (listed === undefined) return out;
  const decoder = new TextDecoder();
  for (const folder of folders) {
    const dir = listed.find((e) => e.name === folder && e.type === 'dir');
    if (!dir) continue;
    const entries = (await github.tree(dir.sha, true)).entries
      .filter((e: TreeEntry) => e.type === 'blob' && keep(`${folder}/${e.path}`))
      .sort((a, b) => (a.path < b.path ? 1 : -1));
    if (entries.length > MAX_FOLDER_READS) out.limited.push(folder);
    for (const e of entries.slice(0, MAX_FOLDER_READS)) out.files.push({ path: `${folder}/${e.path}`, text: decoder.decode(await github.blob(e.sha)) });
  }
  return out;
}
