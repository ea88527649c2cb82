import { specIdFromDir } from '../../engine/importers/gsd/spec-id.js';
import { PAGE_SIZE } from '../limits.js';
import type { Invocation } from './invocation.js';

/** The sticky status comment's first line, written by the spec PR sync (docs/github-flow.md, 1). */
const STATUS_MARKER = /^<!-- harness:status (\S+) -->/;

/**
 * The specs a pull request changes. The sync keeps one sticky status comment per spec on a
 * spec PR, starting with `<!-- harness:status <spec> -->`; only comments by a bot count, so
 * that a person quoting the marker changes nothing. When there is none (the PR was never
 * synced), the PR's files are listed once and each directory under `specs_root` named
 * `<ID>-…` gives its spec id.
 */
export async function specsOfPull(inv: Invocation, number: number): Promise<string[]> {
  const comments = await inv.octokit.paginate(inv.octokit.rest.issues.listComments, { ...inv.repo, issue_number: number, per_page: PAGE_SIZE });
  const sticky = comments
    .filter((c) => c.user?.type === 'Bot')
    .map((c) => STATUS_MARKER.exec(c.body ?? '')?.[1])
    .filter((s): s is string => s !== undefined);
  if (sticky.length > 0) return [...new Set(sticky)].sort();

  const root = (await inv.config()).specs_root.replace(/\/+$/, '');
  const files = await inv.octokit.paginate(inv.octokit.rest.pulls.listFiles, { ...inv.repo, pull_number: number, per_page: PAGE_SIZE });
  const specs = new Set<string>();
  for (const f of files) {
    if (!f.filename.startsWith(`${root}/`)) continue;
    const dir = f.filename.slice(root.length + 1).split('/')[0]!;
    const id = specIdFromDir(dir);
    if (id !== undefined) specs.add(id);
  }
  return [...specs].sort();
}
