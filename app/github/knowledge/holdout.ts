import { retirementDraft } from '../../engine/forge/retirement-draft.js';
import { parseKnowledge } from '../../engine/knowledge/documents/parse.js';
import type { Signal } from '../../engine/knowledge/documents/schema.js';
import { holdoutReport, type HoldoutReport } from '../../engine/knowledge/holdout/comparison.js';
import { retireItem, stillSurfaced } from '../../engine/knowledge/holdout/retirement.js';
import type { SafetyOptions } from '../../machine/content-safety.js';
import { HOLDOUT_SIGNAL } from '../../machine/holdout-store.js';
import { safeDraft } from './app-safety.js';
import type { KnowledgeStore } from './knowledge-store.js';
import { readStoreFolders } from './skill-store-github.js';

/** Retirement PRs one `/harness retrospective` opens at most: reviewers take a few at a time; asking again offers the rest. */
export const MAX_RETIRE_PRS = 5;

export interface GitHubHoldout {
  /** The comparison; its `retire` is what was proposed now (a PR open for each). */
  report: HoldoutReport;
  opened: { path: string; url: string }[];
  /** More retirements qualified than were proposed now. */
  more: number;
  /** The store holds more signals than were read. */
  limited: boolean;
}

/**
 * The holdout comparison on GitHub (`/harness retrospective`), on the signals merged on the
 * store's default branch (the App keeps no state: the record is the signals), and each
 * retirement it proposes as a pull request of its own (retirement-draft.ts). A retirement whose
 * PR a person closed is not proposed again, and nothing is retired before a person merges.
 */
export async function holdoutOnGitHub(input: { store: KnowledgeStore; root: string; now: Date; safety: SafetyOptions }): Promise<GitHubHoldout> {
  const { store, root } = input;
  const read = await readStoreFolders(store.github, store.base, ['signals'], (p) => HOLDOUT_SIGNAL.test(p), root);
  const signals: Signal[] = read.files.flatMap((f) => parseKnowledge('signal', f.path, f.text).data ?? []);
  const found = holdoutReport(signals);
  const proposed: HoldoutReport['retire'] = [];
  const opened: { path: string; url: string }[] = [];
  let more = 0;
  for (const item of found.retire) {
    const text = await store.github.fileText(root === '' ? item.path : `${root}/${item.path}`, store.base);
    // Retired already (merged), or no longer in the store: no proposal.
    if (!stillSurfaced(item, text)) continue;
    if (opened.length === MAX_RETIRE_PRS) {
      more++;
      continue;
    }
    const change = retireItem(item, text!, input.now.toISOString());
    if (!change.ok) continue;
    const pr = await store.github.openKnowledgePr(await safeDraft(retirementDraft(item, change, root), input.safety), store.base);
    // A closed PR was a person's answer: the item stays.
    if (pr.state === 'closed' || pr.state === 'merged') continue;
    proposed.push(item);
    opened.push({ path: item.path, url: pr.url });
  }
  return { report: { ...found, retire: proposed }, opened, more, limited: read.limited.length > 0 };
}
