import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseKnowledge } from '../engine/knowledge/documents/parse.js';
import type { Signal } from '../engine/knowledge/documents/schema.js';
import { retireItem, stillSurfaced, type Retirement } from '../engine/knowledge/holdout/retirement.js';
import type { SafetyOptions } from './content-safety.js';
import { readTextIfExists } from './files.js';
import { readKnowledgeStore, writeKnowledgeFiles } from './knowledge-store.js';

/**
 * The holdout comparison on a store on this machine (`harness retrospective`): the signals it is
 * made from, read from the store's files, and the retirements it proposes written into the
 * store for the person to review and commit, as `harness skills --prune --write` does.
 */

/** The signals that record plans: completions (their outcomes) and failures (their trials). */
export const HOLDOUT_SIGNAL = /-(?:completion|struggle|stuck|timeout)\.signal\.md$/;

/** The store's signals the comparison reads, parsed (frontmatter only); files that do not parse are named. */
export async function readHoldoutSignals(store: string): Promise<{ signals: Signal[]; unreadable: string[] }> {
  const { files } = await readKnowledgeStore(join(store, 'signals'));
  const signals: Signal[] = [];
  const unreadable: string[] = [];
  for (const f of files) {
    if (!HOLDOUT_SIGNAL.test(f.path)) continue;
    const data = parseKnowledge('signal', `signals/${f.path}`, f.text).data;
    if (data) signals.push(data);
    else unreadable.push(`signals/${f.path}`);
  }
  return { signals, unreadable };
}

export interface RetiredLocally extends Retirement {
  /** Its change is in the store, for the person to commit. */
  written: boolean;
  /** Why nothing was written: a dry run, or a file that cannot be edited. */
  skipped?: string;
}

/**
 * Each proposed retirement written into the store (unless `write` is false): a skill moved to
 * skills-archived/ (its folder removed), a gene deprecated, a lesson marked retired. An item the
 * store no longer offers (archived, deprecated, retired or gone) is no proposal: it is left out.
 */
export async function retireLocally(
  store: string,
  proposed: readonly Retirement[],
  o: { at: Date; write: boolean; safety: SafetyOptions },
): Promise<RetiredLocally[]> {
  const out: RetiredLocally[] = [];
  for (const item of proposed) {
    const text = await readTextIfExists(join(store, item.path));
    if (!stillSurfaced(item, text)) continue;
    if (!o.write) {
      out.push({ ...item, written: false, skipped: 'dry run' });
      continue;
    }
    const change = retireItem(item, text!, o.at.toISOString());
    if (!change.ok) {
      out.push({ ...item, written: false, skipped: change.why });
      continue;
    }
    await writeKnowledgeFiles(store, change.files, o.safety);
    // A skill is its folder: it goes whole, as a prune takes it.
    for (const gone of change.deletions) await rm(item.kind === 'skill' ? join(store, dirname(gone)) : join(store, gone), { recursive: true, force: true });
    out.push({ ...item, written: true });
  }
  return out;
}
