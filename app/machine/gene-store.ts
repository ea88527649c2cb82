import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CapsuleRecord, GeneRecord } from '../engine/knowledge/genes/decay.js';
import { readGene } from '../engine/knowledge/genes/gene-read.js';
import { parseKnowledge } from '../engine/knowledge/documents/parse.js';
import { TrajectoryStats } from '../engine/knowledge/documents/trajectory-stats.js';
import { isMissing, readTextIfExists } from './files.js';
import { readKnowledgeStore } from './knowledge-store.js';

/**
 * The genes, capsules and trajectory of a knowledge store on this machine, as decay, export
 * and audits read them. The trajectory is streamed file by file into the aggregator, so a
 * year of it is never in memory as one text.
 */

export interface GeneStore {
  genes: GeneRecord[];
  capsules: CapsuleRecord[];
  stats: TrajectoryStats;
  /** Gene and capsule files that are not valid: reported, never decided on. */
  problems: { path: string; line: number; message: string }[];
}

/** Every `trajectory/*.jsonl` of the store, oldest day first, fed to `stats`. */
export async function readTrajectory(store: string, stats: TrajectoryStats = new TrajectoryStats()): Promise<TrajectoryStats> {
  let names: string[];
  try {
    names = await readdir(join(store, 'trajectory'));
  } catch (e) {
    if (isMissing(e)) return stats;
    throw e;
  }
  for (const name of names.filter((n) => n.endsWith('.jsonl')).sort()) {
    const text = await readTextIfExists(join(store, 'trajectory', name));
    if (text !== undefined) stats.addText(text);
  }
  return stats;
}

export async function readGeneStore(store: string): Promise<GeneStore> {
  const out: GeneStore = { genes: [], capsules: [], stats: await readTrajectory(store), problems: [] };
  for (const folder of ['genes', 'capsules'] as const) {
    const read = await readKnowledgeStore(join(store, folder));
    for (const u of read.unread) out.problems.push({ path: `${folder}/${u.path}`, line: 1, message: `not read: ${u.reason}` });
    for (const f of read.files) {
      const path = `${folder}/${f.path}`;
      if (folder === 'genes' && !path.endsWith('.gene.md')) continue;
      if (folder === 'capsules' && !path.endsWith('.capsule.md')) continue;
      if (folder === 'genes') {
        const read = readGene(path, f.text);
        if ('problem' in read) out.problems.push({ path, line: read.problem.line, message: read.problem.message });
        else out.genes.push({ path, gene: read.gene, text: f.text });
        continue;
      }
      const parsed = parseKnowledge('capsule', path, f.text);
      const error = parsed.problems.find((p) => p.severity === 'error');
      if (!parsed.data || error) {
        out.problems.push({ path, line: error?.line ?? 1, message: error?.message ?? 'not readable' });
        continue;
      }
      out.capsules.push({ path, capsule: parsed.data });
    }
  }
  return out;
}
