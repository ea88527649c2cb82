import { isSpecInput, PLANS_DIR } from '../../engine/core/spec/load.js';
import { formatBytes, MAX_DOCUMENT_BYTES, MAX_PLAN_BYTES } from '../../engine/core/spec/limits.js';
import { problem, type Problem } from '../../engine/core/spec/problem.js';
import type { SpecFile } from '../../engine/core/spec/text.js';
import type { Gateway } from '../../gateway/gateway.js';
import type { TreeEntry } from '../../gateway/trees.js';

/** The bytes loadSpec will look at for a file: past them it reports the file as too large. */
function limitFor(path: string): number {
  return path.startsWith(PLANS_DIR) ? MAX_PLAN_BYTES : MAX_DOCUMENT_BYTES;
}

/**
 * What one delivery of a spec PR may read, counted from the tree listing before any blob
 * is fetched. Each blob is a request from the installation's allowance (5,000 an hour for
 * most), and anyone can open a PR from a fork: 5,000 plan files once spent that allowance
 * on every push. A spec past these limits is too large to sync as issues anyway (each plan
 * is an issue, and GitHub allows 500 content writes an hour).
 */
export const APP_MAX_PLANS_PER_SPEC = 1_000;
/** All the specs a delivery reads together: the same allowance, shared. */
export const APP_MAX_BLOBS_PER_DELIVERY = 2_000;
/** Bytes of spec text one delivery downloads at most. */
export const APP_MAX_BYTES_PER_DELIVERY = 32 * 1024 * 1024;

/** What is left to read in one delivery; readSpecFiles spends from it. */
export interface ReadBudget {
  blobs: number;
  bytes: number;
}

export function deliveryBudget(): ReadBudget {
  return { blobs: APP_MAX_BLOBS_PER_DELIVERY, bytes: APP_MAX_BYTES_PER_DELIVERY };
}

export interface ReadSpec {
  files: SpecFile[];
  /** Why nothing past the listing was read (the spec is over a limit); loadSpec is not to be trusted to say it. */
  refused?: Problem;
}

/**
 * The files of a spec directory that loadSpec reads (SPEC.md, ROADMAP.md, the PLAN.md files)
 * from its Git tree: one recursive tree read, the limits checked against that listing, then
 * the files' blobs, fifty to a GraphQL query (gateway getBlobs; REST one at a time for a few,
 * or for what GraphQL cannot give as it is), one request at a time (GitHub asks integrations
 * to make requests serially).
 * A file over loadSpec's limit is not downloaded at all: its size from the tree is enough
 * for the "too large" problem. A symbolic link (mode 120000) is never read as a file: it is
 * handed on as a link, which loadSpec reports.
 */
export async function readSpecFiles(github: Gateway, treeSha: string, budget: ReadBudget = deliveryBudget()): Promise<ReadSpec> {
  const tree = await github.tree(treeSha, true);
  const inputs = tree.truncated ? await walkInputs(github, treeSha) : tree.entries.filter(isInput);
  const links = inputs.filter(isLink);
  const blobs = inputs.filter((e) => !isLink(e) && e.type === 'blob' && isSpecInput(e.path));

  const plans = blobs.filter((e) => e.path.startsWith(PLANS_DIR)).length;
  const toFetch = blobs.filter((e) => e.size === undefined || e.size <= limitFor(e.path));
  const bytes = toFetch.reduce((n, e) => n + (e.size ?? limitFor(e.path)), 0);
  const refusal =
    plans > APP_MAX_PLANS_PER_SPEC
      ? `${plans.toLocaleString('en-US')} plan files is over the ${APP_MAX_PLANS_PER_SPEC.toLocaleString('en-US')} the harness App reads in a spec (each is a request to GitHub); split the spec, or check it with "harness validate" locally`
      : toFetch.length > budget.blobs
        ? `this pull request changes specs of more than ${APP_MAX_BLOBS_PER_DELIVERY.toLocaleString('en-US')} files in all, more than the harness App reads for one push; change fewer specs at a time`
        : bytes > budget.bytes
          ? `this pull request's specs hold more than ${formatBytes(APP_MAX_BYTES_PER_DELIVERY)} of text in all, more than the harness App reads for one push; change fewer specs at a time`
          : undefined;
  if (refusal !== undefined) return { files: [], refused: problem(PLANS_DIR, 1, 'too-many-plans', refusal) };
  budget.blobs -= toFetch.length;
  budget.bytes -= bytes;

  const files: SpecFile[] = links.map((e) => ({ path: e.path, bytes: new Uint8Array(0), link: '' }));
  const read = await github.blobs(toFetch.map((e) => e.sha));
  for (const entry of blobs.sort((a, b) => a.path.localeCompare(b.path))) {
    if (entry.size !== undefined && entry.size > limitFor(entry.path)) {
      files.push({ path: entry.path, bytes: new Uint8Array(0), size: entry.size });
      continue;
    }
    files.push({ path: entry.path, bytes: read.get(entry.sha)! });
  }
  return { files };
}

function isLink(e: TreeEntry): boolean {
  return e.mode === '120000';
}

/** An input, or a link where an input or a folder of them would be. */
function isInput(e: TreeEntry): boolean {
  if (isLink(e)) return isSpecInput(e.path) || e.path === 'planning' || `${e.path}/` === PLANS_DIR || e.path.startsWith(PLANS_DIR);
  return e.type === 'blob' && isSpecInput(e.path);
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
  out.push(...root.filter(isInput));
  const planning = root.find((e) => e.type === 'tree' && e.path === 'planning');
  if (!planning) return out;
  const planningEntries = await list(planning.sha, 'planning/');
  out.push(...planningEntries.filter(isInput));
  const plans = planningEntries.find((e) => e.type === 'tree' && `${e.path}/` === PLANS_DIR);
  if (!plans) return out;
  for (const phase of await list(plans.sha, PLANS_DIR)) {
    if (isInput(phase)) out.push(phase);
    if (phase.type !== 'tree') continue;
    out.push(...(await list(phase.sha, `${phase.path}/`)).filter(isInput));
  }
  return out;
}
