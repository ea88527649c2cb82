import { parseKnowledge } from '../documents/parse.js';
import { setFrontmatter } from '../documents/set-frontmatter.js';
import { changeGene } from '../genes/gene-history.js';
import { archivedSkill, archivePath } from '../skills/skill-archive.js';
import type { ItemKind } from './comparison.js';

/**
 * An item retired (docs/knowledge.md, Retirement), as the change a person reviews: locally the
 * files written into the store for them to commit, on GitHub a pull request. Each kind goes
 * where the store already keeps what no longer reaches a brief:
 *
 * - a skill moves to `skills-archived/<name>/SKILL.md`, with why (as `harness skills --prune`);
 * - a gene becomes `deprecated`, with a History line (as decay deprecates one);
 * - a lesson stays where it is, with `metadata.retired` (the day) and `metadata.retired-reason`:
 *   surfacing passes it over, while reflection still finds it, so its evidence is not drafted
 *   into the same lesson again.
 */

export interface Retirement {
  path: string;
  kind: ItemKind;
  reason: string;
}

export type RetiredChange =
  | { ok: true; files: { path: string; text: string }[]; deletions: string[] }
  /** Not retired: already out of the briefs, or a file that cannot be edited (`why`). */
  | { ok: false; why: string };

const PREFIX = 'retired by the holdout comparison';

/** The change that retires `item`, whose text is `text`; `at` is the time of the retrospective (ISO). */
export function retireItem(item: Retirement, text: string, at: string): RetiredChange {
  const day = at.slice(0, 10);
  const reason = `${PREFIX}: ${item.reason}`;
  if (item.kind === 'skill') {
    return { ok: true, files: [{ path: archivePath(item.path), text: archivedSkill(item.path, text, { day, reason }) }], deletions: [item.path] };
  }
  if (item.kind === 'gene') {
    const gene = parseKnowledge('gene', item.path, text).data;
    if (gene === undefined) return { ok: false, why: `${item.path} does not parse as a gene` };
    if (gene.status === 'deprecated') return { ok: false, why: `${item.path} is deprecated already` };
    const edited = changeGene(item.path, text, { status: 'deprecated', updated: at }, `${day}: ${gene.status} → deprecated: ${reason}.`);
    return edited.ok ? { ok: true, files: [{ path: item.path, text: edited.text }], deletions: [] } : { ok: false, why: edited.problem.message };
  }
  const lesson = parseKnowledge('lesson', item.path, text).data;
  if (lesson === undefined) return { ok: false, why: `${item.path} does not parse as a lesson` };
  if (isRetired(lesson.metadata)) return { ok: false, why: `${item.path} is retired already` };
  const edited = setFrontmatter(item.path, text, {
    metadata: { ...(lesson.metadata ?? {}), retired: day, 'retired-reason': reason.replace(/\s+/g, ' ').slice(0, 500) },
  });
  return edited.ok ? { ok: true, files: [{ path: item.path, text: edited.text }], deletions: [] } : { ok: false, why: edited.problem.message };
}

/** A lesson retired: its metadata says since when. */
export function isRetired(metadata: Readonly<Record<string, unknown>> | undefined): boolean {
  return metadata?.retired !== undefined;
}

/**
 * Whether the store still offers the item, so that retiring it changes something: a skill in
 * `skills/`, a gene not deprecated, a lesson not retired. `text` is the file's, or undefined
 * when the store no longer holds it.
 */
export function stillSurfaced(item: Pick<Retirement, 'path' | 'kind'>, text: string | undefined): boolean {
  if (text === undefined) return false;
  if (item.kind === 'skill') return true;
  if (item.kind === 'gene') {
    const gene = parseKnowledge('gene', item.path, text).data;
    return gene !== undefined && gene.status !== 'deprecated';
  }
  const lesson = parseKnowledge('lesson', item.path, text).data;
  return lesson !== undefined && !isRetired(lesson.metadata);
}
