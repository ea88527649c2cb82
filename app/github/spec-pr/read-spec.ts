import { isSpecInput, PLANS_DIR } from '../../engine/core/spec/load.js';
import { MAX_DOCUMENT_BYTES, MAX_PLAN_BYTES } from '../../engine/core/spec/limits.js';
import type { SpecFile } from '../../engine/core/spec/text.js';
import type { Gateway } from '../../gateway/gateway.js';
import type { TreeEntry } from '../../gateway/trees.js';

/** The bytes loadSpec will look at for a file: past them it reports the file as too large. */
function limitFor(path: string): number {
  return path.startsWith(PLANS_DIR) ? MAX_PLAN_BYTES : MAX_DOCUMENT_BYTES;
}

/**
 * The files of a spec directory that loadSpec reads (SPEC.md, ROADMAP.md, the PLAN.md files)
 * from its Git tree: one recursive tree read, then one blob read per file, one at a time
 * (GitHub asks integrations to make requests serially). A file over loadSpec's limit is not
 * downloaded at all: its size from the tree is enough for the "too large" problem.
 */
export async function readSpecFiles(github: Gateway, treeSha: string): Promise<SpecFile[]> {
  const tree = await github.tree(treeSha, true);
  const inputs = tree.truncated ? await walkInputs(github, treeSha) : tree.entries.filter((e) => e.type === 'blob' && isSpecInput(e.path));
  const files: SpecFile[] = [];
  for (const entry of inputs.sort((a, b) => a.path.localeCompare(b.path))) {
    if (entry.size !== undefined && entry.size > limitFor(entry.path)) {
      files.push({ path: entry.path, bytes: new Uint8Array(0), size: entry.size });
      continue;
    }
    files.push({ path: entry.path, bytes: await github.blob(entry.sha) });
  }
  return files;
}

/**
 * When the recursive listing is truncated (a spec directory with a huge execution/ history,
 * say), walk only the trees that can hold inputs: the root, planning/, planning/plans/
 * and each phase directory in it.
 */
async function walkInputs(github: Gateway, treeSha: string): Promise<TreeEntry[]> {
  const list = async (sha: string, prefix: string) => (await github.tree(sha, false)).entries.map((e) => ({ ...e, path: `${prefix}${e.path}` }));
  const out: TreeEntry[] = [];
  const root = await list(treeSha, '');
  out.push(...root.filter((e) => e.type === 'blob' && isSpecInput(e.path)));
  const planning = root.find((e) => e.type === 'tree' && e.path === 'planning');
  if (!planning) return out;
  const plans = (await list(planning.sha, 'planning/')).find((e) => e.type === 'tree' && `${e.path}/` === PLANS_DIR);
  if (!plans) return out;
  for (const phase of await list(plans.sha, PLANS_DIR)) {
    if (phase.type === 'blob' && isSpecInput(phase.path)) out.push(phase);
    if (phase.type !== 'tree') continue;
    out.push(...(await list(phase.sha, `${phase.path}/`)).filter((e) => e.type === 'blob' && isSpecInput(e.path)));
  }
  return out;
}
