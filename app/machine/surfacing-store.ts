import { join } from 'node:path';
import { indexKnowledge, type KnowledgeFile, type KnowledgeIndex } from '../engine/knowledge/surfacing/knowledge-index.js';
import { problem } from '../engine/core/spec/problem.js';
import type { SurfacedEntry } from '../engine/knowledge/documents/loop.js';
import { makeSafe, type SafetyOptions } from './content-safety.js';
import { committedFiles } from './committed-store.js';
import { readKnowledgeStore } from './knowledge-store.js';

/**
 * The part of a knowledge store that surfacing reads, indexed: its lessons, skills and genes.
 * Only those folders are read, so that a store holding years of signals (and the
 * trajectory's logs) costs a surfacing nothing for them; `skills-archived/` is never read.
 */

const SURFACED_FOLDERS = ['lessons', 'skills', 'genes'] as const;

/**
 * Index the store at `root` (absolute); an absent store, or one without these folders, is an
 * empty index. Only what is committed counts (committed-store.ts): a lesson or skill nobody
 * merged yet is pending, and never surfaced.
 */
export async function loadSurfacingIndex(root: string): Promise<KnowledgeIndex & { pending: string[] }> {
  const files: KnowledgeFile[] = [];
  const unread: { path: string; reason: string }[] = [];
  for (const folder of SURFACED_FOLDERS) {
    const read = await readKnowledgeStore(join(root, folder));
    for (const f of read.files) files.push({ path: `${folder}/${f.path}`, text: f.text });
    for (const u of read.unread) unread.push({ path: `${folder}/${u.path}`, reason: u.reason });
  }
  const committed = await committedFiles(root, files);
  const index = { ...indexKnowledge(committed.files), pending: committed.pending };
  // Links are not followed on purpose (read-tree.ts); a file too large or not text is a file a person should fix.
  for (const u of unread) {
    const code = u.reason.includes('UTF-8') ? 'not-utf8' : u.reason.includes('limit') ? 'file-too-large' : undefined;
    if (code === undefined || !u.path.endsWith('.md')) continue;
    index.problems.push(problem(u.path, 1, code, `not read (${u.reason}), so it is never surfaced; make it UTF-8 Markdown within the limit`));
  }
  return index;
}

/**
 * Surfaced entries fit to be written where others read them (a brief, SUMMARY.md, a pull
 * request): a store given from outside the repository may hold what the repository's own
 * never would, a secret or this machine's paths.
 */
export async function safeSurfaced(entries: readonly SurfacedEntry[], safety: SafetyOptions): Promise<SurfacedEntry[]> {
  const safe = async (text: string) => (text === '' ? text : (await makeSafe(text, safety)).text);
  return Promise.all(
    entries.map(async (e) => ({
      ...e,
      title: await safe(e.title),
      text: await safe(e.text),
      why: await safe(e.why),
      ...(e.origin === undefined ? {} : { origin: await safe(e.origin) }),
    })),
  );
}
