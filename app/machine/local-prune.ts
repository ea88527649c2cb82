import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { decay, type DecayResult, type GeneChange } from '../engine/knowledge/genes/decay.js';
import type { GeneEvent } from '../engine/knowledge/genes/gene-events.js';
import type { GeneSettings } from '../engine/knowledge/genes/gene-settings.js';
import { solidify, type SolidifyResult } from '../engine/knowledge/genes/gene-solidify.js';
import { appendTrajectory, trajectoryPath } from '../engine/knowledge/documents/trajectory.js';
import type { SafetyOptions } from './content-safety.js';
import { readTextIfExists } from './files.js';
import { readGeneStore } from './gene-store.js';
import { writeKnowledgeFiles, type WrittenFile } from './knowledge-store.js';
import { storePrefix } from './local-reflection.js';
import { readReflectionStore } from './reflection-store.js';
import { loadTemplate } from './templates.js';

/**
 * `harness prune` on a store on this machine: solidify repeated repairs into candidate genes,
 * then promote, demote, deprecate and remove genes as their record says (decay.ts). As
 * `harness reflect` does locally, the result is written into the store (each file through the
 * content-safety pass, a removed gene's file deleted, one trajectory line per change) for a
 * person to review and commit; on GitHub the same decisions are PRs.
 */

export interface LocalPruneOptions {
  /** The knowledge store (absolute). */
  store: string;
  /** The repository root (absolute): evidence paths are given relative to it. */
  root: string;
  settings: GeneSettings;
  now: Date;
  project: string;
  write: boolean;
  safety: SafetyOptions;
}

export interface LocalPrune {
  solidified: SolidifyResult;
  decayed: DecayResult;
  /** Gene and capsule files that could not be read. */
  problems: { path: string; line: number; message: string }[];
  /** Store paths written (redactions with them) and removed. */
  written: WrittenFile[];
  removed: string[];
  events: GeneEvent[];
}

export async function pruneLocally(options: LocalPruneOptions): Promise<LocalPrune> {
  const store = await readGeneStore(options.store);
  const stats = store.stats.result();
  const reflection = await readReflectionStore(options.store, storePrefix(options.root, options.store));
  const solidified = solidify({
    signals: reflection.signals,
    genes: store.genes,
    stats,
    settings: options.settings,
    template: await loadTemplate('gene.md'),
    now: options.now,
    project: options.project,
  });
  const decayed = decay({ genes: store.genes, capsules: store.capsules, stats, settings: options.settings, now: options.now, project: options.project });
  const events = [...solidified.candidates.map((c) => c.event), ...decayed.changes.map((c) => c.event)];
  const result: LocalPrune = { solidified, decayed, problems: [...store.problems, ...decayed.problems], written: [], removed: [], events };
  if (!options.write || events.length === 0) return result;

  const files = [
    ...solidified.candidates.map((c) => ({ path: c.path, text: c.text })),
    ...decayed.changes.filter((c): c is GeneChange & { text: string } => c.text !== undefined).map((c) => ({ path: c.path, text: c.text })),
  ];
  const day = trajectoryPath(options.now);
  const trajectory = appendTrajectory(await readTextIfExists(join(options.store, day)), events);
  if (trajectory !== undefined) files.push({ path: day, text: trajectory });
  result.written = await writeKnowledgeFiles(options.store, files, options.safety);
  for (const change of decayed.changes.filter((c) => c.action === 'remove')) {
    await rm(join(options.store, change.path), { force: true });
    result.removed.push(change.path);
  }
  return result;
}
