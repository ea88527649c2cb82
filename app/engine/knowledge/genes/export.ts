import { documentKindOf } from '../documents/any-document.js';
import { decay, type CapsuleRecord, type GeneRecord } from './decay.js';
import { gdi } from './gdi.js';
import { geneMetrics } from './gene-metrics.js';
import type { GeneSettings } from './gene-settings.js';
import { parseKnowledge, type KnowledgeKind } from '../documents/parse.js';
import { tierOf } from './tiers.js';
import type { EntryStats, TrajectoryStats } from '../documents/trajectory-stats.js';

/**
 * `harness export`: the knowledge store as one JSON document (docs/design.md, Genes), for a
 * backup, another tool, or a person comparing two stores. Every accepted document is in it
 * whole (its path, its parsed frontmatter, its text); genes also with what harness computes
 * of them (metrics from the trajectory, tier, GDI score, what decay would do now); the
 * trajectory as its per-entry figures. Signals are counted, and listed only when asked: a
 * store holds tens of thousands, and they are the evidence behind the rest, not knowledge.
 *
 * The shape is stable (`format` and `version` say which): fields are only ever added.
 */

export const EXPORT_FORMAT = 'harness-knowledge-export';
export const EXPORT_VERSION = 1;

export interface ExportedDocument {
  path: string;
  kind: KnowledgeKind;
  frontmatter: unknown;
  text: string;
}

export interface KnowledgeExport {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  exported_at: string;
  project: string;
  counts: Record<string, number>;
  lessons: ExportedDocument[];
  skills: ExportedDocument[];
  skills_archived: ExportedDocument[];
  genes: (ExportedDocument & {
    computed: { metrics: ReturnType<typeof geneMetrics>; tier: number; gdi: number; decay?: { action: string; reason: string } };
  })[];
  capsules: ExportedDocument[];
  spikes: ExportedDocument[];
  signals?: ExportedDocument[];
  trajectory: { lines: number; unreadable: number; entries: EntryStats[] };
  /** Files that are no valid document of their kind: left out of the lists above. */
  problems: { path: string; line: number; message: string }[];
}

export interface ExportInput {
  /** The store's files, paths relative to its root. */
  files: readonly { path: string; text: string }[];
  stats: TrajectoryStats;
  settings: GeneSettings;
  now: Date;
  project: string;
  withSignals: boolean;
}

function bucket(path: string): keyof Pick<KnowledgeExport, 'lessons' | 'skills' | 'skills_archived' | 'genes' | 'capsules' | 'spikes'> | 'signals' | undefined {
  if (path.startsWith('signals/')) return 'signals';
  if (path.startsWith('lessons/')) return 'lessons';
  if (path.startsWith('skills-archived/')) return 'skills_archived';
  if (path.startsWith('skills/')) return 'skills';
  if (path.startsWith('genes/')) return 'genes';
  if (path.startsWith('capsules/')) return 'capsules';
  if (path.startsWith('spikes/')) return 'spikes';
  return undefined;
}

export function knowledgeExport(input: ExportInput): KnowledgeExport {
  const stats = input.stats.result();
  const out = emptyExport(input, stats);
  const read = readStore(input, out);
  exportGenes(input, stats, read, out);
  out.counts = countsOf(out, read.signals);
  return out;
}

type Stats = ReturnType<TrajectoryStats['result']>;

/** The export with no document in it yet: what it is, when and whose, and the trajectory's figures. */
function emptyExport(input: ExportInput, stats: Stats): KnowledgeExport {
  const out: KnowledgeExport = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: input.now.toISOString(),
    project: input.project,
    counts: {},
    lessons: [],
    skills: [],
    skills_archived: [],
    genes: [],
    capsules: [],
    spikes: [],
    trajectory: { lines: input.stats.lines, unreadable: input.stats.skipped, entries: [...stats.values()].sort((a, b) => (a.entry < b.entry ? -1 : 1)) },
    problems: [],
  };
  if (input.withSignals) out.signals = [];
  return out;
}

/** What reading the store leaves for the genes' part: the genes and capsules as records, and how many signals there are. */
interface StoreRead {
  genes: GeneRecord[];
  capsules: CapsuleRecord[];
  signals: number;
}

/** Every file of the store by path: each valid document in its list (genes kept aside for what is computed of them), the others a problem. */
function readStore(input: ExportInput, out: KnowledgeExport): StoreRead {
  const read: StoreRead = { genes: [], capsules: [], signals: 0 };
  for (const file of [...input.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const where = bucket(file.path);
    const kind = documentKindOf(file.path);
    if (
      where === undefined ||
      kind === undefined ||
      kind === 'spec' ||
      kind === 'plan' ||
      kind === 'roadmap' ||
      kind === 'summary' ||
      kind === 'verification' ||
      kind === 'status'
    )
      continue;
    if (where === 'signals') {
      read.signals++;
      if (!input.withSignals) continue;
    }
    const parsed = parseKnowledge(kind, file.path, file.text);
    const error = parsed.problems.find((p) => p.severity === 'error');
    if (!parsed.data || error) {
      out.problems.push({ path: file.path, line: error?.line ?? 1, message: error?.message ?? 'not readable' });
      continue;
    }
    const doc: ExportedDocument = { path: file.path, kind, frontmatter: parsed.data, text: file.text };
    if (where === 'genes' && kind === 'gene') read.genes.push({ path: file.path, gene: parsed.data as GeneRecord['gene'], text: file.text });
    else if (where === 'capsules' && kind === 'capsule') {
      read.capsules.push({ path: file.path, capsule: parsed.data as CapsuleRecord['capsule'] });
      out.capsules.push(doc);
    } else if (where !== 'genes' && where !== 'capsules') out[where]!.push(doc);
  }
  return read;
}

/** The genes, each with what harness computes of it: metrics, tier, GDI score, and what decay would do now. */
function exportGenes(input: ExportInput, stats: Stats, read: StoreRead, out: KnowledgeExport): void {
  const { genes, capsules } = read;
  const decided = decay({ genes, capsules, stats, settings: input.settings, now: input.now, project: input.project, render: false });
  const byPath = new Map(decided.changes.map((c) => [c.path, c]));
  for (const g of genes) {
    const metrics = geneMetrics(g.gene, stats.get(g.path));
    const change = byPath.get(g.path);
    out.genes.push({
      path: g.path,
      kind: 'gene',
      frontmatter: g.gene,
      text: g.text,
      computed: {
        metrics,
        tier: tierOf(g.gene),
        gdi: gdi(metrics, input.now).score,
        ...(change ? { decay: { action: change.action, reason: change.reason } } : {}),
      },
    });
  }
}

function countsOf(out: KnowledgeExport, signals: number): Record<string, number> {
  return {
    lessons: out.lessons.length,
    skills: out.skills.length,
    skills_archived: out.skills_archived.length,
    genes: out.genes.length,
    capsules: out.capsules.length,
    spikes: out.spikes.length,
    signals,
    trajectory_entries: out.trajectory.entries.length,
    problems: out.problems.length,
  };
}
