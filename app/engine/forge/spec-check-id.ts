/**
 * The `external_id` of a `harness / spec` check run: `<spec>@<tree sha of the spec
 * directory>` (docs/github-flow.md), one per spec the PR changes, separated by spaces when
 * there are several. `<spec>` is the spec's id, or its directory name when SPEC.md gave none.
 * It records what the check run was computed from, so that a later delivery for the same
 * commit can tell that there is nothing new to do.
 */
export interface SpecCheckEntry {
  spec: string;
  tree: string;
}

export function specCheckId(entries: readonly SpecCheckEntry[]): string {
  return entries.map((e) => `${e.spec}@${e.tree}`).join(' ');
}

export function parseSpecCheckId(id: string | null | undefined): SpecCheckEntry[] | undefined {
  if (!id) return undefined;
  const entries: SpecCheckEntry[] = [];
  for (const part of id.split(' ')) {
    const at = part.lastIndexOf('@');
    if (at <= 0 || !/^[0-9a-f]{7,64}$/.test(part.slice(at + 1))) return undefined;
    entries.push({ spec: part.slice(0, at), tree: part.slice(at + 1) });
  }
  return entries;
}
