import { stat } from 'node:fs/promises';
import { isMissing } from './files.js';
import { makeSafe, type Redaction, type SafetyOptions } from './content-safety.js';
import { readTree, type TreeFile, type UnreadFile } from './read-tree.js';
import { writeTree } from './write-tree.js';

/**
 * The knowledge store on this machine: a directory laid out as docs/design.md's Knowledge
 * section has it (`.harness/knowledge/` in a checkout, or a knowledge repository's checkout).
 * Reading takes what is there; writing puts every file through the content-safety pass first,
 * so that no secret and no absolute path of this machine is ever written into the store.
 */

/** Knowledge documents and logs: Markdown, and the trajectory's JSON lines. */
const KNOWLEDGE_FILE = /\.(md|jsonl)$/;

export interface KnowledgeFiles {
  /** Relative to the store's root, forward slashes, sorted. */
  files: TreeFile[];
  unread: UnreadFile[];
}

/** Every knowledge file under `root`; an absent store is an empty one. */
export async function readKnowledgeStore(root: string): Promise<KnowledgeFiles> {
  try {
    await stat(root);
  } catch (e) {
    if (isMissing(e)) return { files: [], unread: [] };
    throw e;
  }
  const tree = await readTree(root);
  return { files: tree.files.filter((f) => KNOWLEDGE_FILE.test(f.path)), unread: tree.unread };
}

export interface WrittenFile {
  path: string;
  redactions: Redaction[];
}

/**
 * Write files into the store at `root` (paths relative to it), each made safe first; files
 * already there and not named are left alone. Returns what each file had redacted.
 */
export async function writeKnowledgeFiles(root: string, files: readonly TreeFile[], safety: SafetyOptions): Promise<WrittenFile[]> {
  const safe = await Promise.all(files.map(async (f) => ({ path: f.path, ...(await makeSafe(f.text, safety)) })));
  await writeTree(root, safe.map((f) => ({ path: f.path, text: f.text })));
  return safe.map((f) => ({ path: f.path, redactions: f.redactions }));
}
