import { stat } from 'node:fs/promises';
import { isMissing } from './files.js';
import { makeSafe, type Redaction, type SafetyOptions } from './content-safety.js';
import { readTree, type TreeFile, type TreeLimit, type UnreadFile } from './read-tree.js';
import { MAX_DOCUMENT_BYTES } from '../engine/core/spec/limits.js';
import { writeTree } from './write-tree.js';

/**
 * The knowledge store on this machine: a directory laid out as docs/design.md's Knowledge
 * section has it (`.harness/knowledge/` in a checkout, or a knowledge repository's checkout).
 * Reading takes what is there; writing puts every file through the content-safety pass first,
 * so that no secret and no absolute path of this machine is ever written into the store.
 */

/** Knowledge documents and logs: Markdown, and the trajectory's JSON lines. */
const KNOWLEDGE_FILE = /\.(md|jsonl)$/;

/**
 * A store grows by a few signals per plan; reflection reads 50,000 signals in seconds (the
 * reflect benchmark), so the bound is there to stop a wrong path, not a large store.
 */
export const MAX_KNOWLEDGE_FILES = 200_000;

const KNOWLEDGE_TREE: TreeLimit = {
  maxFiles: MAX_KNOWLEDGE_FILES,
  holds: 'a knowledge store is read with',
  fix: 'is this the knowledge store? If it is, move old signals that lessons cite out of signals/ (their lessons keep the evidence).',
};

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
  const tree = await readTree(root, MAX_DOCUMENT_BYTES, KNOWLEDGE_TREE);
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
  await writeTree(
    root,
    safe.map((f) => ({ path: f.path, text: f.text })),
  );
  return safe.map((f) => ({ path: f.path, redactions: f.redactions }));
}
