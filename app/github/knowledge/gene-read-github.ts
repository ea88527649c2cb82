import { KNOWLEDGE_ROOT } from '../../engine/forge/knowledge-draft.js';
import type { CapsuleRecord, GeneRecord } from '../../engine/knowledge/genes/decay.js';
import { readGene } from '../../engine/knowledge/genes/gene-read.js';
import { parseKnowledge } from '../../engine/knowledge/documents/parse.js';
import { readSignal, type SignalRecord } from '../../engine/knowledge/signals/signal-record.js';
import { TrajectoryStats } from '../../engine/knowledge/documents/trajectory-stats.js';
import type { Gateway } from '../../gateway/gateway.js';
import type { TreeEntry } from '../../gateway/trees.js';

/**
 * The part of a store on GitHub that gene decay reads, on the base branch: GET /contents/
 * .harness/knowledge, then for `genes/`, `capsules/`, `trajectory/` and `signals/` GET
 * /git/trees/{sha}?recursive=1 and a blob read per file needed. Of the signals only the
 * repairs (and what agents reported: innovation and pattern signals) are read, the newest
 * MAX_REPAIRS_READ, since solidify needs nothing else.
 */

export const MAX_REPAIRS_READ = 300;

export interface GitHubGeneStore {
  present: boolean;
  genes: GeneRecord[];
  capsules: CapsuleRecord[];
  signals: SignalRecord[];
  stats: TrajectoryStats;
  problems: { path: string; line: number; message: string }[];
}

const decoder = new TextDecoder();

export async function geneRead(
  github: Pick<Gateway, 'directory' | 'tree' | 'blob'>,
  base: string,
  log: { warn(message: string): void },
): Promise<GitHubGeneStore> {
  const out: GitHubGeneStore = { present: false, genes: [], capsules: [], signals: [], stats: new TrajectoryStats(), problems: [] };
  const folders = await github.directory(KNOWLEDGE_ROOT, base);
  if (folders === undefined) return out;
  out.present = true;
  const blobs = async (name: string): Promise<TreeEntry[]> => {
    const dir = folders.find((e) => e.name === name && e.type === 'dir');
    if (!dir) return [];
    const tree = await github.tree(dir.sha, true);
    if (tree.truncated) log.warn(`${KNOWLEDGE_ROOT}/${name} is larger than GitHub lists at once; deciding on the part it listed`);
    return tree.entries.filter((e) => e.type === 'blob');
  };
  const text = async (e: TreeEntry) => decoder.decode(await github.blob(e.sha));

  for (const e of (await blobs('genes')).filter((e) => e.path.endsWith('.gene.md'))) {
    const path = `genes/${e.path}`;
    const content = await text(e);
    const read = readGene(path, content);
    if ('problem' in read) out.problems.push({ path, line: read.problem.line, message: read.problem.message });
    else out.genes.push({ path, gene: read.gene, text: content });
  }
  for (const e of (await blobs('capsules')).filter((e) => e.path.endsWith('.capsule.md'))) {
    const path = `capsules/${e.path}`;
    const parsed = parseKnowledge('capsule', path, await text(e));
    const error = parsed.problems.find((p) => p.severity === 'error');
    if (!parsed.data || error) out.problems.push({ path, line: error?.line ?? 1, message: error?.message ?? 'not a capsule' });
    else out.capsules.push({ path, capsule: parsed.data });
  }
  for (const e of (await blobs('trajectory')).filter((e) => e.path.endsWith('.jsonl')).sort((a, b) => (a.path < b.path ? -1 : 1)))
    out.stats.addText(await text(e));
  const wanted = (await blobs('signals'))
    .filter((e) => /-(?:repair|innovation|pattern)\.signal\.md$/.test(e.path))
    .sort((a, b) => (a.path.slice(a.path.lastIndexOf('/')) < b.path.slice(b.path.lastIndexOf('/')) ? 1 : -1))
    .slice(0, MAX_REPAIRS_READ);
  for (const e of wanted) {
    const read = readSignal(`${KNOWLEDGE_ROOT}/signals/${e.path}`, await text(e));
    if (!('problem' in read)) out.signals.push(read);
  }
  return out;
}
