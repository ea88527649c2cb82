/** A directory under the specs root, as a listing of it at some commit gives it. */
export interface SpecDirEntry {
  name: string;
  type: string;
  /** The directory's Git tree sha: equal shas, equal contents. */
  sha: string;
}

/**
 * The spec directories changed between two listings of the specs root: every directory at
 * `head` that is new or whose tree differs from `base`'s. A directory only at `base` (the
 * spec deleted) is not a spec to validate.
 */
export function changedSpecDirs<T extends SpecDirEntry>(head: readonly T[], base: readonly SpecDirEntry[] | undefined): T[] {
  const before = new Map((base ?? []).filter((e) => e.type === 'dir').map((e) => [e.name, e.sha]));
  return head.filter((e) => e.type === 'dir' && before.get(e.name) !== e.sha).sort((a, b) => a.name.localeCompare(b.name));
}
