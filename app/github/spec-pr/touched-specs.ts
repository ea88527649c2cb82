import { changedSpecDirs } from '../../engine/forge/changed-specs.js';
import { normalizeRepoPath } from '../../engine/core/spec/paths.js';
import { CONTENTS_DIRECTORY_MAX } from '../../gateway/contents.js';
import type { Gateway } from '../../gateway/gateway.js';

export interface TouchedSpec {
  /** The directory's name under the specs root. */
  name: string;
  /** Repository path of the spec directory. */
  path: string;
  /** Its Git tree sha at the PR head. */
  tree: string;
}

export interface TouchedSpecs {
  specs: TouchedSpec[];
  /** The specs root lists as many entries as the contents API returns at most: some may be missing. */
  listingFull: boolean;
}

/**
 * The spec directories a PR changes, from the tree shas the contents API gives for each
 * directory under the specs root: those that differ between the PR head and the base.
 * The base is where the PR branched off, not the base branch's tip: when the base branch
 * has moved on (another spec PR merged), its specs differ from the head's without this PR
 * having touched them, and syncing the head's older copy would undo that PR's sync. So when
 * something differs from the tip, the merge base is asked for, and listed too if it is not
 * the tip. Two or three reads, whatever the size of the PR.
 */
export async function touchedSpecs(github: Gateway, specsRoot: string, head: string, base: string): Promise<TouchedSpecs> {
  const root = normalizeRepoPath(specsRoot).replace(/\/+$/, '');
  const atHead = await github.directory(root, head);
  if (!atHead) return { specs: [], listingFull: false };
  const listingFull = atHead.length >= CONTENTS_DIRECTORY_MAX;
  let changed = changedSpecDirs(atHead, await github.directory(root, base));
  if (changed.length === 0) return { specs: [], listingFull };
  const fork = await github.mergeBase(base, head);
  if (fork !== base) changed = changedSpecDirs(atHead, await github.directory(root, fork));
  return { specs: changed.map((e) => ({ name: e.name, path: e.path, tree: e.sha })), listingFull };
}
